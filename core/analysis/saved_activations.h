#pragma once
// The activation memory a training step keeps from the forward pass for the backward pass.
//
// Each op saves some tensors (a convolution its input, a ReLU its output, ...) and possibly private
// state (dropout masks, max-pool indices, normalisation statistics, attention probabilities). A
// tensor saved by several ops is held once: it is charged to the first op that saves it.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/graph/graph.h"

namespace dnnperf {

/// Bytes each op keeps for backward (indexed like graph.ops()); all zero when nothing needs a
/// gradient. The sum is the activation memory of one training step.
/// With `compute`, floating tensors are counted as the run stores them (f16 for mixed precision).
std::vector<std::int64_t> saved_activation_bytes(const Graph& graph, std::optional<DType> compute = std::nullopt);

}  // namespace dnnperf
