#pragma once
// The activation memory a training step keeps from the forward pass for the backward pass.
//
// Each op saves some tensors (a convolution its input, a ReLU its output, ...) and possibly private
// state (dropout masks, max-pool indices, normalisation statistics, attention probabilities). A
// tensor saved by several ops is held once: it is charged to the first op that saves it. Under an
// FP8 recipe a layer with weights keeps the 8-bit copy of its input its weight gradient reads
// (Transformer Engine's), a buffer of its own beside any 16-bit one another op keeps.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/graph/graph.h"

namespace dnnperf {

/// Bytes each op keeps for backward (indexed like graph.ops()); all zero when nothing needs a
/// gradient. The sum is the activation memory of one training step.
/// With `compute`, floating tensors are counted as the run stores them (f16 for mixed precision);
/// with `fp8_gemm_inputs` (LoweringOptions::fp8_gemms), the inputs of layers with weights as one
/// byte an element.
std::vector<std::int64_t> saved_activation_bytes(const Graph& graph, std::optional<DType> compute = std::nullopt, bool fp8_gemm_inputs = false);

}  // namespace dnnperf
