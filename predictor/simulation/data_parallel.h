#pragma once
// One data-parallel training iteration as a discrete-event simulation of one device's compute
// stream and communication stream (every replica does the same work at the same time).
//
// The compute stream runs the forward kernels, then the backward kernels in reverse layer order.
// Gradients are all-reduced on the communication stream as the plan says: in DDP buckets that
// start as soon as their last gradient exists (overlapping the rest of backward), blocking after
// each layer, or once at the end. The optimizer update waits for every all-reduce.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "models/comm/allreduce.h"
#include "core/graph/graph.h"
#include "core/lowering/kernel.h"
#include "predictor/simulation/parallel_plan.h"
#include "predictor/simulation/timeline.h"

namespace dnnperf {

/// Prices one all-reduce of `bytes` bytes: the algorithm used and its seconds.
using AllReducePricer = std::function<std::pair<std::string, double>(double bytes)>;

struct AllReduceCall {
  double bytes = 0;
  std::string algorithm;
  double seconds = 0;       // the all-reduce
  double copy_seconds = 0;  // DDP's copies into the bucket and back, on the same stream after it
  int task = -1;            // in the timeline
};

struct DataParallelIteration {
  Timeline timeline;
  int compute_stream = 0;
  int comm_stream = 1;
  std::vector<AllReduceCall> allreduces;
  double iteration_s = 0;
  double compute_s = 0;        // busy time of the compute stream
  double comm_s = 0;           // busy time of the communication stream
  double comm_exposed_s = 0;   // iteration time not covered by computation
  double gradient_bytes = 0;
  double ddp_overhead_s = 0;   // DDP's own work per step, on the communication stream (DeviceSpec::ddp_step_overhead_s)
  double overlap_cost_s = 0;   // what running beside the collectives added to the kernels (in compute_s)
};

/// `kernels` as lower() orders them (training) and `kernel_seconds` their durations;
/// `gradient_bytes_per_element` is the size of one gradient element in the all-reduce.
/// `bucket_copy_seconds_per_byte`: with bucketed sync, DDP copies each gradient into its flat
/// bucket and back after the all-reduce (PyTorch's default, gradient_as_bucket_view off); each
/// bucket's all-reduce is charged both copies. `ddp_overhead_seconds`: with bucketed sync, DDP's
/// own work per step beyond those (DeviceSpec::ddp_step_overhead_s), after the last bucket and
/// before the optimizer step. `overlap_slowdown`: the fraction by which a kernel slows while an
/// all-reduce runs beside it (overlap_slowdown() of the profile: the collective's kernels hold
/// SMs); 0: overlap is free.
DataParallelIteration simulate_data_parallel(const Graph& graph, std::span<const Kernel> kernels,
                                             std::span<const double> kernel_seconds, const ParallelPlan& plan,
                                             const AllReducePricer& allreduce, double gradient_bytes_per_element,
                                             double bucket_copy_seconds_per_byte = 0, double ddp_overhead_seconds = 0,
                                             double overlap_slowdown = 0);

}  // namespace dnnperf
