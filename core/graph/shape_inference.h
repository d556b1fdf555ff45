#pragma once
// Shape inference: the output shapes and element types of one op from its inputs and attributes.
// Every rule a kind imposes on its inputs (ranks, matching channels, a positive output size) is
// checked here and reported as InputError; Graph::add_op adds the op's name to the message.
#include <span>
#include <vector>

#include "core/graph/op.h"
#include "core/graph/tensor.h"

namespace dnnperf {

struct OutputSpec {
  TensorShape shape;
  DType dtype = DType::f32;
};

/// Fills `outputs` (cleared first) with one entry per output of `op`.
void infer_output_shapes(const Op& op, std::span<const Tensor* const> inputs,
                         std::vector<OutputSpec>& outputs);

/// Numpy broadcasting of two shapes; throws InputError if they are incompatible.
TensorShape broadcast_shapes(const TensorShape& a, const TensorShape& b);

/// Output length of a sliding window: floor (or ceil, PyTorch's rule) of
/// (size + pads - dilation*(kernel-1) - 1) / stride + 1.
std::int64_t window_output_size(std::int64_t size, std::int64_t kernel, std::int64_t stride,
                                std::int64_t pad_begin, std::int64_t pad_end,
                                std::int64_t dilation, bool ceil_mode);

}  // namespace dnnperf
