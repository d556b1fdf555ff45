#pragma once
// Prediction of one training iteration (or an inference) of a network on a hardware profile under
// a run configuration: the top of dnnperf's predictor.
//
//   const Graph g = load_network("resnet50", {.batch = 256});   // per-device batch
//   const HardwareProfile hw = find_hardware_profile("a100");
//   RunConfig run;
//   run.plan.nodes = 8; run.plan.devices_per_node = 8;
//   const Prediction p = predict(g, hw, run);
//
// Kernels are priced by the analytic model of the profile; data-parallel gradient exchange is
// simulated (predictor/simulation/data_parallel.h).
#include <string>
#include <vector>

#include "core/analysis/step_residency.h"
#include "models/comm/nccl_tuning.h"
#include "models/compute/analytic_model.h"
#include "core/graph/graph.h"
#include "profile/hardware_profile.h"
#include "predictor/prediction/memory.h"
#include "predictor/prediction/run_config.h"
#include "predictor/simulation/data_parallel.h"

namespace dnnperf {

struct LayerTime {
  int op = -1;
  double forward_s = 0;
  double backward_s = 0;  // data and weight gradients, gradient accumulation
  double update_s = 0;
};

struct Prediction {
  std::string network;
  std::string hardware;
  int devices = 1;
  std::int64_t batch_per_device = 0;  // one micro-batch's
  std::int64_t global_batch = 0;      // per optimizer step: batch x devices x accumulation steps
  RunConfig config;

  /// Training: one optimizer step (all its micro-batches, RunConfig::accumulation_steps);
  /// inference: latency of one batch. The phase and layer times below sum over the step's
  /// micro-batches.
  double iteration_s = 0;
  /// 95% interval from the fitted models' intervals; equal to iteration_s for datasheet profiles.
  double iteration_low_s = 0, iteration_high_s = 0;
  double samples_per_s = 0;
  double compute_s = 0;    // all kernels of one device
  double forward_s = 0;
  double backward_s = 0;
  double loss_s = 0;       // part of forward and backward spent in loss ops
  double update_s = 0;
  double comm_s = 0;       // all-reduce time, hidden or not
  double comm_exposed_s = 0;
  /// What overlapping the collectives cost the kernels beside them (in compute_s; the profile's
  /// overlap_slowdown()).
  double overlap_cost_s = 0;
  double gradient_bytes = 0;
  /// Asynchronous devices whose profile measured the host (DeviceSpec::host_dispatch_s): the
  /// host's time queueing the step's kernels, and how long the device sat waiting for it (the
  /// part of compute_s that is the host's, not the kernels'). Zero otherwise.
  double host_dispatch_s = 0;
  double device_waiting_s = 0;
  /// Per phase (forward, backward, update), what bounds it on such a device: the host's time
  /// queueing its kernels against the device's time running them, and the device's idle time
  /// waiting for the host. A phase whose host time exceeds its kernels' is host-bound (faster
  /// kernels would not shorten it; --launch graph or a faster host would).
  struct PhaseLoad {
    double host_s = 0;
    double kernels_s = 0;
    double waiting_s = 0;
    bool host_bound() const { return host_s > kernels_s; }
  };
  PhaseLoad forward_load, backward_load, update_load;
  /// Synchronous devices (CPUs) whose profile measured the framework's time per op
  /// (DeviceSpec::host_op_s): the part of compute_s that is the framework's own work, run on the
  /// same thread as the kernels. Zero otherwise.
  double framework_s = 0;
  /// The factor on the computation for waiting, each training step, for the slowest of the
  /// data-parallel ranks (sync_wait_factor(), with straggler_factor(); 1 where the profile
  /// measures and assumes no wait). The phase and layer times above include it.
  double sync_wait = 1;
  std::vector<AllReduceCall> allreduces;
  /// DDP's own work per step beyond its all-reduces and copies (DeviceSpec::ddp_step_overhead_s),
  /// included in comm_s; 0 without a measured one, or one rank.
  double ddp_overhead_s = 0;
  bool fitted_communication = false;  // all-reduces priced by fitted models
  std::optional<std::int64_t> iterations_per_epoch;
  std::optional<double> epoch_s;

  MemoryEstimate memory;
  std::vector<LayerTime> layers;  // indexed like graph.ops()
};

/// The work of one device, lowered and priced; reusable across plans with the same per-device
/// batch (a weak-scaling sweep prices it once).
struct PricedStep {
  std::vector<Kernel> kernels;
  /// What the step's cache leaves each kernel (replay_step_cache; all 0 without a step warmth in
  /// the profile): the CPU library models price it.
  std::vector<StepCacheState> cache;
  /// Each kernel's share of the device's timeline: its own time, plus, where the host queues
  /// kernels more slowly than the device runs them (DeviceSpec::host_dispatch_s), the time the
  /// device waited for it to be queued. Their sum is the device's time for the step.
  std::vector<double> seconds;
  /// The host's time to queue each kernel (empty without DeviceSpec::host_dispatch_s), and the
  /// part of `seconds` that is waiting for it.
  std::vector<double> host_seconds;
  /// The part of each kernel's `seconds` that the device spent waiting for the host to queue it.
  std::vector<double> waiting_seconds;
  double device_waiting_s = 0;
  /// On a synchronous device, the framework's time per op, included in `seconds` (step total),
  /// and the part of it that is the optimizer update's.
  double framework_s = 0;
  double framework_update_s = 0;
  /// Each kernel's time at the 95% bounds of the step's compute time, when the profile is
  /// calibrated (empty otherwise): every kernel scaled by the same factor, from a spread that adds
  /// the errors kernels of a family share and lets their own average out.
  std::vector<double> low, high;
  bool calibrated = false;
  double gradient_bytes_per_element = 4;
  /// A 25 MiB copy's time per byte on the device: DDP's bucket copies.
  double copy_seconds_per_byte = 0;
  /// Training: the time to add one micro-batch's gradients into those kept from the step's
  /// earlier micro-batches (PyTorch's AccumulateGrad steals the first one's buffers and adds the
  /// others in place), paid by each micro-batch after the first under gradient accumulation.
  double gradient_accumulation_s = 0;
};

PricedStep price_step(const Graph& graph, const HardwareProfile& hardware, const RunConfig& config);

/// DDP's bucket copies (each gradient into its flat bucket, and back after the all-reduce) per
/// byte on the device, as price_step charges them: a 25 MiB copy of `dtype` at the co-running of
/// `processes_per_node` ranks.
double ddp_copy_seconds_per_byte(const HardwareProfile& hardware, DType dtype, int processes_per_node);

/// A data-parallel step's gradient communication as dnnperf prices it, buckets of `bucket_bytes`
/// one after another, each all-reduced and copied twice: on a CPU, where none overlaps the
/// computation, what the step adds. `dnnperf fit` holds DDP's measured steps against it
/// (DeviceSpec::ddp_step_overhead_s).
double bucket_communication_seconds(const HardwareProfile& hardware, const ParallelPlan& plan, std::span<const double> bucket_bytes);

/// Simulates `step` under `config` (whose plan may differ from the one it was priced for).
Prediction simulate_step(const Graph& graph, const PricedStep& step, const HardwareProfile& hardware,
                         const RunConfig& config);

/// `graph` holds the per-device batch. Throws InputError for an impossible configuration.
Prediction predict(const Graph& graph, const HardwareProfile& hardware, const RunConfig& config);

/// The communication group of `ranks` processes, `ranks_per_node` to a node, on a profile: alpha,
/// beta and gamma from its links, the nodes' NICs at the bandwidth their transport achieves
/// (ClusterSpec::achieved_bandwidth).
CommGroup comm_group(const HardwareProfile& hardware, int ranks, int ranks_per_node);
/// The same for a plan's data-parallel ranks.
CommGroup comm_group(const HardwareProfile& hardware, const ParallelPlan& plan);
/// What NCCL's tuner sees of a profile's node (models/comm/nccl_tuning.h): NVLink or PCIe between
/// its devices, LL128 where they are on NVLink and have tensor cores.
NcclMachine nccl_machine(const HardwareProfile& hardware);

/// How all-reduces are priced for a plan: by the profile's fitted models when it has them (the
/// plan's algorithm, or the cheapest fitted one), else by the α-β-γ algorithms on its links.
/// Throws InputError if the plan forces an algorithm a fitted profile has no model for.
enum class IntervalBound { low, center, high };
AllReducePricer allreduce_pricer(const HardwareProfile& hardware, const ParallelPlan& plan,
                                 IntervalBound bound = IntervalBound::center);

}  // namespace dnnperf
