#pragma once
// NetworkBuilder: builds a Graph layer by layer the way a framework module would, creating each
// layer's parameters (weights, biases, BatchNorm statistics) from its attributes and input shape.
//
//   NetworkBuilder b("tiny");
//   int x = b.input("image", {8, 3, 32, 32});
//   x = b.conv2d(x, {.out = 16, .kernel = {3, 3}, .padding = {1, 1}}, "conv1");
//   x = b.relu(x, "relu1");
//   Graph g = std::move(b).finish();
//
// Names are prefixed by the open scopes ("layer1.0.conv1"), as PyTorch names submodules.
// Every method throws InputError when the layer does not fit its input.
#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace dnnperf {

struct ConvSpec {
  std::int64_t out = 0;
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> padding{0, 0};
  std::int64_t groups = 1;
  bool bias = true;
  std::array<std::int64_t, 2> dilation{1, 1};
};

/// Self-attention beyond the classic block: grouped-query heads, a fused (flash) kernel, rotary
/// positions; OpAttrs documents each field.
struct AttentionSpec {
  std::int64_t heads = 1;
  std::int64_t kv_heads = 0;  // 0: heads
  std::int64_t head_dim = 0;  // 0: width / heads
  double dropout = 0;
  bool causal = false;
  bool flash = false;
  bool rotary = false;
  bool bias = true;
};

/// A mixture-of-experts feed-forward layer: `experts` MLPs of width `ffn`, each token routed to
/// `top_k` of them.
struct MoeSpec {
  std::int64_t experts = 8;
  std::int64_t local_experts = 0;  // 0: experts
  std::int64_t top_k = 2;
  double capacity_factor = 1.0;
  std::int64_t ffn = 0;
  bool gated = true;
};

class NetworkBuilder {
 public:
  explicit NetworkBuilder(std::string name, DType dtype = DType::f32);

  /// Adds a layer of any kind: creates the parameters that `kind` owns (see parameter rules in
  /// network_builder.cc), appends them to `inputs` and adds the op. Returns the outputs.
  std::span<const int> add_layer(OpKind kind, const OpAttrs& attrs, std::vector<int> inputs,
                                 const std::string& name);
  int add_layer1(OpKind kind, const OpAttrs& attrs, std::vector<int> inputs, const std::string& name) {
    return add_layer(kind, attrs, std::move(inputs), name).front();
  }

  int input(const std::string& name, TensorShape shape, DType dtype = DType::f32);
  /// An input that carries a gradient: the activation entering a layer built on its own.
  int activation_input(const std::string& name, TensorShape shape);

  int conv2d(int x, const ConvSpec& spec, const std::string& name);
  int linear(int x, std::int64_t out, const std::string& name, bool bias = true);
  /// A bias-free linear layer that reuses an existing weight (tied embeddings, as GPT's LM head).
  int linear_with_weight(int x, int weight, const std::string& name);
  int matmul(int a, int b, const std::string& name);
  int batch_norm(int x, const std::string& name, double eps = 1e-5);
  int layer_norm(int x, const std::string& name, double eps = 1e-5, bool bias = true);
  int unary(OpKind kind, int x, const std::string& name);
  int relu(int x, const std::string& name) { return unary(OpKind::relu, x, name); }
  int binary(OpKind kind, int a, int b, const std::string& name);
  int add(int a, int b, const std::string& name) { return binary(OpKind::add, a, b, name); }
  int max_pool(int x, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
               const std::string& name, bool ceil_mode = false);
  int avg_pool(int x, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
               const std::string& name, bool count_include_pad = true);
  int adaptive_avg_pool(int x, std::int64_t out_h, std::int64_t out_w, const std::string& name);
  int dropout(int x, double p, const std::string& name);
  int softmax(int x, std::int64_t axis, const std::string& name);
  int concat(const std::vector<int>& xs, std::int64_t axis, const std::string& name);
  std::vector<int> split(int x, std::vector<std::int64_t> sizes, std::int64_t axis, const std::string& name);
  int flatten(int x, std::int64_t axis, const std::string& name);
  int reshape(int x, std::vector<std::int64_t> shape, const std::string& name);
  int transpose(int x, std::vector<std::int64_t> perm, const std::string& name);
  int reduce_mean(int x, std::vector<std::int64_t> axes, bool keepdims, const std::string& name);
  int weighted_sum(const std::vector<int>& xs, const std::string& name);
  int embedding(int ids, std::int64_t num_embeddings, std::int64_t dim, const std::string& name);
  int attention(int x, std::int64_t heads, double dropout, bool causal, const std::string& name);
  int attention(int x, const AttentionSpec& spec, const std::string& name);
  /// Root-mean-square normalisation (Zhang & Sennrich 2019): a scale, no bias, no mean.
  int rms_norm(int x, const std::string& name, double eps = 1e-5);
  int moe(int x, const MoeSpec& spec, const std::string& name);
  int cross_entropy(int logits, int target, const std::string& name);

  /// Marks the network's output (the loss or the logits).
  void set_output(int tensor) { graph_.mark_output(tensor); }

  /// RAII name scope: names created while it lives are prefixed by "<prefix>.".
  class Scope {
   public:
    Scope(NetworkBuilder& b, const std::string& prefix);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    NetworkBuilder& builder_;
    std::size_t previous_size_;
  };
  Scope scope(const std::string& prefix) { return Scope(*this, prefix); }

  /// Preallocates for about `ops` ops, so building large networks does not reallocate.
  void reserve_hint(std::size_t ops) { graph_.reserve(ops, ops * 3); }

  const Graph& graph() const { return graph_; }
  const TensorShape& shape(int tensor) const { return graph_.tensor(tensor).shape; }
  Graph finish() && { return std::move(graph_); }

 private:
  std::string qualified(const std::string& name) const;
  int parameter(const std::string& layer, const char* suffix, TensorShape shape,
                TensorRole role = TensorRole::parameter);

  Graph graph_;
  DType dtype_;
  std::string prefix_;
};

}  // namespace dnnperf
