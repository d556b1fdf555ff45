#include "predictor/simulation/data_parallel.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/common/error.h"

namespace dnnperf {
namespace {

struct Gradient {
  int op = -1;  // the op whose backward completes it (its first consumer)
  double bytes = 0;
};

/// Parameters in the order their gradients become ready: backward runs ops in reverse, so by
/// descending index of the op that reads them first.
std::vector<Gradient> gradients(const Graph& g, double bytes_per_element) {
  std::vector<int> first(g.tensors().size(), -1);
  for (int i = static_cast<int>(g.ops().size()) - 1; i >= 0; --i)
    for (int t : g.op(i).inputs) first[static_cast<std::size_t>(t)] = i;
  std::vector<Gradient> out;
  for (std::size_t t = 0; t < g.tensors().size(); ++t) {
    const Tensor& tensor = g.tensor(static_cast<int>(t));
    if (tensor.role == TensorRole::parameter && first[t] >= 0)
      out.push_back({first[t], static_cast<double>(tensor.shape.numel()) * bytes_per_element});
  }
  std::stable_sort(out.begin(), out.end(), [](const Gradient& a, const Gradient& b) { return a.op > b.op; });
  return out;
}

/// One pass of the simulation with these kernel durations; `kernel_task[i]` is kernel i's task.
DataParallelIteration simulate_once(const Graph& graph, std::span<const Kernel> kernels, std::span<const double> seconds,
                                    const ParallelPlan& plan, const AllReducePricer& price, double bytes_per_element,
                                    double bucket_copy_seconds_per_byte, double ddp_overhead_seconds, std::vector<int>& kernel_task) {
  kernel_task.assign(kernels.size(), -1);
  DataParallelIteration r;
  Timeline& tl = r.timeline;
  tl.reserve(kernels.size() + 64);
  r.compute_stream = tl.add_stream("compute");
  r.comm_stream = tl.add_stream("communication");
  const bool distributed = plan.data_parallel() > 1;

  const std::vector<Gradient> grads = gradients(graph, bytes_per_element);
  for (const Gradient& g : grads) r.gradient_bytes += g.bytes;
  const auto allreduce = [&](double bytes, int after, double extra_seconds) {
    AllReduceCall call;
    call.bytes = bytes;
    std::tie(call.algorithm, call.seconds) = price(bytes);
    call.copy_seconds = extra_seconds;
    call.task = tl.add_task(r.comm_stream, call.seconds + call.copy_seconds, {after}, TaskKind::communication);
    r.allreduces.push_back(call);
    return call.task;
  };

  // Gradient bytes completed by each op's backward, for per-layer synchronisation.
  std::vector<double> op_grad_bytes(graph.ops().size(), 0.0);
  for (const Gradient& g : grads) op_grad_bytes[static_cast<std::size_t>(g.op)] += g.bytes;

  std::vector<int> last_backward(graph.ops().size(), -1);
  int barrier = -1;  // a blocking all-reduce the next computation must wait for
  int last_compute = -1;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    if (k.phase == Phase::update) break;
    const int deps[1] = {barrier};
    last_compute = tl.add_task(r.compute_stream, seconds[i], std::span<const int>(deps, barrier >= 0 ? 1 : 0), TaskKind::compute, k.op);
    kernel_task[i] = last_compute;
    barrier = -1;
    if (k.phase == Phase::forward) continue;
    if (k.op >= 0) last_backward[static_cast<std::size_t>(k.op)] = last_compute;
    const bool op_done = i + 1 == kernels.size() || kernels[i + 1].op != k.op || kernels[i + 1].phase == Phase::update;
    if (distributed && plan.sync == GradientSync::per_layer && op_done && k.op >= 0 && op_grad_bytes[static_cast<std::size_t>(k.op)] > 0) {
      barrier = allreduce(op_grad_bytes[static_cast<std::size_t>(k.op)], last_compute, 0.0);
      op_grad_bytes[static_cast<std::size_t>(k.op)] = 0;  // shared weights accumulate later: reduce once
    }
  }
  if (distributed && plan.sync == GradientSync::bucketed) {
    double bucket = 0, cap = plan.first_bucket_bytes;
    int ready = -1;
    for (std::size_t i = 0; i < grads.size(); ++i) {
      const int task = last_backward[static_cast<std::size_t>(grads[i].op)];
      if (task >= 0 && (ready < 0 || tl.task(task).finish > tl.task(ready).finish)) ready = task;
      bucket += grads[i].bytes;
      if (bucket >= cap || i + 1 == grads.size()) {
        allreduce(bucket, ready >= 0 && !plan.communication_on_compute_cores ? ready : last_compute, 2 * bucket * bucket_copy_seconds_per_byte);
        bucket = 0;
        ready = -1;
        cap = plan.bucket_bytes;
      }
    }
  } else if (distributed && plan.sync == GradientSync::at_end && r.gradient_bytes > 0) {
    barrier = allreduce(r.gradient_bytes, last_compute, 0.0);
  }
  int comm_done = r.allreduces.empty() ? -1 : r.allreduces.back().task;
  if (distributed && plan.sync == GradientSync::bucketed && ddp_overhead_seconds > 0) {
    // Not one collective: DDP's buffer broadcast, its reducer and hand-offs, measured per step
    // as a whole (scripts/torch_sync_steps.py); it delays the optimizer step as the last bucket does.
    const int after[1] = {comm_done >= 0 ? comm_done : last_compute};
    comm_done = tl.add_task(r.comm_stream, ddp_overhead_seconds, std::span<const int>(after, after[0] >= 0 ? 1 : 0), TaskKind::communication);
    r.ddp_overhead_s = ddp_overhead_seconds;
  }
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].phase != Phase::update) continue;
    const int deps[1] = {comm_done};
    kernel_task[i] = tl.add_task(r.compute_stream, seconds[i], std::span<const int>(deps, comm_done >= 0 ? 1 : 0), TaskKind::compute, kernels[i].op);
  }
  r.iteration_s = tl.makespan();
  r.compute_s = tl.busy(r.compute_stream);
  r.comm_s = tl.busy(r.comm_stream);
  r.comm_exposed_s = std::max(0.0, r.iteration_s - r.compute_s);
  return r;
}

/// Seconds of each kernel's run that a collective overlaps: the communication stream's tasks run
/// one after another, so both lists are in time order and one sweep finds every overlap.
std::vector<double> overlapped_seconds(const DataParallelIteration& r, const std::vector<int>& kernel_task) {
  std::vector<double> out(kernel_task.size(), 0.0);
  std::vector<const Task*> comm;
  for (const Task& t : r.timeline.tasks())
    if (t.stream == r.comm_stream && t.finish > t.start) comm.push_back(&t);
  std::size_t c = 0;
  for (std::size_t i = 0; i < kernel_task.size(); ++i) {
    if (kernel_task[i] < 0) continue;
    const Task& k = r.timeline.task(kernel_task[i]);
    while (c < comm.size() && comm[c]->finish <= k.start) ++c;
    for (std::size_t j = c; j < comm.size() && comm[j]->start < k.finish; ++j)
      out[i] += std::min(k.finish, comm[j]->finish) - std::max(k.start, comm[j]->start);
  }
  return out;
}

}  // namespace

DataParallelIteration simulate_data_parallel(const Graph& graph, std::span<const Kernel> kernels,
                                             std::span<const double> seconds, const ParallelPlan& plan,
                                             const AllReducePricer& price, double bytes_per_element, double bucket_copy_seconds_per_byte,
                                             double ddp_overhead_seconds, double overlap_slowdown) {
  DNNPERF_CHECK(kernels.size() == seconds.size());
  std::vector<int> kernel_task;
  DataParallelIteration r = simulate_once(graph, kernels, seconds, plan, price, bytes_per_element, bucket_copy_seconds_per_byte,
                                          ddp_overhead_seconds, kernel_task);
  if (overlap_slowdown <= 0 || r.allreduces.empty()) return r;
  // Kernels that run beside a collective slow by overlap_slowdown for that time. Stretching them
  // moves the collectives (a bucket starts when its last gradient is ready), so the stretch is
  // found again on the moved timeline: a few passes settle it to well under a microsecond.
  const double own = r.compute_s;
  std::vector<double> stretched(seconds.begin(), seconds.end());
  for (int pass = 0; pass < 4; ++pass) {
    const std::vector<double> overlap = overlapped_seconds(r, kernel_task);
    for (std::size_t i = 0; i < stretched.size(); ++i) stretched[i] = seconds[i] + overlap_slowdown * overlap[i];
    const double before = r.iteration_s;
    r = simulate_once(graph, kernels, stretched, plan, price, bytes_per_element, bucket_copy_seconds_per_byte, ddp_overhead_seconds, kernel_task);
    if (std::abs(r.iteration_s - before) < 1e-7) break;
  }
  r.overlap_cost_s = r.compute_s - own;
  return r;
}

}  // namespace dnnperf
