#pragma once
// An operator node of the graph IR: its kind, attributes and the tensors it reads and writes.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/dtype.h"
#include "core/graph/op_kind.h"

namespace dnnperf {

/// Attributes of every op kind in one flat struct; each kind reads only the fields documented for
/// it and ignores the rest. Spatial pairs are (height, width).
struct OpAttrs {
  // conv2d: output channels (the weight's first dimension). linear: output features.
  std::int64_t out_features = 0;
  // conv2d and pooling windows.
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> pad_begin{0, 0};
  std::array<std::int64_t, 2> pad_end{0, 0};
  std::array<std::int64_t, 2> dilation{1, 1};
  std::int64_t groups = 1;
  bool bias = true;                 // conv2d, linear, attention: whether a bias parameter exists
  bool ceil_mode = false;           // pooling: round the output size up
  bool count_include_pad = true;    // avg_pool2d
  std::array<std::int64_t, 2> output_size{1, 1};  // adaptive pooling
  // softmax, log_softmax, concat, split, flatten (first flattened axis), slice.
  std::int64_t axis = 1;
  std::vector<std::int64_t> perm;         // transpose
  std::vector<std::int64_t> shape;        // reshape target (0 copies the input dim, -1 is inferred)
  std::vector<std::int64_t> split_sizes;  // split
  std::vector<std::int64_t> axes;         // reduce_mean
  bool keepdims = true;                   // reduce_mean
  std::int64_t start = 0, end = 0, step = 1;  // slice along `axis`
  double p = 0.0;      // dropout probability (dropout; attention: on the attention weights)
  double eps = 1e-5;   // batch_norm, layer_norm
  std::int64_t normalized_dims = 1;  // layer_norm: how many trailing dims are normalised
  std::int64_t heads = 1;            // attention: query heads
  bool causal = false;               // attention: mask future positions
  /// attention: key/value heads, shared by heads / kv_heads query heads each (grouped-query
  /// attention; 1: multi-query); 0: as many as query heads.
  std::int64_t kv_heads = 0;
  /// attention: width of one head; 0: the input width / heads. A tensor-parallel shard of a
  /// layer holds heads / t of the heads at the full model's head width.
  std::int64_t head_dim = 0;
  /// attention: one fused kernel (FlashAttention; Dao et al. 2022) that recomputes the scores in
  /// backward instead of keeping the batch x heads x s^2 probabilities.
  bool flash = false;
  /// attention: rotary position embeddings applied to queries and keys (Su et al. 2021).
  bool rotary = false;
  /// moe: experts, experts each token is routed to, and the capacity factor (an expert takes at
  /// most capacity_factor x tokens x top_k / experts tokens; Fedus et al. 2021). The expert width
  /// is out_features; `gated`: SwiGLU experts (gate and up projections; Shazeer 2020).
  std::int64_t experts = 0;
  /// moe: the experts this op holds (experts / the expert-parallel degree; 0: all). The router
  /// still scores all `experts`; each local expert takes the capacity of its share of tokens.
  std::int64_t local_experts = 0;
  std::int64_t top_k = 1;
  double capacity_factor = 1.0;
  bool gated = false;
  std::int64_t num_embeddings = 0;   // embedding: vocabulary size
  std::int64_t embedding_dim = 0;    // embedding: vector width
  DType to = DType::f32;             // cast
};

struct Op {
  OpKind kind = OpKind::relu;
  std::string name;
  OpAttrs attrs;
  /// Tensor indices in the order the kind defines: activations first, then its parameters and
  /// buffers (conv2d: x, weight[, bias]; batch_norm: x, weight, bias, running_mean, running_var).
  std::vector<int> inputs;
  std::vector<int> outputs;
};

/// Tokens one expert of a moe op processes for `tokens` routed tokens: its capacity,
/// ceil(capacity_factor x tokens x top_k / local experts), at most the tokens x top_k assignments
/// there are (GShard's and Megatron's token dropping; the router's imbalance below capacity is not
/// modelled: every expert is taken as full).
inline std::int64_t moe_expert_capacity(const OpAttrs& a, std::int64_t tokens) {
  const std::int64_t local = a.local_experts ? a.local_experts : a.experts;
  const double routed = static_cast<double>(tokens) * static_cast<double>(a.top_k);
  const double c = a.capacity_factor * routed / static_cast<double>(local);
  return std::max<std::int64_t>(1, std::min(static_cast<std::int64_t>(routed), static_cast<std::int64_t>(std::ceil(c))));
}

}  // namespace dnnperf
