#include "core/analysis/saved_activations.h"

#include <algorithm>

namespace dnnperf {
namespace {

bool is_activation(const Tensor& t) { return t.role == TensorRole::activation || t.role == TensorRole::input; }

// Which copies of a tensor are held: the run's own, its 8-bit one.
constexpr std::uint8_t kStored = 1, kEightBit = 2;

class Saver {
 public:
  Saver(const Graph& g, std::vector<std::uint8_t>& charged, std::int64_t& total, std::optional<DType> compute, bool fp8)
      : g_(g), charged_(charged), total_(total), compute_(compute), fp8_(fp8) {}

  /// Element size of a floating tensor as the run stores it.
  std::int64_t element_bytes(DType d) const { return dtype_bytes(compute_ && is_floating(d) ? *compute_ : d); }
  /// Bytes an element of a layer's GEMM input is kept in: one under an FP8 recipe.
  std::int64_t gemm_input_bytes(DType d) const { return fp8_ ? 1 : element_bytes(d); }

  void tensor(int index) { charge(index, kStored); }
  /// The input of a GEMM against the op's weights: its 8-bit copy under an FP8 recipe.
  void gemm_input(int index) { charge(index, fp8_ ? kEightBit : kStored); }
  void extra(std::int64_t bytes) { total_ += bytes; }

 private:
  void charge(int index, std::uint8_t copy) {
    const Tensor& t = g_.tensor(index);
    std::uint8_t& held = charged_[static_cast<std::size_t>(index)];
    if (!is_activation(t) || (held & copy)) return;
    held |= copy;
    total_ += t.shape.numel() * (copy == kEightBit ? 1 : element_bytes(t.dtype));
  }

  const Graph& g_;
  std::vector<std::uint8_t>& charged_;
  std::int64_t& total_;
  std::optional<DType> compute_;
  bool fp8_ = false;
};

void save_for_op(const Graph& g, const Op& op, Saver& s) {
  const auto in = [&](std::size_t i) -> const Tensor& { return g.tensor(op.inputs[i]); };
  const Tensor& y = g.tensor(op.outputs[0]);
  switch (op.kind) {
    case OpKind::conv2d:
      if (in(1).requires_grad) s.tensor(op.inputs[0]);
      return;
    case OpKind::linear:
      if (in(1).requires_grad) s.gemm_input(op.inputs[0]);
      return;
    case OpKind::matmul: {
      // A product with weights runs as a layer's GEMM (lower.cc); one of two activations does not.
      const bool weights = in(0).role == TensorRole::parameter || in(1).role == TensorRole::parameter;
      const auto keep = [&](int t) { weights ? s.gemm_input(t) : s.tensor(t); };
      if (in(1).requires_grad) keep(op.inputs[0]);
      if (in(0).requires_grad) keep(op.inputs[1]);
      return;
    }
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
      s.gemm_input(op.inputs[0]);
      s.extra(es * b * n * (h + 2 * kv) * d);          // q, k and v
      s.extra(s.gemm_input_bytes(y.dtype) * b * n * h * d);  // the merged context, the output projection's input
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
      s.tensor(op.inputs[0]);  // the router's input (its GEMM stays 16-bit)
      s.extra(es * tokens * a.experts + 8 * tokens * a.top_k);       // router probabilities, routing indices
      // The permuted tokens and the activation are the experts' GEMM inputs; the projections' outputs
      // are the activation's.
      s.extra(s.gemm_input_bytes(y.dtype) * slots * (width + a.out_features) + es * slots * (a.gated ? 2 : 1) * a.out_features);
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

std::vector<std::int64_t> saved_activation_bytes(const Graph& graph, std::optional<DType> compute, bool fp8_gemm_inputs) {
  std::vector<std::int64_t> saved(graph.ops().size(), 0);
  std::vector<std::uint8_t> charged(graph.tensors().size(), 0);
  for (std::size_t i = 0; i < graph.ops().size(); ++i) {
    const Op& op = graph.op(static_cast<int>(i));
    const bool needs_backward = std::any_of(op.inputs.begin(), op.inputs.end(),
                                            [&](int t) { return graph.tensor(t).requires_grad; });
    if (!needs_backward) continue;
    Saver s(graph, charged, saved[i], compute, fp8_gemm_inputs);
    save_for_op(graph, op, s);
  }
  return saved;
}

}  // namespace dnnperf
