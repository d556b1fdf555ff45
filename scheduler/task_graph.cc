#include "scheduler/task_graph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "models/compute/analytic_model.h"
#include "models/compute/profile_model.h"
#include "core/common/error.h"
#include "core/lowering/lower.h"

namespace dnnperf {

double TaskNode::fastest() const { return *std::min_element(seconds.begin(), seconds.end()); }

void TaskGraph::index() {
  // Merge parallel edges (an op reading two outputs of one producer) into one transfer.
  std::map<std::pair<int, int>, double> merged;
  for (const TaskEdge& e : edges) {
    if (e.from < 0 || e.to >= size() || e.from >= e.to)
      throw InputError("task graph '" + network + "': edge " + std::to_string(e.from) + " -> " + std::to_string(e.to) + " is not forward");
    merged[{e.from, e.to}] += e.bytes;
  }
  edges.clear();
  for (const auto& [key, bytes] : merged) edges.push_back({key.first, key.second, bytes});
  in_.assign(tasks.size(), {});
  out_.assign(tasks.size(), {});
  for (std::size_t e = 0; e < edges.size(); ++e) {
    out_[static_cast<std::size_t>(edges[e].from)].push_back(static_cast<int>(e));
    in_[static_cast<std::size_t>(edges[e].to)].push_back(static_cast<int>(e));
  }
}

std::vector<std::vector<std::uint64_t>> TaskGraph::reachability() const {
  const std::size_t words = (tasks.size() + 63) / 64;
  std::vector<std::vector<std::uint64_t>> reach(tasks.size(), std::vector<std::uint64_t>(words, 0));
  for (int i = size() - 1; i >= 0; --i) {
    auto& r = reach[static_cast<std::size_t>(i)];
    for (int e : out_edges(i)) {
      const int j = edges[static_cast<std::size_t>(e)].to;
      r[static_cast<std::size_t>(j) / 64] |= std::uint64_t{1} << (j % 64);
      const auto& rj = reach[static_cast<std::size_t>(j)];
      for (std::size_t w = 0; w < words; ++w) r[w] |= rj[w];
    }
  }
  return reach;
}

double group_seconds(const TaskNode& a, const TaskNode& b, int device) {
  const auto d = static_cast<std::size_t>(device);
  return std::max({a.seconds[d], b.seconds[d], a.busy[d] + b.busy[d] + std::max(a.launch[d], b.launch[d])});
}

TaskGraph build_task_graph(const Graph& graph, const Platform& platform, const TaskGraphOptions& options) {
  TaskGraph tg;
  tg.network = graph.name();
  tg.devices = platform.size();
  const auto n_devices = static_cast<std::size_t>(platform.size());

  const LoweringOptions lowering = lowering_for(options.precision, false, Optimizer::sgd);
  ExecutionOptions execution;
  execution.allow_tf32 = options.precision == Precision::tf32;
  const std::vector<Kernel> kernels = lower(graph, lowering);
  const auto activation_bytes = [&](const Tensor& t) {
    return static_cast<double>(t.shape.numel()) * dtype_bytes(lowering.compute_dtype ? *lowering.compute_dtype : t.dtype);
  };

  tg.tasks.resize(graph.ops().size());
  for (std::size_t o = 0; o < graph.ops().size(); ++o) {
    TaskNode& t = tg.tasks[o];
    const Op& op = graph.op(static_cast<int>(o));
    t.name = op.name;
    t.ops = {static_cast<int>(o)};
    t.seconds.assign(n_devices, 0.0);
    t.busy.assign(n_devices, 0.0);
    t.launch.assign(n_devices, 0.0);
    for (int in : op.inputs) {
      const Tensor& tensor = graph.tensor(in);
      if (tensor.role == TensorRole::parameter || tensor.role == TensorRole::buffer || tensor.role == TensorRole::constant)
        t.weight_bytes += static_cast<double>(tensor.shape.numel()) * dtype_bytes(tensor.dtype);
      else if (tensor.producer >= 0)
        tg.edges.push_back({tensor.producer, static_cast<int>(o), activation_bytes(tensor)});
    }
    for (int out : op.outputs) t.output_bytes += activation_bytes(graph.tensor(out));
  }

  for (std::size_t d = 0; d < n_devices; ++d) {
    const PlatformDevice& device = platform.devices[d];
    if (const std::optional<MathMode> needed = required_tensor_math(options.precision); needed && !device.hardware.supports(*needed)) {
      for (TaskNode& t : tg.tasks) t.seconds[d] = kCannotRun;
      continue;
    }
    const ProfileComputeModel model(device.hardware);
    const AnalyticComputeModel analytic(device.hardware.device);
    const DeviceSpec& spec = device.hardware.device;
    for (const Kernel& k : kernels) {
      TaskNode& t = tg.tasks[static_cast<std::size_t>(k.op)];
      if (t.seconds[d] == kCannotRun) continue;
      double s = 0;
      AnalyticCost parts;
      try {
        s = model.seconds(k, execution);
        parts = analytic.cost(k, execution);
      } catch (const InputError&) {
        t.seconds[d] = kCannotRun;  // e.g. a CPU without the precision
        continue;
      }
      // Occupancy: the fraction of the device's best rate the kernel reaches; the rest of the
      // units are free for a concurrent kernel.
      const bool matrix = k.cls == KernelClass::gemm || k.cls == KernelClass::conv;
      const double max_matrix = k.cls == KernelClass::conv ? spec.conv.max_efficiency : spec.gemm.max_efficiency;
      const double occupancy = matrix && parts.compute_seconds >= parts.memory_seconds
                                   ? parts.compute_efficiency / max_matrix
                                   : parts.memory_efficiency / spec.memory.max_efficiency;
      const double launch = std::min(parts.launch_seconds, s);
      t.seconds[d] += s;
      t.launch[d] += launch;
      t.busy[d] += (s - launch) * std::clamp(occupancy, 0.0, 1.0);
    }
    for (std::size_t o = 0; o < graph.ops().size(); ++o)
      if (device.unsupported.count(graph.op(static_cast<int>(o)).kind)) tg.tasks[o].seconds[d] = kCannotRun;
  }
  const std::optional<MathMode> needed = required_tensor_math(options.precision);
  for (std::size_t o = 0; o < tg.tasks.size(); ++o)
    if (tg.tasks[o].fastest() == kCannotRun)
      throw InputError("platform '" + platform.name + "': no device can run op '" + tg.tasks[o].name + "' (" +
                       std::string(op_kind_name(graph.op(static_cast<int>(o)).kind)) + ")" +
                       (needed ? " in " + std::string(precision_name(options.precision)) + ", which needs " + std::string(math_mode_name(*needed)) +
                                     " units (device.peak_flops)"
                               : ""));
  tg.index();
  return tg;
}

void coarsen(TaskGraph& tg, int target_tasks) {
  if (target_tasks < 1) throw InputError("coarsening needs a target of at least one task");
  while (tg.size() > target_tasks) {
    // Chain edges: the only way out of `from` and the only way into `to`.
    std::vector<int> chains;
    for (std::size_t e = 0; e < tg.edges.size(); ++e) {
      const TaskEdge& edge = tg.edges[e];
      if (tg.out_edges(edge.from).size() == 1 && tg.in_edges(edge.to).size() == 1) chains.push_back(static_cast<int>(e));
    }
    if (chains.empty()) return;
    const auto pair_cost = [&](int e) {
      const TaskEdge& edge = tg.edges[static_cast<std::size_t>(e)];
      return tg.task(edge.from).fastest() + tg.task(edge.to).fastest();
    };
    std::stable_sort(chains.begin(), chains.end(), [&](int a, int b) { return pair_cost(a) < pair_cost(b); });
    std::vector<int> into(tg.tasks.size());
    std::iota(into.begin(), into.end(), 0);
    std::vector<bool> touched(tg.tasks.size(), false);
    int remaining = tg.size();
    for (int e : chains) {
      if (remaining <= target_tasks) break;
      const TaskEdge& edge = tg.edges[static_cast<std::size_t>(e)];
      if (touched[static_cast<std::size_t>(edge.from)] || touched[static_cast<std::size_t>(edge.to)]) continue;
      touched[static_cast<std::size_t>(edge.from)] = touched[static_cast<std::size_t>(edge.to)] = true;
      into[static_cast<std::size_t>(edge.to)] = edge.from;
      TaskNode& a = tg.tasks[static_cast<std::size_t>(edge.from)];
      const TaskNode& b = tg.task(edge.to);
      const std::string first = a.name.substr(0, a.name.find(" .. "));
      const std::size_t last_at = b.name.find(" .. ");
      a.name = first + " .. " + (last_at == std::string::npos ? b.name : b.name.substr(last_at + 4));
      a.ops.insert(a.ops.end(), b.ops.begin(), b.ops.end());
      for (std::size_t d = 0; d < a.seconds.size(); ++d) {
        a.seconds[d] += b.seconds[d];  // infinity stays infinity
        a.busy[d] += b.busy[d];
        a.launch[d] += b.launch[d];
      }
      a.weight_bytes += b.weight_bytes;
      a.output_bytes = b.output_bytes;
      --remaining;
    }
    // Renumber: a fused task keeps its first part's place, which keeps the order topological.
    std::vector<int> number(tg.tasks.size(), -1);
    std::vector<TaskNode> kept;
    for (std::size_t i = 0; i < tg.tasks.size(); ++i)
      if (into[i] == static_cast<int>(i)) {
        number[i] = static_cast<int>(kept.size());
        kept.push_back(std::move(tg.tasks[i]));
      }
    std::vector<TaskEdge> edges;
    for (const TaskEdge& edge : tg.edges) {
      const int from = number[static_cast<std::size_t>(into[static_cast<std::size_t>(edge.from)])];
      const int to = number[static_cast<std::size_t>(into[static_cast<std::size_t>(edge.to)])];
      if (from != to) edges.push_back({from, to, edge.bytes});
    }
    tg.tasks = std::move(kept);
    tg.edges = std::move(edges);
    tg.index();
  }
}

}  // namespace dnnperf
