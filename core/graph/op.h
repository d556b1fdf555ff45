#pragma once
// An operator node of the graph IR: its kind, attributes and the tensors it reads and writes.
#include <array>
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
  std::int64_t heads = 1;            // attention
  bool causal = false;               // attention: mask future positions
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

}  // namespace dnnperf
