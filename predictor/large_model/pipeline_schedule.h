#pragma once
// One training iteration of a pipeline of model chunks, simulated event by event: every GPU's
// forward and backward of every micro-batch in Megatron-LM's order (1F1B; interleaved 1F1B with v
// chunks per GPU, Narayanan et al. 2021, section 2.2), the activation and gradient sends between
// neighbouring chunks (blocking, as Megatron-LM's 1F1B waits for each exchange with its neighbour
// before computing on; or, overlapped, only a delay on the wire between the sender's finish and
// the receiver's start), the data-parallel gradient collectives on a communication stream (after
// the last backward, or chunk by chunk as each chunk's last backward ends), ZeRO-3's parameter
// gathers ahead of each use, and the optimizer step. Nothing is closed form: the bubble is what
// the simulated compute streams sit idle.
//
// Each GPU has a compute and a communication stream that run their work in order, as Timeline's
// streams do (predictor/simulation/timeline.h); the simulator keeps only each stream's free time
// and each step's hand-over time in flat arrays rather than Timeline's task list, because a search
// simulates 10^5 plans a second of up to 10^5 steps each. tests/properties/pipeline_properties_test.cc
// checks it against the same schedule built on Timeline.
//
// All data-parallel replicas run the same pipeline, so one pipeline is simulated.
#include <cstdint>
#include <map>
#include <array>
#include <tuple>
#include <vector>

namespace dnnperf {

/// One model chunk's work for one micro-batch (chunk j runs on GPU j mod stages).
struct ChunkWork {
  double forward_s = 0;
  double backward_s = 0;     // with recomputation, if any
  double activation_bytes = 0;  // kept from its forward until its backward
  /// Data-parallel collectives of its gradients, once per iteration (0: none), and ZeRO-3's
  /// parameter gather before each forward and each backward of each micro-batch (0: none).
  double gradient_sync_s = 0;
  double parameter_gather_s = 0;
};

struct PipelineSchedule {
  int stages = 1;
  int virtual_stages = 1;
  std::int64_t micro_batches = 1;
  std::vector<ChunkWork> chunks;  // stages x virtual_stages, in model order
  double send_s = 0;              // an activation (or its gradient) from one chunk to the next
  /// The sender's compute stream waits for each send to complete (Megatron's default); false: the
  /// sends overlap the computation (Megatron's --overlap-p2p-communication).
  bool blocking_sends = true;
  bool overlap_gradient_sync = false;
  std::vector<double> optimizer_s;  // per GPU (stage), after its gradients are synchronised
};

struct PipelineResult {
  double iteration_s = 0;
  /// The GPU that finishes last: its compute stream's busy time, and the time it sat idle before
  /// its last backward (the bubble, with any wait on sends), and its exposed gradient sync (from
  /// its last backward to the end of its collectives).
  int critical_stage = 0;
  double busy_s = 0;         // its kernels, and its blocking sends
  double sending_s = 0;      // of busy_s, the blocking sends
  double idle_s = 0;
  double gradient_sync_exposed_s = 0;
  double optimizer_s = 0;
};

/// The micro-batch order of one GPU: (model chunk, micro-batch, forward?) triples.
struct PipelineStep {
  int chunk = 0;  // model chunk
  std::int64_t micro_batch = 0;
  bool forward = true;
};
std::vector<PipelineStep> pipeline_order(int stages, int virtual_stages, std::int64_t micro_batches, int stage);

/// Simulates schedules; one simulator reused across plans keeps the micro-batch orders it built
/// and its buffers (a search meets the same few stage and micro-batch counts again and again).
class PipelineSimulator {
 public:
  PipelineResult run(const PipelineSchedule& schedule);
  /// A stage's most activation bytes held at once by its in-flight micro-batches: this follows from
  /// its order alone, so it needs no simulation.
  double peak_activation_bytes(const PipelineSchedule& schedule, int stage);

 private:
  // Which steps wait for which depends on the stage, chunk and micro-batch counts only, never on
  // the durations; so does an order of all GPUs' steps in which each step comes after what it
  // waits for and after its GPU's earlier steps. Built once per count, a run is one pass over it.
  struct Step {
    std::uint32_t done;     // its slot in the hand-over times: 2 (chunk * m + micro-batch) + backward?
    std::uint32_t waits;    // the slot of what it waits for (the last slot, always 0: nothing)
    std::uint32_t gpu;
    std::uint32_t holds;    // 2 chunk + backward?: what it holds the compute stream for
    bool sent;              // what it waits for comes from another chunk over the wire
    bool last_backward;     // its chunk's last backward (overlapped gradient sync starts after it)
  };
  struct Orders {
    std::vector<std::vector<PipelineStep>> per_gpu;
    std::vector<Step> steps;
    std::vector<std::uint32_t> last_slot;  // per GPU: its last step's slot
  };
  const Orders& orders(int stages, int virtual_stages, std::int64_t micro_batches);
  template <bool kGathers, bool kOverlapSync>
  void simulate(const PipelineSchedule& schedule, const Orders& orders);

  std::map<std::tuple<int, int, std::int64_t>, Orders> orders_;
  // Reused between runs: the hand-over times, per chunk its forward's and backward's hold of the
  // compute stream, and per GPU its streams' free times and its last gradient sync's end.
  std::vector<double> done_, holds_;
  std::vector<double> compute_free_, comm_free_, synced_;
};

}  // namespace dnnperf
