#pragma once
// The operator vocabulary of the graph IR. One table (DNNPERF_OP_KINDS) names every op kind and
// its family; the names are the spellings used by the JSON network format and the CLI.
#include <cstdint>
#include <optional>
#include <string_view>

namespace dnnperf {

/// Families group ops that infer shapes and lower the same way.
enum class OpFamily : std::uint8_t {
  convolution,   // conv2d
  gemm,          // linear, matmul
  pooling,       // max/avg/adaptive pooling
  normalization, // batch_norm, layer_norm, rms_norm
  unary,         // activations and other one-input elementwise maths
  binary,        // broadcasting two-input elementwise maths
  reduction,     // softmax, reduce_mean, weighted_sum
  regularization,// dropout
  layout,        // concat, split, flatten, reshape, transpose, slice
  embedding,     // embedding lookup
  attention,     // multi-head self-attention
  mixture,       // mixture-of-experts feed-forward: router, experts, combine
  loss,          // cross_entropy
};

// X(enum name, family)
#define DNNPERF_OP_KINDS(X)                                                              \
  X(conv2d, convolution)                                                                 \
  X(linear, gemm) X(matmul, gemm)                                                        \
  X(max_pool2d, pooling) X(avg_pool2d, pooling) X(adaptive_avg_pool2d, pooling)          \
  X(adaptive_max_pool2d, pooling)                                                        \
  X(batch_norm, normalization) X(layer_norm, normalization) X(rms_norm, normalization)     \
  X(relu, unary) X(relu6, unary) X(gelu, unary) X(silu, unary) X(sigmoid, unary)         \
  X(tanh, unary) X(hardswish, unary) X(hardsigmoid, unary) X(sqrt, unary) X(erf, unary)   \
  X(exp, unary) X(neg, unary) X(reciprocal, unary) X(cast, unary)                        \
  X(add, binary) X(sub, binary) X(mul, binary) X(div, binary) X(pow, binary)             \
  X(softmax, reduction) X(log_softmax, reduction) X(reduce_mean, reduction)              \
  X(weighted_sum, reduction)                                                             \
  X(dropout, regularization)                                                             \
  X(concat, layout) X(split, layout) X(flatten, layout) X(reshape, layout)               \
  X(transpose, layout) X(slice, layout)                                                  \
  X(embedding, embedding)                                                                \
  X(attention, attention)                                                                \
  X(moe, mixture)                                                                        \
  X(cross_entropy, loss)

enum class OpKind : std::uint8_t {
#define DNNPERF_OP_ENUM(name, family) name,
  DNNPERF_OP_KINDS(DNNPERF_OP_ENUM)
#undef DNNPERF_OP_ENUM
};

std::string_view op_kind_name(OpKind kind);
OpFamily op_family(OpKind kind);
/// Parses an op name as op_kind_name() spells it; also accepts the aliases "bmm",
/// "global_avg_pool2d" (adaptive_avg_pool2d with output 1x1 is meant; callers set the size).
std::optional<OpKind> parse_op_kind(std::string_view name);

}  // namespace dnnperf
