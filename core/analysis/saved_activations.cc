#include "core/analysis/saved_activations.h"

#include <algorithm>

namespace dnnperf {
namespace {

bool is_activation(const Tensor& t) { return t.role == TensorRole::activation || t.role == TensorRole::input; }

class Saver {
 public:
  Saver(const Graph& g, std::vector<bool>& charged, std::int64_t& total, std::optional<DType> compute)
      : g_(g), charged_(charged), total_(total), compute_(compute) {}

  /// Element size of a floating tensor as the run stores it.
  std::int64_t element_bytes(DType d) const { return dtype_bytes(compute_ && is_floating(d) ? *compute_ : d); }

  void tensor(int index) {
    const Tensor& t = g_.tensor(index);
    if (!is_activation(t) || charged_[static_cast<std::size_t>(index)]) return;
    charged_[static_cast<std::size_t>(index)] = true;
    total_ += t.shape.numel() * element_bytes(t.dtype);
  }
  void extra(std::int64_t bytes) { total_ += bytes; }

 private:
  const Graph& g_;
  std::vector<bool>& charged_;
  std::int64_t& total_;
  std::optional<DType> compute_;
};

void save_for_op(const Graph& g, const Op& op, Saver& s) {
  const auto in = [&](std::size_t i) -> const Tensor& { return g.tensor(op.inputs[i]); };
  const Tensor& y = g.tensor(op.outputs[0]);
  switch (op.kind) {
    case OpKind::conv2d:
    case OpKind::linear:
      if (in(1).requires_grad) s.tensor(op.inputs[0]);
      return;
    case OpKind::matmul:
      if (in(1).requires_grad) s.tensor(op.inputs[0]);
      if (in(0).requires_grad) s.tensor(op.inputs[1]);
      return;
    case OpKind::max_pool2d:
    case OpKind::adaptive_max_pool2d:
      s.tensor(op.inputs[0]);
      s.extra(8 * y.shape.numel());  // int64 argmax indices
      return;
    case OpKind::batch_norm:
      s.tensor(op.inputs[0]);
      s.extra(8 * in(0).shape[1]);  // mean and inverse std, fp32
      return;
    case OpKind::layer_norm:
    case OpKind::rms_norm:
      s.tensor(op.inputs[0]);
      s.extra(8 * (in(0).shape.numel() / in(1).shape.numel()));
      return;
    case OpKind::relu: case OpKind::relu6: case OpKind::sigmoid: case OpKind::tanh:
    case OpKind::sqrt: case OpKind::exp: case OpKind::reciprocal:
    case OpKind::softmax: case OpKind::log_softmax:
      s.tensor(op.outputs[0]);
      return;
    case OpKind::gelu: case OpKind::silu: case OpKind::hardswish: case OpKind::hardsigmoid: case OpKind::erf:
      s.tensor(op.inputs[0]);
      return;
    case OpKind::mul: case OpKind::div: case OpKind::pow:
      s.tensor(op.inputs[0]);
      s.tensor(op.inputs[1]);
      return;
    case OpKind::weighted_sum:
      for (std::size_t i = 0; i + 1 < op.inputs.size(); ++i) s.tensor(op.inputs[i]);
      return;
    case OpKind::dropout:
      if (op.attrs.p > 0) s.extra(y.shape.numel());  // one byte of mask per element
      return;
    case OpKind::embedding:
      s.tensor(op.inputs[0]);
      return;
    case OpKind::attention: {
      const OpAttrs& a = op.attrs;
      const std::int64_t b = y.shape[0], n = y.shape[1], h = a.heads, kv = a.kv_heads ? a.kv_heads : h;
      const std::int64_t d = a.head_dim ? a.head_dim : y.shape[2] / h;
      const std::int64_t es = s.element_bytes(y.dtype);
      s.tensor(op.inputs[0]);
      s.extra(es * b * n * (2 * h + 2 * kv) * d);      // q, k, v and the merged context
      if (a.flash) {
        s.extra(4 * b * h * n);                        // the softmax's log-sum-exp per row, fp32
        return;                                        // the probabilities are recomputed
      }
      s.extra(es * b * h * n * n);                     // attention probabilities (for the softmax's backward)
      // Dropout on them: its mask, and the dropped probabilities the P V product keeps
      // (Korthikanti et al. 2022, section 4.1: 5 a s^2 b bytes at 16-bit in all).
      if (a.p > 0) s.extra(b * h * n * n + es * b * h * n * n);
      return;
    }
    case OpKind::moe: {
      const OpAttrs& a = op.attrs;
      const std::int64_t width = y.shape.back(), tokens = y.shape.numel() / width;
      const std::int64_t local = a.local_experts ? a.local_experts : a.experts;
      const std::int64_t slots = local * moe_expert_capacity(a, tokens);
      const std::int64_t es = s.element_bytes(y.dtype);
      s.tensor(op.inputs[0]);
      s.extra(es * tokens * a.experts + 8 * tokens * a.top_k);       // router probabilities, routing indices
      s.extra(es * slots * (width + (a.gated ? 3 : 2) * a.out_features));  // permuted tokens, projections, activation
      return;
    }
    case OpKind::cross_entropy:
      s.tensor(op.inputs[1]);
      s.extra(in(0).shape.numel() * s.element_bytes(in(0).dtype));  // log-probabilities
      return;
    default:
      return;  // add, sub, neg, cast, pooling averages, layout ops: backward needs only shapes
  }
}

}  // namespace

std::vector<std::int64_t> saved_activation_bytes(const Graph& graph, std::optional<DType> compute) {
  std::vector<std::int64_t> saved(graph.ops().size(), 0);
  std::vector<bool> charged(graph.tensors().size(), false);
  for (std::size_t i = 0; i < graph.ops().size(); ++i) {
    const Op& op = graph.op(static_cast<int>(i));
    const bool needs_backward = std::any_of(op.inputs.begin(), op.inputs.end(),
                                            [&](int t) { return graph.tensor(t).requires_grad; });
    if (!needs_backward) continue;
    Saver s(graph, charged, saved[i], compute);
    save_for_op(graph, op, s);
  }
  return saved;
}

}  // namespace dnnperf
