#include "core/graph/shape_inference.h"

#include <numeric>
#include <string>

#include "core/common/error.h"

namespace dnnperf {
namespace {

[[noreturn]] void fail(const std::string& message) { throw InputError(message); }

void expect_inputs(const Op& op, std::span<const Tensor* const> in, std::size_t min, std::size_t max) {
  if (in.size() < min || in.size() > max) {
    fail(std::string(op_kind_name(op.kind)) + " takes " +
         (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
         " inputs, got " + std::to_string(in.size()));
  }
}

void expect_rank(const Tensor& t, int rank, const char* what) {
  if (t.shape.rank() != rank)
    fail(std::string(what) + " '" + t.name + "' must have rank " + std::to_string(rank) +
         ", has shape " + t.shape.to_string());
}

void expect_min_rank(const Tensor& t, int rank, const char* what) {
  if (t.shape.rank() < rank)
    fail(std::string(what) + " '" + t.name + "' must have rank >= " + std::to_string(rank) +
         ", has shape " + t.shape.to_string());
}

void expect_shape(const Tensor& t, const TensorShape& shape, const char* what) {
  if (!(t.shape == shape))
    fail(std::string(what) + " '" + t.name + "' must have shape " + shape.to_string() + ", has " +
         t.shape.to_string());
}

void expect_positive(std::int64_t v, const char* what) {
  if (v <= 0) fail(std::string(what) + " must be positive, is " + std::to_string(v));
  // Window arithmetic adds and multiplies attributes: bounded, it cannot overflow.
  if (v > kMaxTensorElements) fail(std::string(what) + " is " + std::to_string(v) + ", past the most a size may be (2^48)");
}

TensorShape spatial_output(const Op& op, const TensorShape& x, std::int64_t channels,
                           std::int64_t kh, std::int64_t kw) {
  const OpAttrs& a = op.attrs;
  for (int i = 0; i < 2; ++i) {
    expect_positive(a.stride[static_cast<std::size_t>(i)], "stride");
    expect_positive(a.dilation[static_cast<std::size_t>(i)], "dilation");
    if (a.pad_begin[static_cast<std::size_t>(i)] < 0 || a.pad_end[static_cast<std::size_t>(i)] < 0)
      fail("padding must not be negative");
    if (a.pad_begin[static_cast<std::size_t>(i)] > kMaxTensorElements || a.pad_end[static_cast<std::size_t>(i)] > kMaxTensorElements)
      fail("padding is past the most a size may be (2^48)");
  }
  expect_positive(kh, "kernel height");
  expect_positive(kw, "kernel width");
  const std::int64_t oh = window_output_size(x[2], kh, a.stride[0], a.pad_begin[0], a.pad_end[0],
                                             a.dilation[0], a.ceil_mode);
  const std::int64_t ow = window_output_size(x[3], kw, a.stride[1], a.pad_begin[1], a.pad_end[1],
                                             a.dilation[1], a.ceil_mode);
  if (oh <= 0 || ow <= 0)
    fail("a " + std::to_string(kh) + "x" + std::to_string(kw) + " window with stride " +
         std::to_string(a.stride[0]) + " does not fit an input of " + x.to_string());
  return TensorShape{x[0], channels, oh, ow};
}

void infer_conv2d(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  expect_inputs(op, in, 2, 3);
  const Tensor& x = *in[0];
  const Tensor& w = *in[1];
  expect_rank(x, 4, "conv2d input");
  expect_rank(w, 4, "conv2d weight");
  const std::int64_t groups = op.attrs.groups;
  expect_positive(groups, "groups");
  if (x.shape[1] % groups != 0 || w.shape[0] % groups != 0)
    fail("groups=" + std::to_string(groups) + " must divide input channels " +
         std::to_string(x.shape[1]) + " and output channels " + std::to_string(w.shape[0]));
  if (x.shape[1] / groups != w.shape[1])
    fail("input has " + std::to_string(x.shape[1]) + " channels but the weight expects " +
         std::to_string(w.shape[1] * groups) + " (" + std::to_string(w.shape[1]) + " per group x " +
         std::to_string(groups) + " groups)");
  if (in.size() == 3) expect_shape(*in[2], TensorShape{w.shape[0]}, "conv2d bias");
  out.push_back({spatial_output(op, x.shape, w.shape[0], w.shape[2], w.shape[3]), x.dtype});
}

void infer_linear(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  expect_inputs(op, in, 2, 3);
  const Tensor& x = *in[0];
  const Tensor& w = *in[1];
  expect_min_rank(x, 1, "linear input");
  expect_rank(w, 2, "linear weight");
  if (x.shape.back() != w.shape[1])
    fail("input has " + std::to_string(x.shape.back()) + " features but the weight expects " +
         std::to_string(w.shape[1]));
  if (in.size() == 3) expect_shape(*in[2], TensorShape{w.shape[0]}, "linear bias");
  TensorShape y = x.shape;
  y[y.rank() - 1] = w.shape[0];
  out.push_back({y, x.dtype});
}

void infer_matmul(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  expect_inputs(op, in, 2, 2);
  const TensorShape& a = in[0]->shape;
  const TensorShape& b = in[1]->shape;
  expect_min_rank(*in[0], 2, "matmul operand");
  expect_min_rank(*in[1], 2, "matmul operand");
  if (a.back() != b.at(-2))
    fail("inner dimensions differ: " + a.to_string() + " times " + b.to_string());
  const TensorShape batch = broadcast_shapes(TensorShape(a.dims().first(static_cast<std::size_t>(a.rank() - 2))),
                                             TensorShape(b.dims().first(static_cast<std::size_t>(b.rank() - 2))));
  TensorShape y = batch;
  y.push_back(a.at(-2));
  y.push_back(b.back());
  out.push_back({y, in[0]->dtype});
}

void infer_pooling(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  expect_inputs(op, in, 1, 1);
  const Tensor& x = *in[0];
  expect_rank(x, 4, "pooling input");
  if (op.kind == OpKind::adaptive_avg_pool2d || op.kind == OpKind::adaptive_max_pool2d) {
    expect_positive(op.attrs.output_size[0], "output height");
    expect_positive(op.attrs.output_size[1], "output width");
    out.push_back({TensorShape{x.shape[0], x.shape[1], op.attrs.output_size[0], op.attrs.output_size[1]}, x.dtype});
    return;
  }
  out.push_back({spatial_output(op, x.shape, x.shape[1], op.attrs.kernel[0], op.attrs.kernel[1]), x.dtype});
}

void infer_normalization(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  const Tensor& x = *in[0];
  if (op.kind == OpKind::batch_norm) {
    expect_inputs(op, in, 5, 5);
    expect_min_rank(x, 2, "batch_norm input");
    for (std::size_t i = 1; i < 5; ++i) expect_shape(*in[i], TensorShape{x.shape[1]}, "batch_norm parameter");
  } else {
    expect_inputs(op, in, 1, 3);
    const std::int64_t k = op.attrs.normalized_dims;
    if (k < 1 || k > x.shape.rank())
      fail(std::string(op_kind_name(op.kind)) + " normalized_dims=" + std::to_string(k) + " does not fit an input of " + x.shape.to_string());
    const TensorShape normalized(x.shape.dims().last(static_cast<std::size_t>(k)));
    for (std::size_t i = 1; i < in.size(); ++i) expect_shape(*in[i], normalized, "normalization parameter");
  }
  if (op.attrs.eps < 0) fail("eps must not be negative");
  out.push_back({x.shape, x.dtype});
}

void infer_reduction(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  const Tensor& x = *in[0];
  switch (op.kind) {
    case OpKind::softmax:
    case OpKind::log_softmax:
      expect_inputs(op, in, 1, 1);
      x.shape.normalize_axis(static_cast<int>(op.attrs.axis));
      out.push_back({x.shape, x.dtype});
      return;
    case OpKind::reduce_mean: {
      expect_inputs(op, in, 1, 1);
      std::vector<bool> reduced(static_cast<std::size_t>(x.shape.rank()), op.attrs.axes.empty());
      for (std::int64_t axis : op.attrs.axes)
        reduced[static_cast<std::size_t>(x.shape.normalize_axis(static_cast<int>(axis)))] = true;
      TensorShape y;
      for (int i = 0; i < x.shape.rank(); ++i) {
        if (!reduced[static_cast<std::size_t>(i)]) y.push_back(x.shape[i]);
        else if (op.attrs.keepdims) y.push_back(1);
      }
      out.push_back({y, x.dtype});
      return;
    }
    case OpKind::weighted_sum: {
      if (in.size() < 2) fail("weighted_sum takes at least one tensor and a weight vector");
      const std::size_t n = in.size() - 1;
      for (std::size_t i = 1; i < n; ++i) expect_shape(*in[i], x.shape, "weighted_sum operand");
      expect_shape(*in[n], TensorShape{static_cast<std::int64_t>(n)}, "weighted_sum weights");
      out.push_back({x.shape, x.dtype});
      return;
    }
    default: DNNPERF_CHECK(false);
  }
}

TensorShape reshape_target(const TensorShape& x, const std::vector<std::int64_t>& target) {
  TensorShape y;
  int inferred = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    std::int64_t d = target[i];
    if (d == 0) {
      if (static_cast<int>(i) >= x.rank()) fail("reshape dimension 0 at position " + std::to_string(i) + " has no input dimension to copy");
      d = x[static_cast<int>(i)];
    }
    if (d == -1) {
      if (inferred >= 0) fail("reshape target has more than one -1");
      inferred = static_cast<int>(i);
      y.push_back(1);
      continue;
    }
    if (d < -1) fail("reshape dimension " + std::to_string(d) + " is negative");
    if (d > 0 && known > kMaxTensorElements / d) fail("reshape target " + std::to_string(d) + " at position " + std::to_string(i) + " makes a tensor of more than 2^48 elements");
    known *= d;
    y.push_back(d);
  }
  if (inferred >= 0) {
    if (known == 0 || x.numel() % known != 0)
      fail("cannot reshape " + x.to_string() + " into " + y.to_string() + " with an inferred dimension");
    y[inferred] = x.numel() / known;
  }
  if (y.numel() != x.numel())
    fail("cannot reshape " + x.to_string() + " (" + std::to_string(x.numel()) + " elements) into " +
         y.to_string() + " (" + std::to_string(y.numel()) + " elements)");
  return y;
}

void infer_layout(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  const Tensor& x = *in[0];
  const OpAttrs& a = op.attrs;
  switch (op.kind) {
    case OpKind::concat: {
      const int axis = x.shape.normalize_axis(static_cast<int>(a.axis));
      TensorShape y = x.shape;
      for (std::size_t i = 1; i < in.size(); ++i) {
        const TensorShape& s = in[i]->shape;
        bool ok = s.rank() == y.rank();
        for (int d = 0; ok && d < y.rank(); ++d) ok = d == axis || s[d] == y[d];
        if (!ok) fail("concat along axis " + std::to_string(axis) + " of " + x.shape.to_string() + " and " + s.to_string());
        y[axis] += s[axis];
      }
      out.push_back({y, x.dtype});
      return;
    }
    case OpKind::split: {
      expect_inputs(op, in, 1, 1);
      const int axis = x.shape.normalize_axis(static_cast<int>(a.axis));
      std::int64_t total = 0;
      for (std::int64_t s : a.split_sizes) {
        expect_positive(s, "split size");
        total += s;
      }
      if (a.split_sizes.empty() || total != x.shape[axis])
        fail("split sizes sum to " + std::to_string(total) + " but axis " + std::to_string(axis) +
             " of " + x.shape.to_string() + " has " + std::to_string(x.shape[axis]));
      for (std::int64_t s : a.split_sizes) {
        TensorShape y = x.shape;
        y[axis] = s;
        out.push_back({y, x.dtype});
      }
      return;
    }
    case OpKind::flatten: {
      expect_inputs(op, in, 1, 1);
      const int axis = a.axis == x.shape.rank() ? x.shape.rank() : x.shape.normalize_axis(static_cast<int>(a.axis));
      out.push_back({TensorShape{x.shape.product(0, axis), x.shape.product(axis, x.shape.rank())}, x.dtype});
      return;
    }
    case OpKind::reshape:
      expect_inputs(op, in, 1, 1);
      out.push_back({reshape_target(x.shape, a.shape), x.dtype});
      return;
    case OpKind::transpose: {
      expect_inputs(op, in, 1, 1);
      if (static_cast<int>(a.perm.size()) != x.shape.rank()) fail("transpose perm has " + std::to_string(a.perm.size()) + " entries for a rank-" + std::to_string(x.shape.rank()) + " input");
      std::vector<bool> seen(a.perm.size(), false);
      TensorShape y;
      for (std::int64_t p : a.perm) {
        const int axis = x.shape.normalize_axis(static_cast<int>(p));
        if (seen[static_cast<std::size_t>(axis)]) fail("transpose perm repeats axis " + std::to_string(axis));
        seen[static_cast<std::size_t>(axis)] = true;
        y.push_back(x.shape[axis]);
      }
      out.push_back({y, x.dtype});
      return;
    }
    case OpKind::slice: {
      expect_inputs(op, in, 1, 1);
      const int axis = x.shape.normalize_axis(static_cast<int>(a.axis));
      const std::int64_t n = x.shape[axis];
      if (a.step <= 0) fail("slice step must be positive, is " + std::to_string(a.step));
      auto clamp = [n](std::int64_t v) { return std::clamp(v < 0 ? v + n : v, std::int64_t{0}, n); };
      const std::int64_t begin = clamp(a.start), end = clamp(a.end);
      TensorShape y = x.shape;
      y[axis] = end > begin ? (end - begin + a.step - 1) / a.step : 0;
      out.push_back({y, x.dtype});
      return;
    }
    default: DNNPERF_CHECK(false);
  }
}

void infer_embedding(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  expect_inputs(op, in, 2, 2);
  const Tensor& ids = *in[0];
  const Tensor& w = *in[1];
  if (is_floating(ids.dtype)) fail("embedding indices '" + ids.name + "' must be integers, are " + std::string(dtype_name(ids.dtype)));
  expect_rank(w, 2, "embedding table");
  TensorShape y = ids.shape;
  y.push_back(w.shape[1]);
  out.push_back({y, w.dtype});
}

void infer_attention(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  const bool bias = op.attrs.bias;
  expect_inputs(op, in, bias ? 5 : 3, bias ? 5 : 3);
  const Tensor& x = *in[0];
  expect_rank(x, 3, "attention input (batch, sequence, embedding)");
  const std::int64_t e = x.shape[2];
  expect_positive(op.attrs.heads, "heads");
  if (op.attrs.kv_heads < 0) fail("kv_heads must not be negative, is " + std::to_string(op.attrs.kv_heads));
  if (op.attrs.head_dim < 0) fail("head_dim must not be negative, is " + std::to_string(op.attrs.head_dim));
  if (!op.attrs.head_dim && e % op.attrs.heads != 0)
    fail("embedding width " + std::to_string(e) + " is not divisible by " + std::to_string(op.attrs.heads) + " heads");
  const std::int64_t kv = op.attrs.kv_heads ? op.attrs.kv_heads : op.attrs.heads;
  if (op.attrs.heads % kv != 0)
    fail("kv_heads=" + std::to_string(kv) + " does not divide heads=" + std::to_string(op.attrs.heads));
  const std::int64_t d = op.attrs.head_dim ? op.attrs.head_dim : e / op.attrs.heads;
  const std::int64_t qkv = (op.attrs.heads + 2 * kv) * d;
  expect_shape(*in[1], TensorShape{qkv, e}, "attention input projection");
  expect_shape(*in[bias ? 3 : 2], TensorShape{e, op.attrs.heads * d}, "attention output projection");
  if (bias) {
    expect_shape(*in[2], TensorShape{qkv}, "attention input bias");
    expect_shape(*in[4], TensorShape{e}, "attention output bias");
  }
  if (op.attrs.p < 0 || op.attrs.p >= 1) fail("attention dropout must be in [0, 1)");
  // The scores (batch x heads x sequence x sequence) are a tensor of the step, if never a graph's.
  std::optional<std::int64_t> scores = bounded_product(x.shape[0], op.attrs.heads);
  for (int i = 0; i < 2 && scores; ++i) scores = bounded_product(*scores, x.shape[1]);
  if (!scores)
    fail("the attention scores (" + std::to_string(x.shape[0]) + " x " + std::to_string(op.attrs.heads) + " heads x " +
         std::to_string(x.shape[1]) + "^2) would hold more than 2^48 elements, the most one tensor may hold");
  out.push_back({x.shape, x.dtype});
}

void infer_moe(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  expect_inputs(op, in, 4, 4);
  const Tensor& x = *in[0];
  expect_min_rank(x, 2, "moe input (tokens..., embedding)");
  const std::int64_t e = x.shape.back(), experts = op.attrs.experts, f = op.attrs.out_features;
  expect_positive(experts, "experts");
  expect_positive(f, "out_features (expert width)");
  if (op.attrs.top_k < 1 || op.attrs.top_k > experts)
    fail("top_k=" + std::to_string(op.attrs.top_k) + " must be in [1, experts=" + std::to_string(experts) + "]");
  if (!(op.attrs.capacity_factor > 0) || op.attrs.capacity_factor > 64)
    fail("capacity_factor must be in (0, 64], is " + std::to_string(op.attrs.capacity_factor));
  const std::int64_t local = op.attrs.local_experts ? op.attrs.local_experts : experts;
  if (local < 1 || local > experts || experts % local != 0)
    fail("local_experts=" + std::to_string(op.attrs.local_experts) + " must divide experts=" + std::to_string(experts));
  expect_shape(*in[1], TensorShape{experts, e}, "moe router");
  expect_shape(*in[2], TensorShape{local, (op.attrs.gated ? 2 : 1) * f, e}, "moe expert input projections");
  expect_shape(*in[3], TensorShape{local, e, f}, "moe expert output projections");
  out.push_back({x.shape, x.dtype});
}

void infer_loss(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  expect_inputs(op, in, 2, 2);
  const Tensor& logits = *in[0];
  const Tensor& target = *in[1];
  expect_min_rank(logits, 2, "cross_entropy logits");
  if (is_floating(target.dtype)) fail("cross_entropy target '" + target.name + "' must hold integer class indices");
  const TensorShape expected(logits.shape.dims().first(static_cast<std::size_t>(logits.shape.rank() - 1)));
  expect_shape(target, expected, "cross_entropy target");
  out.push_back({TensorShape{}, logits.dtype});
}

}  // namespace

std::int64_t window_output_size(std::int64_t size, std::int64_t kernel, std::int64_t stride,
                                std::int64_t pad_begin, std::int64_t pad_end,
                                std::int64_t dilation, bool ceil_mode) {
  const std::int64_t span = size + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  std::int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // PyTorch: the last window must start inside the input or its leading padding.
  if (ceil_mode && (out - 1) * stride >= size + pad_begin) --out;
  return out;
}

TensorShape broadcast_shapes(const TensorShape& a, const TensorShape& b) {
  const int rank = std::max(a.rank(), b.rank());
  TensorShape y;
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
    const std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1)
      fail("shapes " + a.to_string() + " and " + b.to_string() + " do not broadcast");
    y.push_back(da == 1 ? db : da);
  }
  return y;
}

void infer_output_shapes(const Op& op, std::span<const Tensor* const> in, std::vector<OutputSpec>& out) {
  out.clear();
  if (in.empty()) fail(std::string(op_kind_name(op.kind)) + " has no inputs");
  switch (op_family(op.kind)) {
    case OpFamily::convolution: return infer_conv2d(op, in, out);
    case OpFamily::gemm: return op.kind == OpKind::linear ? infer_linear(op, in, out) : infer_matmul(op, in, out);
    case OpFamily::pooling: return infer_pooling(op, in, out);
    case OpFamily::normalization: return infer_normalization(op, in, out);
    case OpFamily::unary:
      expect_inputs(op, in, 1, 1);
      out.push_back({in[0]->shape, op.kind == OpKind::cast ? op.attrs.to : in[0]->dtype});
      return;
    case OpFamily::binary:
      expect_inputs(op, in, 2, 2);
      out.push_back({broadcast_shapes(in[0]->shape, in[1]->shape),
                     is_floating(in[0]->dtype) ? in[0]->dtype : in[1]->dtype});
      return;
    case OpFamily::reduction: return infer_reduction(op, in, out);
    case OpFamily::regularization:
      expect_inputs(op, in, 1, 1);
      if (op.attrs.p < 0 || op.attrs.p >= 1) fail("dropout probability must be in [0, 1), is " + std::to_string(op.attrs.p));
      out.push_back({in[0]->shape, in[0]->dtype});
      return;
    case OpFamily::layout: return infer_layout(op, in, out);
    case OpFamily::embedding: return infer_embedding(op, in, out);
    case OpFamily::attention: return infer_attention(op, in, out);
    case OpFamily::mixture: return infer_moe(op, in, out);
    case OpFamily::loss: return infer_loss(op, in, out);
  }
}

}  // namespace dnnperf
