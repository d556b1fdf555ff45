#pragma once
// One training iteration of a pipeline of model chunks, simulated on the Timeline: every GPU's
// forward and backward of every micro-batch in Megatron-LM's order (1F1B; interleaved 1F1B with v
// chunks per GPU, Narayanan et al. 2021, section 2.2), the activation and gradient sends between
// neighbouring chunks (blocking, as Megatron-LM's 1F1B waits for each exchange with its neighbour
// before computing on; or, overlapped, only a delay on the wire between the sender's finish and
// the receiver's start),
// the data-parallel gradient collectives on a
// communication stream (after the last backward, or chunk by chunk as each chunk's last backward
// ends), ZeRO-3's parameter gathers ahead of each use, and the optimizer step. Nothing is closed
// form: the bubble is what the simulated compute streams sit idle.
//
// All data-parallel replicas run the same pipeline, so one pipeline is simulated.
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "predictor/simulation/timeline.h"

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
  /// Per GPU: the most activation bytes held at once by the schedule's in-flight micro-batches.
  std::vector<double> peak_activation_bytes;
};

/// The micro-batch order of one GPU: (model chunk, micro-batch, forward?) triples.
struct PipelineStep {
  int chunk = 0;  // model chunk
  std::int64_t micro_batch = 0;
  bool forward = true;
};
std::vector<PipelineStep> pipeline_order(int stages, int virtual_stages, std::int64_t micro_batches, int stage);

/// Simulates schedules; one simulator reused across plans keeps its timeline's memory and the
/// micro-batch orders it built (a search meets the same few stage and micro-batch counts again
/// and again).
class PipelineSimulator {
 public:
  PipelineResult run(const PipelineSchedule& schedule);
  /// A stage's most activation bytes in flight at once, from its order alone (no timeline).
  double peak_activation_bytes(const PipelineSchedule& schedule, int stage);

 private:
  const std::vector<std::vector<PipelineStep>>& orders(int stages, int virtual_stages, std::int64_t micro_batches);

  Timeline timeline_;
  std::map<std::tuple<int, int, std::int64_t>, std::vector<std::vector<PipelineStep>>> orders_;
  std::vector<int> forward_task_, backward_task_;
};

}  // namespace dnnperf
