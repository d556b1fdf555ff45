#include "core/lowering/lower.h"

#include <algorithm>
#include <optional>

#include "core/common/error.h"

namespace dnnperf {
namespace {

// Nominal arithmetic per element of one-pass kernels. These kernels are memory-bound on every
// device we model, so the bytes, not these counts, decide their cost; the counts keep FLOP totals
// comparable with profilers that count them (e.g. fvcore counts one op per activation element).
double unary_flops(OpKind kind) {
  switch (kind) {
    case OpKind::relu: case OpKind::neg: case OpKind::sqrt: case OpKind::reciprocal: return 1;
    case OpKind::relu6: return 2;
    case OpKind::hardsigmoid: return 3;
    case OpKind::sigmoid: case OpKind::exp: return 4;
    case OpKind::silu: case OpKind::hardswish: return 5;
    case OpKind::tanh: return 6;
    case OpKind::gelu: case OpKind::erf: return 10;
    case OpKind::cast: return 0;
    default: return 1;
  }
}

class Emitter {
 public:
  Emitter(std::vector<Kernel>& out, const Graph& g, int op_index, const LoweringOptions& options)
      : out_(out), g_(g), op_(g.op(op_index)), op_index_(op_index), compute_(options.compute_dtype), fp8_(options.fp8_gemms),
        training_(options.training) {}

  const Tensor& in(std::size_t i) const { return g_.tensor(op_.inputs[i]); }
  const Tensor& outp(std::size_t i = 0) const { return g_.tensor(op_.outputs[i]); }
  std::size_t input_count() const { return op_.inputs.size(); }
  const OpAttrs& attrs() const { return op_.attrs; }
  OpKind kind() const { return op_.kind; }
  /// The kernel's element type: the run's compute type for floating tensors, if one is set.
  DType dtype() const { return stored(outp().dtype); }
  double es() const { return dtype_bytes(dtype()); }
  /// Bytes of a tensor as the run stores it.
  double bytes(const Tensor& t) const { return static_cast<double>(t.shape.numel()) * dtype_bytes(stored(t.dtype)); }
  /// Phase of the gradient with respect to input i.
  Phase grad_phase(std::size_t i) const {
    return in(i).role == TensorRole::parameter ? Phase::backward_weight : Phase::backward_data;
  }

  /// `of_weights`: a product of the layer's weights with activations or their gradients (false
  /// for attention's products of activations and a router's logits): under an FP8 recipe it runs
  /// on FP8 tensor cores, its operands cast first.
  void gemm(Phase phase, GemmShape s, bool of_weights = true) {
    const bool fp8 = fp8_ && of_weights && has_weights();
    Kernel k = gemm_kernel(phase, s, fp8 ? DType::f8e4m3 : dtype());
    k.op_kind = op_.kind;
    k.op = op_index_;
    if (fp8) {
      k.bytes_written = es() * static_cast<double>(k.elements);  // results in the run's 16-bit type
      // Transformer Engine casts each operand once, with its transpose for the other direction's
      // product: forward the activations and the weights, backward the output's gradient (the
      // weight gradient reuses both). Two 8-bit copies written per element read; the scaling's
      // amax is taken on the way. (A first layer, with no input gradient, casts its output's
      // gradient for the weight gradient alone: not counted.)
      // Inference keeps its weights in 8 bits and casts only the activations, once (no transpose).
      const double batch = static_cast<double>(s.batch);
      const double cast = phase == Phase::forward ? batch * static_cast<double>(s.m * s.k + (training_ ? s.k * s.n : 0))
                          : phase == Phase::backward_data ? batch * static_cast<double>(s.m * s.k)
                                                          : 0.0;
      const double copies = training_ ? 2.0 : 1.0;
      if (cast > 0) pass(KernelClass::elementwise, phase, static_cast<std::int64_t>(cast), 2, es() * cast, copies * cast);
    }
    out_.push_back(k);
  }

  void conv(Phase phase, const ConvShape& c, bool shares_call = false) {
    Kernel k = conv_kernel(phase, c, dtype());
    k.shares_call = shares_call;
    k.op_kind = op_.kind;
    k.op = op_index_;
    out_.push_back(k);
  }

  /// `family`: the op-specific pass family (Kernel::pass), if the pass has one.
  void pass(KernelClass cls, Phase phase, std::int64_t elements, double flops_per_element,
            double bytes_read, double bytes_written, std::string_view family = {}) {
    Kernel k = base(cls, phase);
    k.pass = family;
    k.elements = elements;
    k.flops = flops_per_element * static_cast<double>(elements);
    k.bytes_read = bytes_read;
    k.bytes_written = bytes_written;
    out_.push_back(k);
  }

  /// The kernel emitted last, to set what only some passes carry.
  Kernel& last() { return out_.back(); }

 private:
  Kernel base(KernelClass cls, Phase phase) const {
    Kernel k;
    k.cls = cls;
    k.phase = phase;
    k.dtype = dtype();
    k.op_kind = op_.kind;
    k.op = op_index_;
    return k;
  }

  DType stored(DType d) const { return compute_ && is_floating(d) ? *compute_ : d; }
  bool has_weights() const {
    for (const int t : op_.inputs)
      if (g_.tensor(t).role == TensorRole::parameter) return true;
    return false;
  }

  std::vector<Kernel>& out_;
  const Graph& g_;
  const Op& op_;
  int op_index_;
  std::optional<DType> compute_;
  bool fp8_ = false;
  bool training_ = true;
};

ConvShape conv_shape(const Emitter& e) {
  const TensorShape& x = e.in(0).shape;
  const TensorShape& w = e.in(1).shape;
  const TensorShape& y = e.outp().shape;
  const OpAttrs& a = e.attrs();
  return ConvShape{x[0], x[1], x[2], x[3], w[0], w[2], w[3], y[2], y[3],
                   a.stride[0], a.stride[1], a.pad_begin[0], a.pad_begin[1], a.dilation[0], a.dilation[1], a.groups};
}

void lower_conv2d(Emitter& e, bool forward) {
  const ConvShape c = conv_shape(e);
  const Tensor& y = e.outp();
  const bool bias = e.input_count() == 3;
  if (forward) {
    e.conv(Phase::forward, c);
    if (bias) e.pass(KernelClass::elementwise, Phase::forward, y.shape.numel(), 1, e.bytes(y) + e.bytes(e.in(2)), e.bytes(y));
    return;
  }
  if (e.in(0).requires_grad) e.conv(Phase::backward_data, c);
  if (e.in(1).requires_grad) e.conv(Phase::backward_weight, c, e.in(0).requires_grad);
  if (bias && e.in(2).requires_grad) e.pass(KernelClass::reduction, Phase::backward_weight, c.k, static_cast<double>(y.shape.numel()) / static_cast<double>(c.k), e.bytes(y), e.bytes(e.in(2)));
}

void lower_linear(Emitter& e, bool forward) {
  const Tensor& x = e.in(0);
  const Tensor& y = e.outp();
  const std::int64_t in = x.shape.back(), out = y.shape.back(), m = x.shape.numel() / in;
  const bool bias = e.input_count() == 3;
  if (forward) {
    e.gemm(Phase::forward, {m, out, in, 1, false, true});
    if (bias) e.pass(KernelClass::elementwise, Phase::forward, y.shape.numel(), 1, e.bytes(y) + e.bytes(e.in(2)), e.bytes(y));
    return;
  }
  if (x.requires_grad) e.gemm(Phase::backward_data, {m, in, out, 1, false, false});
  if (e.in(1).requires_grad) e.gemm(e.grad_phase(1), {out, in, m, 1, true, false});
  if (bias && e.in(2).requires_grad) e.pass(KernelClass::reduction, e.grad_phase(2), out, static_cast<double>(m), e.bytes(y), e.bytes(e.in(2)));
}

void lower_matmul(Emitter& e, bool forward) {
  const TensorShape& a = e.in(0).shape;
  const TensorShape& b = e.in(1).shape;
  const TensorShape& y = e.outp().shape;
  const std::int64_t k = a.back(), n = b.back();
  std::int64_t m = a.at(-2), batch = y.numel() / (y.at(-2) * y.back());
  // A batched activation times an unbatched matrix is one big GEMM, as frameworks run it.
  const bool fold = b.rank() == 2 && a.rank() > 2;
  if (fold) {
    m *= batch;
    batch = 1;
  }
  if (forward) {
    e.gemm(Phase::forward, {m, n, k, batch, false, false});
    return;
  }
  if (e.in(0).requires_grad) e.gemm(e.grad_phase(0), {m, k, n, batch, false, true});
  if (e.in(1).requires_grad) e.gemm(e.grad_phase(1), {k, n, m, batch, true, false});
}

void lower_pooling(Emitter& e, bool forward, bool training) {
  const Tensor& x = e.in(0);
  const Tensor& y = e.outp();
  const bool max = e.kind() == OpKind::max_pool2d || e.kind() == OpKind::adaptive_max_pool2d;
  const bool adaptive = e.kind() == OpKind::adaptive_avg_pool2d || e.kind() == OpKind::adaptive_max_pool2d;
  const double window = adaptive ? static_cast<double>(x.shape.numel()) / static_cast<double>(y.shape.numel())
                                 : static_cast<double>(e.attrs().kernel[0] * e.attrs().kernel[1]);
  const double indices = max && training ? 8.0 * static_cast<double>(y.shape.numel()) : 0.0;
  if (forward) {
    e.pass(KernelClass::reduction, Phase::forward, y.shape.numel(), window, e.bytes(x), e.bytes(y) + indices, max ? "max_pool" : "avg_pool");
    return;
  }
  if (x.requires_grad)
    e.pass(KernelClass::elementwise, Phase::backward_data, x.shape.numel(), 1, e.bytes(y) + indices, e.bytes(x), max ? "max_pool_backward" : "");
}

void lower_normalization(Emitter& e, bool forward, bool training) {
  const Tensor& x = e.in(0);
  const std::int64_t n = x.shape.numel();
  const bool batch_norm = e.kind() == OpKind::batch_norm;
  const std::int64_t stats = batch_norm ? x.shape[1] : n / e.in(1 < e.input_count() ? 1 : 0).shape.numel();
  // Batch norm over images walks each sample's channel, N x C runs of the spatial elements (over
  // [N, C] features PyTorch takes another path: none counted).
  const std::int64_t run = batch_norm && x.shape.rank() >= 3 ? n / std::max<std::int64_t>(1, x.shape[0] * x.shape[1]) : 0;
  if (forward) {
    // Training batch norm is priced as one family in two passes (statistics, then normalisation),
    // inference batch norm as a family of its own: the running statistics' affine map, which a
    // framework walks per sample and channel as training does (scalar code over small images; a
    // profile without the family prices it as a plain pass).
    if (batch_norm && training) e.pass(KernelClass::reduction, Phase::forward, 2 * stats, 2.0 * static_cast<double>(n) / static_cast<double>(2 * stats), e.bytes(x), 8.0 * static_cast<double>(stats), "batch_norm");
    if (batch_norm) {
      e.pass(KernelClass::elementwise, Phase::forward, n, 4, e.bytes(x) + 16.0 * static_cast<double>(stats), e.bytes(x), training ? "batch_norm" : "batch_norm_inference");
      e.last().run_elements = run;
    }
    else e.pass(KernelClass::reduction, Phase::forward, n, 8, e.bytes(x), e.bytes(x) + (training ? 8.0 * static_cast<double>(stats) : 0.0));
    return;
  }
  if (e.input_count() > 1 && e.in(1).requires_grad) {
    const double params = e.bytes(e.in(1)) * static_cast<double>(e.input_count() >= 3 ? 2 : 1);
    e.pass(KernelClass::reduction, Phase::backward_weight, e.in(1).shape.numel() * 2, static_cast<double>(n) * 3.0 / static_cast<double>(2 * e.in(1).shape.numel()), 2.0 * e.bytes(x), params,
           batch_norm ? "batch_norm_backward" : "");
  }
  if (x.requires_grad) {
    e.pass(batch_norm ? KernelClass::elementwise : KernelClass::reduction, Phase::backward_data, n, 8, 2.0 * e.bytes(x), e.bytes(x), batch_norm ? "batch_norm_backward" : "");
    if (batch_norm) e.last().run_elements = run;
  }
}

void lower_unary(Emitter& e, bool forward, bool training) {
  const Tensor& x = e.in(0);
  const Tensor& y = e.outp();
  if (forward) {
    // A training step's ReLU6 runs in place on a tensor autograd tracks, which PyTorch clones
    // first and copies back (three passes: its own family, "relu6"); an inference's is one pass.
    const bool tracked_relu6 = training && e.kind() == OpKind::relu6 && x.requires_grad;
    e.pass(KernelClass::elementwise, Phase::forward, y.shape.numel(), unary_flops(e.kind()), e.bytes(x), e.bytes(y), tracked_relu6 ? "relu6" : "");
    return;
  }
  if (!x.requires_grad) return;
  const double saved = e.kind() == OpKind::neg || e.kind() == OpKind::cast ? 0.0 : e.bytes(x);
  e.pass(KernelClass::elementwise, Phase::backward_data, x.shape.numel(), unary_flops(e.kind()), e.bytes(y) + saved, e.bytes(x));
}

void lower_binary(Emitter& e, bool forward) {
  const Tensor& y = e.outp();
  const double flops = e.kind() == OpKind::pow ? 10 : 1;
  if (forward) {
    e.pass(KernelClass::elementwise, Phase::forward, y.shape.numel(), flops, e.bytes(e.in(0)) + e.bytes(e.in(1)), e.bytes(y));
    return;
  }
  const bool additive = e.kind() == OpKind::add || e.kind() == OpKind::sub;
  for (std::size_t i = 0; i < 2; ++i) {
    const Tensor& x = e.in(i);
    if (!x.requires_grad) continue;
    const bool broadcast = !(x.shape == y.shape);
    // d(a+b)/da passes the gradient through untouched: no kernel unless it must be summed down.
    const bool negate = e.kind() == OpKind::sub && i == 1;
    if (!additive || negate)
      e.pass(KernelClass::elementwise, e.grad_phase(i), y.shape.numel(), flops, e.bytes(y) + (additive ? 0.0 : e.bytes(e.in(1 - i))), e.bytes(y));
    if (broadcast)
      e.pass(KernelClass::reduction, e.grad_phase(i), x.shape.numel(), static_cast<double>(y.shape.numel()) / static_cast<double>(x.shape.numel()), e.bytes(y), e.bytes(x));
  }
}

void lower_reduction(Emitter& e, bool forward) {
  const Tensor& x = e.in(0);
  const Tensor& y = e.outp();
  switch (e.kind()) {
    case OpKind::softmax:
    case OpKind::log_softmax:
      if (forward) e.pass(KernelClass::reduction, Phase::forward, y.shape.numel(), 5, e.bytes(x), e.bytes(y), "softmax");
      else if (x.requires_grad) e.pass(KernelClass::reduction, Phase::backward_data, x.shape.numel(), 4, 2.0 * e.bytes(y), e.bytes(x));
      return;
    case OpKind::reduce_mean:
      if (forward) e.pass(KernelClass::reduction, Phase::forward, y.shape.numel(), static_cast<double>(x.shape.numel()) / static_cast<double>(y.shape.numel()), e.bytes(x), e.bytes(y));
      else if (x.requires_grad) e.pass(KernelClass::elementwise, Phase::backward_data, x.shape.numel(), 1, e.bytes(y), e.bytes(x));
      return;
    case OpKind::weighted_sum: {
      const std::size_t n = e.input_count() - 1;
      const double all = e.bytes(x) * static_cast<double>(n);
      if (forward) {
        e.pass(KernelClass::elementwise, Phase::forward, y.shape.numel(), 2.0 * static_cast<double>(n), all + e.bytes(e.in(n)), e.bytes(y));
        return;
      }
      if (x.requires_grad) e.pass(KernelClass::elementwise, Phase::backward_data, x.shape.numel() * static_cast<std::int64_t>(n), 1, e.bytes(y) + e.bytes(e.in(n)), all);
      if (e.in(n).requires_grad) e.pass(KernelClass::reduction, Phase::backward_weight, static_cast<std::int64_t>(n), 2.0 * static_cast<double>(x.shape.numel()), all + e.bytes(y), e.bytes(e.in(n)));
      return;
    }
    default: DNNPERF_CHECK(false);
  }
}

void lower_dropout(Emitter& e, bool forward, bool training) {
  if (!training || e.attrs().p == 0.0) return;
  const Tensor& x = e.in(0);
  const double mask = static_cast<double>(x.shape.numel());
  if (forward) e.pass(KernelClass::elementwise, Phase::forward, x.shape.numel(), 2, e.bytes(x), e.bytes(x) + mask, "dropout");
  else if (x.requires_grad) e.pass(KernelClass::elementwise, Phase::backward_data, x.shape.numel(), 1, e.bytes(x) + mask, e.bytes(x));
}

void lower_layout(Emitter& e, bool forward) {
  const Tensor& y = e.outp();
  const Tensor& x = e.in(0);
  switch (e.kind()) {
    case OpKind::concat: {
      if (forward) {
        e.pass(KernelClass::copy, Phase::forward, y.shape.numel(), 0, e.bytes(y), e.bytes(y));
        return;
      }
      double moved = 0;
      std::int64_t elements = 0;
      for (std::size_t i = 0; i < e.input_count(); ++i)
        if (e.in(i).requires_grad) {
          moved += e.bytes(e.in(i));
          elements += e.in(i).shape.numel();
        }
      if (elements) e.pass(KernelClass::copy, Phase::backward_data, elements, 0, moved, moved);
      return;
    }
    case OpKind::split:  // forward: views of the input; backward concatenates the gradients
      if (!forward && x.requires_grad) e.pass(KernelClass::copy, Phase::backward_data, x.shape.numel(), 0, e.bytes(x), e.bytes(x));
      return;
    case OpKind::transpose:
      if (forward) e.pass(KernelClass::copy, Phase::forward, y.shape.numel(), 0, e.bytes(x), e.bytes(y));
      else if (x.requires_grad) e.pass(KernelClass::copy, Phase::backward_data, x.shape.numel(), 0, e.bytes(y), e.bytes(x));
      return;
    case OpKind::slice:
      if (forward) e.pass(KernelClass::copy, Phase::forward, y.shape.numel(), 0, e.bytes(y), e.bytes(y));
      else if (x.requires_grad) e.pass(KernelClass::elementwise, Phase::backward_data, x.shape.numel(), 0, e.bytes(y), e.bytes(x));
      return;
    default:  // flatten and reshape are views: no kernel
      return;
  }
}

void lower_embedding(Emitter& e, bool forward) {
  const Tensor& ids = e.in(0);
  const Tensor& table = e.in(1);
  const Tensor& y = e.outp();
  if (forward) {
    e.pass(KernelClass::gather, Phase::forward, y.shape.numel(), 0, e.bytes(ids) + e.bytes(y), e.bytes(y), "embedding");
    return;
  }
  if (!table.requires_grad) return;
  // A dense gradient: zero the whole table, then scatter-add the rows that were used.
  e.pass(KernelClass::elementwise, Phase::backward_weight, table.shape.numel(), 0, 0, e.bytes(table));
  e.pass(KernelClass::gather, Phase::backward_weight, y.shape.numel(), 1, e.bytes(ids) + 2.0 * e.bytes(y), e.bytes(y));
}

void lower_attention(Emitter& e, bool forward, bool training) {
  const Tensor& x = e.in(0);
  const OpAttrs& a = e.attrs();
  const bool bias = a.bias;
  const std::int64_t b = x.shape[0], s = x.shape[1], d_model = x.shape[2], h = a.heads;
  const std::int64_t kv = a.kv_heads ? a.kv_heads : h, d = a.head_dim ? a.head_dim : d_model / h;
  const std::int64_t q_width = h * d, qkv = (h + 2 * kv) * d;
  const std::int64_t tokens = b * s, scores = b * h * s * s;
  const double es = e.es();
  const double act = es * static_cast<double>(tokens * d_model);
  const double ctx = es * static_cast<double>(tokens * q_width);
  const double qkv_bytes = es * static_cast<double>(tokens * qkv);
  const double rotated = es * static_cast<double>(tokens * (h + kv) * d);
  const double score_bytes = es * static_cast<double>(scores);
  const bool dropout = training && a.p > 0.0;
  // A fused kernel visits only the blocks at or below the diagonal of a causal mask.
  const std::int64_t visited = a.causal ? (s + 1) / 2 : s;
  const Tensor& w_in = e.in(1);
  const Tensor& w_out = e.in(bias ? 3 : 2);
  if (forward) {
    e.gemm(Phase::forward, {tokens, qkv, d_model, 1, false, true});
    if (bias) e.pass(KernelClass::elementwise, Phase::forward, tokens * qkv, 1, qkv_bytes, qkv_bytes);
    e.pass(KernelClass::copy, Phase::forward, tokens * qkv, 0, qkv_bytes, qkv_bytes);  // split heads
    if (a.rotary) e.pass(KernelClass::elementwise, Phase::forward, tokens * (h + kv) * d, 6, rotated, rotated);
    if (a.flash) {
      // Q K^T and P V in one kernel, the scores kept on chip: 4 s^2 d FLOPs per head.
      e.gemm(Phase::forward, {s, visited, 2 * d, b * h, false, true}, false);
    } else {
      e.pass(KernelClass::elementwise, Phase::forward, tokens * q_width, 1, ctx, ctx);  // q / sqrt(d)
      e.gemm(Phase::forward, {s, s, d, b * h, false, true}, false);                    // q k^T
      if (a.causal) e.pass(KernelClass::elementwise, Phase::forward, scores, 1, score_bytes, score_bytes);
      e.pass(KernelClass::reduction, Phase::forward, scores, 5, score_bytes, score_bytes, "softmax");
      if (dropout) e.pass(KernelClass::elementwise, Phase::forward, scores, 2, score_bytes, score_bytes + static_cast<double>(scores), "dropout");
      e.gemm(Phase::forward, {s, d, s, b * h, false, false}, false);                   // p v
    }
    e.pass(KernelClass::copy, Phase::forward, tokens * q_width, 0, ctx, ctx);  // merge heads
    e.gemm(Phase::forward, {tokens, d_model, q_width, 1, false, true});
    if (bias) e.pass(KernelClass::elementwise, Phase::forward, tokens * d_model, 1, act, act);
    return;
  }
  if (w_out.requires_grad) {
    e.gemm(Phase::backward_weight, {d_model, q_width, tokens, 1, true, false});
    if (bias) e.pass(KernelClass::reduction, Phase::backward_weight, d_model, static_cast<double>(tokens), act, es * static_cast<double>(d_model));
  }
  const bool need_inner = x.requires_grad || w_in.requires_grad;
  if (!need_inner) return;
  e.gemm(Phase::backward_data, {tokens, q_width, d_model, 1, false, false});  // d context
  e.pass(KernelClass::copy, Phase::backward_data, tokens * q_width, 0, ctx, ctx);
  if (a.flash) {
    // FlashAttention's backward recomputes Q K^T and forms dP, dV, dQ and dK: 2.5x the forward's
    // FLOPs (Dao 2023), again in one kernel.
    e.gemm(Phase::backward_data, {s, visited, 5 * d, b * h, false, false}, false);
  } else {
    e.gemm(Phase::backward_data, {s, s, d, b * h, false, true}, false);   // d p = d ctx v^T
    e.gemm(Phase::backward_data, {s, d, s, b * h, true, false}, false);   // d v = p^T d ctx
    if (dropout) e.pass(KernelClass::elementwise, Phase::backward_data, scores, 1, score_bytes + static_cast<double>(scores), score_bytes);
    e.pass(KernelClass::reduction, Phase::backward_data, scores, 4, 2.0 * score_bytes, score_bytes);  // softmax
    if (a.causal) e.pass(KernelClass::elementwise, Phase::backward_data, scores, 1, score_bytes, score_bytes);
    e.gemm(Phase::backward_data, {s, d, s, b * h, false, false}, false);  // d q = d s k
    e.gemm(Phase::backward_data, {s, d, s, b * h, true, false}, false);   // d k = d s^T q
    e.pass(KernelClass::elementwise, Phase::backward_data, tokens * q_width, 1, ctx, ctx);
  }
  if (kv < h) {
    // Each key and value head served h / kv query heads: their gradients are summed per group.
    const double grouped = es * static_cast<double>(tokens * 2 * h * d);
    e.pass(KernelClass::reduction, Phase::backward_data, tokens * 2 * kv * d, static_cast<double>(h / kv), grouped, es * static_cast<double>(tokens * 2 * kv * d));
  }
  if (a.rotary) e.pass(KernelClass::elementwise, Phase::backward_data, tokens * (h + kv) * d, 6, rotated, rotated);
  e.pass(KernelClass::copy, Phase::backward_data, tokens * qkv, 0, qkv_bytes, qkv_bytes);
  if (x.requires_grad) e.gemm(Phase::backward_data, {tokens, d_model, qkv, 1, false, false});
  if (w_in.requires_grad) {
    e.gemm(Phase::backward_weight, {qkv, d_model, tokens, 1, true, false});
    if (bias) e.pass(KernelClass::reduction, Phase::backward_weight, qkv, static_cast<double>(tokens), qkv_bytes, es * static_cast<double>(qkv));
  }
}

// A mixture-of-experts layer as Megatron's grouped experts run it: the router's GEMM and top-k,
// the tokens permuted into per-expert buffers of their capacity, one batched GEMM per projection
// over the local experts, and the weighted un-permute. The all-to-all that carries tokens between
// expert-parallel ranks is the parallel plan's, not a kernel.
void lower_moe(Emitter& e, bool forward) {
  const Tensor& x = e.in(0);
  const OpAttrs& a = e.attrs();
  const std::int64_t width = x.shape.back(), tokens = x.shape.numel() / width;
  const std::int64_t experts = a.experts, local = a.local_experts ? a.local_experts : experts;
  const std::int64_t c = moe_expert_capacity(a, tokens), f = a.out_features, g = a.gated ? 2 : 1;
  const std::int64_t slots = local * c, routed = tokens * a.top_k;
  const double es = e.es();
  const double token_bytes = es * static_cast<double>(tokens * width);
  const double slot_bytes = es * static_cast<double>(slots * width);
  const double routed_bytes = es * static_cast<double>(routed * width);
  const double logits = es * static_cast<double>(tokens * experts);
  const double hidden = es * static_cast<double>(slots * f);
  if (forward) {
    e.gemm(Phase::forward, {tokens, experts, width, 1, false, true}, false);  // the router stays 16-bit
    e.pass(KernelClass::reduction, Phase::forward, tokens * experts, 5, logits, logits, "softmax");  // probabilities, top-k
    e.pass(KernelClass::gather, Phase::forward, slots * width, 0, routed_bytes, slot_bytes);       // permute
    e.gemm(Phase::forward, {c, g * f, width, local, false, true});
    if (a.gated) e.pass(KernelClass::elementwise, Phase::forward, slots * f, 6, 2.0 * hidden, hidden);  // silu(gate) * up
    else e.pass(KernelClass::elementwise, Phase::forward, slots * f, unary_flops(OpKind::gelu), hidden, hidden);
    e.gemm(Phase::forward, {c, width, f, local, false, true});
    e.pass(KernelClass::gather, Phase::forward, routed * width, 2, slot_bytes, token_bytes);  // weighted un-permute
    return;
  }
  e.pass(KernelClass::gather, Phase::backward_data, slots * width, 1, token_bytes, slot_bytes);
  const Tensor& w_in = e.in(2);
  const Tensor& w_out = e.in(3);
  if (w_out.requires_grad) e.gemm(Phase::backward_weight, {width, f, c, local, true, false});
  e.gemm(Phase::backward_data, {c, f, width, local, false, false});
  e.pass(KernelClass::elementwise, Phase::backward_data, slots * g * f, 6, (1.0 + g) * hidden, g * hidden);
  if (w_in.requires_grad) e.gemm(Phase::backward_weight, {g * f, width, c, local, true, false});
  e.gemm(Phase::backward_data, {c, width, g * f, local, false, false});
  e.pass(KernelClass::gather, Phase::backward_data, routed * width, 1, slot_bytes, token_bytes);  // scatter-add back
  e.pass(KernelClass::reduction, Phase::backward_data, tokens * experts, 4, 2.0 * logits, logits);  // router softmax
  if (e.in(1).requires_grad) e.gemm(Phase::backward_weight, {experts, width, tokens, 1, true, false}, false);
  if (x.requires_grad) e.gemm(Phase::backward_data, {tokens, width, experts, 1, false, false}, false);
}

void lower_loss(Emitter& e, bool forward) {
  const Tensor& logits = e.in(0);
  const Tensor& target = e.in(1);
  const std::int64_t rows = target.shape.numel();
  if (forward) {
    e.pass(KernelClass::reduction, Phase::forward, logits.shape.numel(), 5, e.bytes(logits), e.bytes(logits), "softmax");  // log_softmax
    e.pass(KernelClass::reduction, Phase::forward, 1, static_cast<double>(rows), e.bytes(target) + e.es() * static_cast<double>(rows), e.es());
    return;
  }
  if (logits.requires_grad)
    e.pass(KernelClass::elementwise, Phase::backward_data, logits.shape.numel(), 3, e.bytes(logits) + e.bytes(target), e.bytes(logits));
}

void lower_op(Emitter& e, bool forward, bool training) {
  switch (op_family(e.kind())) {
    case OpFamily::convolution: return lower_conv2d(e, forward);
    case OpFamily::gemm: return e.kind() == OpKind::linear ? lower_linear(e, forward) : lower_matmul(e, forward);
    case OpFamily::pooling: return lower_pooling(e, forward, training);
    case OpFamily::normalization: return lower_normalization(e, forward, training);
    case OpFamily::unary: return lower_unary(e, forward, training);
    case OpFamily::binary: return lower_binary(e, forward);
    case OpFamily::reduction: return lower_reduction(e, forward);
    case OpFamily::regularization: return lower_dropout(e, forward, training);
    case OpFamily::layout: return lower_layout(e, forward);
    case OpFamily::embedding: return lower_embedding(e, forward);
    case OpFamily::attention: return lower_attention(e, forward, training);
    case OpFamily::mixture: return lower_moe(e, forward);
    case OpFamily::loss: return lower_loss(e, forward);
  }
}

// A tensor read by c ops receives c gradients in backward; summing them costs c - 1 adds.
void accumulate_gradient(std::vector<Kernel>& kernels, const Tensor& t, int consumers, int op, OpKind kind,
                         std::optional<DType> compute) {
  if (!t.requires_grad || consumers < 2) return;
  Kernel k;
  k.cls = KernelClass::elementwise;
  k.phase = t.role == TensorRole::parameter ? Phase::backward_weight : Phase::backward_data;
  k.dtype = compute && is_floating(t.dtype) ? *compute : t.dtype;
  const double tensor_bytes = static_cast<double>(t.shape.numel()) * dtype_bytes(k.dtype);
  k.op_kind = kind;
  k.op = op;
  k.elements = t.shape.numel() * (consumers - 1);
  k.flops = static_cast<double>(k.elements);
  k.bytes_read = 2.0 * tensor_bytes * (consumers - 1);
  k.bytes_written = tensor_bytes * (consumers - 1);
  kernels.push_back(k);
}

void lower_update(std::vector<Kernel>& kernels, const Tensor& t, int op, OpKind kind, const LoweringOptions& o) {
  const Optimizer optimizer = o.optimizer;
  const double bytes = static_cast<double>(t.bytes());
  // Tensors touched per element: SGD reads w, g and writes w; momentum adds a velocity buffer;
  // Adam adds first and second moments (Kingma & Ba 2015, Algorithm 1).
  double reads = 2, writes = 1, flops = 2;
  std::string_view family = "sgd";
  if (optimizer == Optimizer::momentum) reads = 3, writes = 2, flops = 4, family = "momentum";
  if (optimizer == Optimizer::adam) reads = 4, writes = 3, flops = 12, family = "adam";
  // LAMB: Adam's moments and an update tensor, the norms of the weights and of the update (a read
  // of each), then the weights moved by the update scaled by their ratio (apex's FusedLAMB's two
  // stages).
  if (optimizer == Optimizer::lamb) reads = 8, writes = 4, flops = 16, family = "lamb";
  Kernel k;
  k.cls = KernelClass::elementwise;
  k.phase = Phase::update;
  k.dtype = t.dtype;
  k.op_kind = kind;
  k.op = op;
  k.elements = t.shape.numel();
  k.flops = flops * static_cast<double>(k.elements);
  k.bytes_read = reads * bytes;
  k.bytes_written = writes * bytes;
  if (!o.fused_optimizer) k.pass = family;  // fused: a plain streaming pass
  kernels.push_back(k);
  if (o.compute_dtype && *o.compute_dtype != t.dtype) {
    // Mixed precision keeps master weights in the parameter's type and refreshes the copy the
    // step computes with after each update.
    Kernel cast = k;
    cast.pass = {};
    cast.flops = 0;
    cast.bytes_read = bytes;
    cast.bytes_written = static_cast<double>(t.shape.numel()) * dtype_bytes(*o.compute_dtype);
    kernels.push_back(cast);
  }
}

// A fused optimizer's multi-tensor kernels: the updates of every parameter as one kernel, and
// the casts of mixed precision's working copies as another (each sums its kernels' work).
void fuse_updates(std::vector<Kernel>& kernels, std::size_t first_update) {
  std::vector<Kernel> fused;
  for (std::size_t i = first_update; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    const bool cast = k.flops == 0;
    auto same = std::find_if(fused.begin(), fused.end(), [&](const Kernel& f) { return (f.flops == 0) == cast && f.dtype == k.dtype; });
    if (same == fused.end()) {
      fused.push_back(k);
      continue;
    }
    same->elements += k.elements;
    same->flops += k.flops;
    same->bytes_read += k.bytes_read;
    same->bytes_written += k.bytes_written;
  }
  kernels.resize(first_update);
  kernels.insert(kernels.end(), fused.begin(), fused.end());
}

}  // namespace

std::int64_t fp8_weight_elements(const Graph& graph) {
  std::int64_t total = 0;
  for (const Op& op : graph.ops()) {
    if (op.kind != OpKind::linear && op.kind != OpKind::attention && op.kind != OpKind::moe && op.kind != OpKind::matmul) continue;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const Tensor& t = graph.tensor(op.inputs[i]);
      if (op.kind == OpKind::moe && i == 1) continue;  // the router's weights: its GEMM stays 16-bit
      if (t.role == TensorRole::parameter && t.shape.rank() >= 2) total += t.shape.numel();
    }
  }
  return total;
}

Kernel gemm_kernel(Phase phase, const GemmShape& s, DType dtype) {
  Kernel k;
  k.cls = KernelClass::gemm;
  k.phase = phase;
  k.dtype = dtype;
  k.gemm = s;
  k.elements = s.batch * s.m * s.n;
  const double es = dtype_bytes(dtype);
  k.flops = 2.0 * static_cast<double>(s.batch) * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  k.bytes_read = es * static_cast<double>(s.batch) * static_cast<double>(s.m * s.k + s.k * s.n);
  k.bytes_written = es * static_cast<double>(k.elements);
  return k;
}

Kernel conv_kernel(Phase phase, const ConvShape& c, DType dtype) {
  Kernel k;
  k.cls = KernelClass::conv;
  k.phase = phase;
  k.dtype = dtype;
  k.conv = c;
  const double es = dtype_bytes(dtype);
  const double x = static_cast<double>(c.n * c.c * c.h * c.w);
  const double w = static_cast<double>(c.k * (c.c / c.groups) * c.r * c.s);
  const double y = static_cast<double>(c.n * c.k * c.p * c.q);
  k.flops = 2.0 * y * static_cast<double>((c.c / c.groups) * c.r * c.s);
  switch (phase) {
    case Phase::forward: k.bytes_read = es * (x + w); k.bytes_written = es * y; k.elements = c.n * c.k * c.p * c.q; break;
    case Phase::backward_data: k.bytes_read = es * (y + w); k.bytes_written = es * x; k.elements = c.n * c.c * c.h * c.w; break;
    default: k.bytes_read = es * (x + y); k.bytes_written = es * w; k.elements = c.k * (c.c / c.groups) * c.r * c.s; break;
  }
  return k;
}

void lower(const Graph& graph, const LoweringOptions& options, std::vector<Kernel>& kernels) {
  const int n = static_cast<int>(graph.ops().size());
  for (int i = 0; i < n; ++i) {
    Emitter e(kernels, graph, i, options);
    lower_op(e, /*forward=*/true, options.training);
  }
  if (!options.training) return;

  const std::vector<int> consumers = graph.consumer_counts();
  std::vector<int> first_consumer(graph.tensors().size(), -1);
  for (int i = n - 1; i >= 0; --i)
    for (int t : graph.op(i).inputs) first_consumer[static_cast<std::size_t>(t)] = i;

  for (int i = n - 1; i >= 0; --i) {
    const Op& op = graph.op(i);
    for (int t : op.outputs)
      accumulate_gradient(kernels, graph.tensor(t), consumers[static_cast<std::size_t>(t)], i, op.kind, options.compute_dtype);
    const bool any_grad = std::any_of(op.inputs.begin(), op.inputs.end(), [&](int t) { return graph.tensor(t).requires_grad; });
    if (!any_grad) continue;
    Emitter e(kernels, graph, i, options);
    lower_op(e, /*forward=*/false, true);
  }
  for (std::size_t t = 0; t < graph.tensors().size(); ++t) {
    const Tensor& tensor = graph.tensor(static_cast<int>(t));
    const int op = first_consumer[t];
    if (tensor.role != TensorRole::parameter || op < 0) continue;
    accumulate_gradient(kernels, tensor, consumers[t], op, graph.op(op).kind, std::nullopt);
  }
  const std::size_t first_update = kernels.size();
  for (std::size_t t = 0; t < graph.tensors().size(); ++t) {
    const Tensor& tensor = graph.tensor(static_cast<int>(t));
    const int op = first_consumer[t];
    if (tensor.role != TensorRole::parameter || op < 0) continue;
    lower_update(kernels, tensor, op, graph.op(op).kind, options);
  }
  if (options.fused_optimizer) fuse_updates(kernels, first_update);
  double step_bytes = 0;
  for (std::size_t i = first_update; i < kernels.size(); ++i) step_bytes += kernels[i].bytes_read + kernels[i].bytes_written;
  for (std::size_t i = first_update; i < kernels.size(); ++i) kernels[i].footprint_bytes = step_bytes;
}

std::vector<Kernel> lower(const Graph& graph, const LoweringOptions& options) {
  std::vector<Kernel> kernels;
  kernels.reserve(graph.ops().size() * (options.training ? 5 : 2));
  lower(graph, options, kernels);
  return kernels;
}

}  // namespace dnnperf
