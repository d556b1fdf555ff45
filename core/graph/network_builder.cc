#include "core/graph/network_builder.h"

#include "core/common/error.h"

namespace dnnperf {

NetworkBuilder::NetworkBuilder(std::string name, DType dtype) : graph_(std::move(name)), dtype_(dtype) {}

NetworkBuilder::Scope::Scope(NetworkBuilder& b, const std::string& prefix)
    : builder_(b), previous_size_(b.prefix_.size()) {
  b.prefix_ += prefix;
  b.prefix_ += '.';
}

NetworkBuilder::Scope::~Scope() { builder_.prefix_.resize(previous_size_); }

std::string NetworkBuilder::qualified(const std::string& name) const { return prefix_ + name; }

int NetworkBuilder::parameter(const std::string& layer, const char* suffix, TensorShape shape, TensorRole role) {
  return graph_.add_tensor(layer + suffix, shape, dtype_, role);
}

// Parameter rules: which tensors each kind owns, with PyTorch's shapes, so that parameter counts
// equal torch.nn's. The order they are appended in is the input order op.h documents.
std::span<const int> NetworkBuilder::add_layer(OpKind kind, const OpAttrs& a, std::vector<int> inputs,
                                               const std::string& name) {
  const std::string full = qualified(name);
  if (inputs.empty()) throw InputError("layer '" + full + "' (" + std::string(op_kind_name(kind)) + ") has no inputs");
  for (int t : inputs)
    if (t < 0 || t >= static_cast<int>(graph_.tensors().size()))
      throw InputError("layer '" + full + "': input tensor index " + std::to_string(t) + " does not exist");
  const TensorShape x = graph_.tensor(inputs[0]).shape;
  const auto need_rank = [&](int rank) {
    if (x.rank() < rank)
      throw InputError("op '" + full + "' (" + std::string(op_kind_name(kind)) + "): input has shape " +
                       x.to_string() + ", needs rank >= " + std::to_string(rank));
  };
  const auto positive = [&](std::int64_t v, const char* field) {
    if (v <= 0)
      throw InputError("op '" + full + "' (" + std::string(op_kind_name(kind)) + "): " + field +
                       " must be positive, is " + std::to_string(v));
  };
  switch (kind) {
    case OpKind::conv2d:
      need_rank(2);
      positive(a.out_features, "out_channels");
      positive(a.groups, "groups");
      if (x[1] % a.groups != 0)
        throw InputError("op '" + full + "' (conv2d): groups=" + std::to_string(a.groups) +
                         " does not divide the " + std::to_string(x[1]) + " input channels");
      inputs.push_back(parameter(full, ".weight", {a.out_features, x[1] / a.groups, a.kernel[0], a.kernel[1]}));
      if (a.bias) inputs.push_back(parameter(full, ".bias", {a.out_features}));
      break;
    case OpKind::linear:
      need_rank(1);
      positive(a.out_features, "out_features");
      inputs.push_back(parameter(full, ".weight", {a.out_features, x.back()}));
      if (a.bias) inputs.push_back(parameter(full, ".bias", {a.out_features}));
      break;
    case OpKind::batch_norm:
      need_rank(2);
      inputs.push_back(parameter(full, ".weight", {x[1]}));
      inputs.push_back(parameter(full, ".bias", {x[1]}));
      inputs.push_back(parameter(full, ".running_mean", {x[1]}, TensorRole::buffer));
      inputs.push_back(parameter(full, ".running_var", {x[1]}, TensorRole::buffer));
      break;
    case OpKind::layer_norm:
    case OpKind::rms_norm: {
      need_rank(static_cast<int>(a.normalized_dims));
      if (a.normalized_dims < 1) positive(a.normalized_dims, "normalized_dims");
      const TensorShape normalized(x.dims().last(static_cast<std::size_t>(a.normalized_dims)));
      inputs.push_back(parameter(full, ".weight", normalized));
      if (a.bias && kind == OpKind::layer_norm) inputs.push_back(parameter(full, ".bias", normalized));
      break;
    }
    case OpKind::embedding:
      positive(a.num_embeddings, "num_embeddings");
      positive(a.embedding_dim, "embedding_dim");
      inputs.push_back(parameter(full, ".weight", {a.num_embeddings, a.embedding_dim}));
      break;
    case OpKind::attention: {
      need_rank(1);
      positive(a.heads, "heads");
      const std::int64_t e = x.back(), kv = a.kv_heads ? a.kv_heads : a.heads;
      if (a.kv_heads < 0) positive(a.kv_heads, "kv_heads");
      if (a.head_dim < 0) positive(a.head_dim, "head_dim");
      if (!a.head_dim && e % a.heads != 0)
        throw InputError("op '" + full + "' (attention): width " + std::to_string(e) + " is not divisible by " +
                         std::to_string(a.heads) + " heads");
      if (a.heads % kv != 0)
        throw InputError("op '" + full + "' (attention): kv_heads=" + std::to_string(kv) + " does not divide heads=" +
                         std::to_string(a.heads));
      const std::int64_t d = a.head_dim ? a.head_dim : e / a.heads;
      // Queries, then keys and values: one fused projection, as Megatron and PyTorch hold it.
      const std::int64_t qkv = (a.heads + 2 * kv) * d;
      inputs.push_back(parameter(full, ".in_proj_weight", {qkv, e}));
      if (a.bias) inputs.push_back(parameter(full, ".in_proj_bias", {qkv}));
      inputs.push_back(parameter(full, ".out_proj.weight", {e, a.heads * d}));
      if (a.bias) inputs.push_back(parameter(full, ".out_proj.bias", {e}));
      break;
    }
    case OpKind::moe: {
      need_rank(2);
      positive(a.experts, "experts");
      positive(a.out_features, "out_features (the expert width)");
      positive(a.top_k, "top_k");
      if (a.top_k > a.experts)
        throw InputError("op '" + full + "' (moe): top_k=" + std::to_string(a.top_k) + " exceeds experts=" + std::to_string(a.experts));
      if (a.local_experts < 0 || a.local_experts > a.experts || (a.local_experts && a.experts % a.local_experts != 0))
        throw InputError("op '" + full + "' (moe): local_experts=" + std::to_string(a.local_experts) + " must divide experts=" +
                         std::to_string(a.experts));
      const std::int64_t e = x.back(), local = a.local_experts ? a.local_experts : a.experts;
      inputs.push_back(parameter(full, ".router.weight", {a.experts, e}));
      inputs.push_back(parameter(full, ".experts.w_in", {local, (a.gated ? 2 : 1) * a.out_features, e}));
      inputs.push_back(parameter(full, ".experts.w_out", {local, e, a.out_features}));
      break;
    }
    case OpKind::weighted_sum:
      inputs.push_back(parameter(full, ".weight", {static_cast<std::int64_t>(inputs.size())}));
      break;
    default:
      break;
  }
  return graph_.add_op(kind, full, a, std::move(inputs));
}

int NetworkBuilder::activation_input(const std::string& name, TensorShape shape) {
  const int t = input(name, std::move(shape), dtype_);
  graph_.mark_requires_grad(t);
  return t;
}

int NetworkBuilder::input(const std::string& name, TensorShape shape, DType dtype) {
  return graph_.add_tensor(qualified(name), shape, dtype, TensorRole::input);
}

int NetworkBuilder::conv2d(int x, const ConvSpec& s, const std::string& name) {
  OpAttrs a;
  a.out_features = s.out;
  a.kernel = s.kernel;
  a.stride = s.stride;
  a.pad_begin = s.padding;
  a.pad_end = s.padding;
  a.groups = s.groups;
  a.bias = s.bias;
  a.dilation = s.dilation;
  return add_layer1(OpKind::conv2d, a, {x}, name);
}

int NetworkBuilder::linear(int x, std::int64_t out, const std::string& name, bool bias) {
  OpAttrs a;
  a.out_features = out;
  a.bias = bias;
  return add_layer1(OpKind::linear, a, {x}, name);
}

int NetworkBuilder::linear_with_weight(int x, int weight, const std::string& name) {
  OpAttrs a;
  a.bias = false;
  a.out_features = graph_.tensor(weight).shape[0];
  return graph_.add_op1(OpKind::linear, qualified(name), a, {x, weight});
}

int NetworkBuilder::matmul(int a, int b, const std::string& name) { return add_layer1(OpKind::matmul, {}, {a, b}, name); }

int NetworkBuilder::batch_norm(int x, const std::string& name, double eps) {
  OpAttrs a;
  a.eps = eps;
  return add_layer1(OpKind::batch_norm, a, {x}, name);
}

int NetworkBuilder::layer_norm(int x, const std::string& name, double eps, bool bias) {
  OpAttrs a;
  a.eps = eps;
  a.bias = bias;
  return add_layer1(OpKind::layer_norm, a, {x}, name);
}

int NetworkBuilder::unary(OpKind kind, int x, const std::string& name) { return add_layer1(kind, {}, {x}, name); }

int NetworkBuilder::binary(OpKind kind, int a, int b, const std::string& name) { return add_layer1(kind, {}, {a, b}, name); }

int NetworkBuilder::max_pool(int x, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                             const std::string& name, bool ceil_mode) {
  OpAttrs a;
  a.kernel = {kernel, kernel};
  a.stride = {stride, stride};
  a.pad_begin = a.pad_end = {padding, padding};
  a.ceil_mode = ceil_mode;
  return add_layer1(OpKind::max_pool2d, a, {x}, name);
}

int NetworkBuilder::avg_pool(int x, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                             const std::string& name, bool count_include_pad) {
  OpAttrs a;
  a.kernel = {kernel, kernel};
  a.stride = {stride, stride};
  a.pad_begin = a.pad_end = {padding, padding};
  a.count_include_pad = count_include_pad;
  return add_layer1(OpKind::avg_pool2d, a, {x}, name);
}

int NetworkBuilder::adaptive_avg_pool(int x, std::int64_t out_h, std::int64_t out_w, const std::string& name) {
  OpAttrs a;
  a.output_size = {out_h, out_w};
  return add_layer1(OpKind::adaptive_avg_pool2d, a, {x}, name);
}

int NetworkBuilder::dropout(int x, double p, const std::string& name) {
  OpAttrs a;
  a.p = p;
  return add_layer1(OpKind::dropout, a, {x}, name);
}

int NetworkBuilder::softmax(int x, std::int64_t axis, const std::string& name) {
  OpAttrs a;
  a.axis = axis;
  return add_layer1(OpKind::softmax, a, {x}, name);
}

int NetworkBuilder::concat(const std::vector<int>& xs, std::int64_t axis, const std::string& name) {
  OpAttrs a;
  a.axis = axis;
  return add_layer1(OpKind::concat, a, xs, name);
}

std::vector<int> NetworkBuilder::split(int x, std::vector<std::int64_t> sizes, std::int64_t axis, const std::string& name) {
  OpAttrs a;
  a.axis = axis;
  a.split_sizes = std::move(sizes);
  const auto out = add_layer(OpKind::split, a, {x}, name);
  return {out.begin(), out.end()};
}

int NetworkBuilder::flatten(int x, std::int64_t axis, const std::string& name) {
  OpAttrs a;
  a.axis = axis;
  return add_layer1(OpKind::flatten, a, {x}, name);
}

int NetworkBuilder::reshape(int x, std::vector<std::int64_t> shape, const std::string& name) {
  OpAttrs a;
  a.shape = std::move(shape);
  return add_layer1(OpKind::reshape, a, {x}, name);
}

int NetworkBuilder::transpose(int x, std::vector<std::int64_t> perm, const std::string& name) {
  OpAttrs a;
  a.perm = std::move(perm);
  return add_layer1(OpKind::transpose, a, {x}, name);
}

int NetworkBuilder::reduce_mean(int x, std::vector<std::int64_t> axes, bool keepdims, const std::string& name) {
  OpAttrs a;
  a.axes = std::move(axes);
  a.keepdims = keepdims;
  return add_layer1(OpKind::reduce_mean, a, {x}, name);
}

int NetworkBuilder::weighted_sum(const std::vector<int>& xs, const std::string& name) {
  return add_layer1(OpKind::weighted_sum, {}, xs, name);
}

int NetworkBuilder::embedding(int ids, std::int64_t num_embeddings, std::int64_t dim, const std::string& name) {
  OpAttrs a;
  a.num_embeddings = num_embeddings;
  a.embedding_dim = dim;
  return add_layer1(OpKind::embedding, a, {ids}, name);
}

int NetworkBuilder::attention(int x, std::int64_t heads, double dropout, bool causal, const std::string& name) {
  OpAttrs a;
  a.heads = heads;
  a.p = dropout;
  a.causal = causal;
  return add_layer1(OpKind::attention, a, {x}, name);
}

int NetworkBuilder::attention(int x, const AttentionSpec& spec, const std::string& name) {
  OpAttrs a;
  a.heads = spec.heads;
  a.kv_heads = spec.kv_heads;
  a.head_dim = spec.head_dim;
  a.p = spec.dropout;
  a.causal = spec.causal;
  a.flash = spec.flash;
  a.rotary = spec.rotary;
  a.bias = spec.bias;
  return add_layer1(OpKind::attention, a, {x}, name);
}

int NetworkBuilder::rms_norm(int x, const std::string& name, double eps) {
  OpAttrs a;
  a.eps = eps;
  a.bias = false;
  return add_layer1(OpKind::rms_norm, a, {x}, name);
}

int NetworkBuilder::moe(int x, const MoeSpec& spec, const std::string& name) {
  OpAttrs a;
  a.experts = spec.experts;
  a.local_experts = spec.local_experts;
  a.top_k = spec.top_k;
  a.capacity_factor = spec.capacity_factor;
  a.out_features = spec.ffn;
  a.gated = spec.gated;
  return add_layer1(OpKind::moe, a, {x}, name);
}

int NetworkBuilder::cross_entropy(int logits, int target, const std::string& name) {
  return add_layer1(OpKind::cross_entropy, {}, {logits, target}, name);
}

}  // namespace dnnperf
