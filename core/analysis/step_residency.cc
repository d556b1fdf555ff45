#include "core/analysis/step_residency.h"

#include <algorithm>
#include <cstdint>

namespace dnnperf {
namespace {

/// Bytes touched after a given moment: a Fenwick tree over touch times holding each tensor's size
/// at its latest touch, so that a reuse distance costs a logarithm and not a scan.
class TouchLog {
 public:
  TouchLog(std::size_t buffers, std::size_t touches) : last_(buffers, 0), tree_(touches + 1, 0.0) {}

  /// The bytes of other buffers touched since `id` was last touched; < 0 if it never was.
  double distance(std::size_t id) const {
    if (last_[id] == 0) return -1;
    return sum(now_) - sum(last_[id]);
  }
  void touch(std::size_t id, double bytes) {
    if (last_[id] != 0) add(last_[id], -bytes);
    last_[id] = ++now_;
    add(now_, bytes);
  }

 private:
  void add(std::size_t i, double v) {
    for (; i < tree_.size(); i += i & (~i + 1)) tree_[i] += v;
  }
  double sum(std::size_t i) const {
    double s = 0;
    for (; i > 0; i -= i & (~i + 1)) s += tree_[i];
    return s;
  }
  std::vector<std::size_t> last_;  // touch time per buffer, 0: never
  std::vector<double> tree_;
  std::size_t now_ = 0;
};

bool is_data(TensorRole role) { return role == TensorRole::activation || role == TensorRole::input; }

/// A tensor's value and its gradient are two buffers.
std::size_t value(int tensor) { return 2 * static_cast<std::size_t>(tensor); }
std::size_t gradient(int tensor) { return 2 * static_cast<std::size_t>(tensor) + 1; }

struct Touches {
  std::vector<std::size_t> read, written;
};

/// What a kernel reads and writes. A matrix product's backward directions read only their own
/// operands (the input gradient needs the filter, not the input); other ops' backward passes are
/// taken to read every input (a ReLU its output or input, batch norm its input and scale).
Touches touches_of(const Graph& g, const Kernel& k) {
  const Op& op = g.ops()[static_cast<std::size_t>(k.op)];
  Touches t;
  const bool product = k.cls == KernelClass::conv || k.cls == KernelClass::gemm;
  switch (k.phase) {
    case Phase::forward:
      for (const int i : op.inputs) t.read.push_back(value(i));
      for (const int o : op.outputs) t.written.push_back(value(o));
      break;
    case Phase::backward_data:
      for (const int o : op.outputs) t.read.push_back(gradient(o));
      for (const int i : op.inputs)
        if (!product || !is_data(g.tensor(i).role)) t.read.push_back(value(i));
      for (const int i : op.inputs)
        if (is_data(g.tensor(i).role) && g.tensor(i).requires_grad) t.written.push_back(gradient(i));
      break;
    case Phase::backward_weight:
      for (const int o : op.outputs) t.read.push_back(gradient(o));
      for (const int i : op.inputs)
        if (is_data(g.tensor(i).role)) t.read.push_back(value(i));
      for (const int i : op.inputs)
        if (g.tensor(i).role == TensorRole::parameter) t.written.push_back(gradient(i));
      break;
    case Phase::update:
      for (const int i : op.inputs)
        if (g.tensor(i).role == TensorRole::parameter) {
          t.read.push_back(value(i)), t.read.push_back(gradient(i));
          t.written.push_back(value(i));
        }
      break;
  }
  return t;
}

}  // namespace

double ColdReach::far_share(double distance) const {
  if (!enabled() || !(distance > evicted_bytes)) return 0.0;
  return std::min((distance - evicted_bytes) / (last_level_bytes - evicted_bytes), 1.0);
}

std::vector<StepCacheState> replay_step_cache(const Graph& graph, const std::vector<Kernel>& kernels, double cache_bytes, const ColdReach& reach) {
  std::vector<StepCacheState> states(kernels.size());
  if (!(cache_bytes > 0)) return states;
  // Buffers: each tensor's value and gradient, and one more that stands for the convolution
  // library's code and working buffers, touched (at no size of its own) by every convolution.
  const std::size_t library = 2 * graph.tensors().size();
  const auto bytes = [&](std::size_t id) { return id == library ? 0.0 : static_cast<double>(graph.tensor(static_cast<int>(id / 2)).bytes()); };
  std::vector<Touches> all;
  all.reserve(kernels.size());
  std::size_t touches = 0;
  for (const Kernel& k : kernels) {
    all.push_back(k.op >= 0 ? touches_of(graph, k) : Touches{});
    if (k.cls == KernelClass::conv && k.op >= 0) all.back().read.push_back(library);
    touches += all.back().read.size() + all.back().written.size();
  }
  TouchLog log(library + 1, 2 * touches);  // two steps' touches
  // The share of `size` bytes last touched `id`'s distance ago that a cache of cache_bytes keeps.
  const auto share = [&](std::size_t id, double size) {
    const double d = log.distance(id);
    if (d < 0 || !(size > 0)) return 0.0;
    return std::clamp((cache_bytes - d) / size, 0.0, 1.0);
  };
  // A training step keeps its forward outputs for the backward: each lands where the previous
  // step's copy was. An inference frees each tensor once read, and the next output reuses it.
  const bool training = std::any_of(kernels.begin(), kernels.end(), [](const Kernel& k) { return k.phase != Phase::forward; });
  // Far beyond what the cold timing itself fetched from memory: between its repetitions the
  // kernel's own operands were touched besides the eviction, so a large operand was partly far in
  // calibration already (`calibrated`: the eviction plus the kernel's operand bytes).
  const auto far = [&](std::size_t id, double calibrated) {
    return std::max(reach.far_share(log.distance(id)) - reach.far_share(calibrated), 0.0) * bytes(id);
  };
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const Kernel& k = kernels[i];
      StepCacheState& state = states[i];
      if (pass == 1 && k.cls == KernelClass::conv && k.op >= 0) {
        const Op& op = graph.ops()[static_cast<std::size_t>(k.op)];
        const int x = op.inputs[0], w = op.inputs[1], y = op.outputs[0];
        const auto warm = [&](std::size_t id) { return share(id, bytes(id)); };
        StepCacheState::ResidentShare& r = state.resident;
        r = {};
        if (k.phase == Phase::forward) r.input = warm(value(x)), r.weight = warm(value(w));
        if (k.phase == Phase::backward_data) r.weight = warm(value(w)), r.output = warm(gradient(y));
        if (k.phase == Phase::backward_weight) r.input = warm(value(x)), r.output = warm(gradient(y));
        // The library's buffers are about as large as the operands they hold copies of.
        r.call = share(library, bytes(value(x)) + bytes(value(w)) + bytes(value(y)));
        const double calibrated = reach.evicted_bytes + bytes(value(x)) + bytes(value(w)) + bytes(value(y));
        state.far_bytes = 0;
        for (const std::size_t id : all[i].read)
          if (id != library) state.far_bytes += far(id, calibrated);
        if (k.phase == Phase::forward && training) state.far_bytes += far(value(y), calibrated);
      }
      const bool pass_kernel = k.cls == KernelClass::elementwise || k.cls == KernelClass::reduction || k.cls == KernelClass::copy;
      if (pass == 1 && pass_kernel && k.op >= 0 && k.phase != Phase::update) {
        // Timed hot: between its repetitions only its own operands were touched.
        double own = 0;
        for (const std::size_t id : all[i].read) own += bytes(id);
        for (const std::size_t id : all[i].written) own += bytes(id);
        state.far_read_bytes = state.far_written_bytes = 0;
        for (const std::size_t id : all[i].read) state.far_read_bytes += far(id, own);
        // What a training step writes lands in memory a step's other tensors cycled through: a
        // forward's output where the previous step's copy was, a gradient where the previous
        // step's gradient was. An inference frees each tensor once read, the next reuses it.
        if (training)
          for (const std::size_t id : all[i].written) state.far_written_bytes += far(id, own);
      }
      for (const std::size_t id : all[i].read) log.touch(id, bytes(id));
      for (const std::size_t id : all[i].written) log.touch(id, bytes(id));
    }
  return states;
}

}  // namespace dnnperf
