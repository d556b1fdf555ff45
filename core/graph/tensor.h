#pragma once
// A tensor of the graph IR: a value with a shape and an element type, produced by at most one op.
#include <cstdint>
#include <string>

#include "core/common/dtype.h"
#include "core/graph/tensor_shape.h"

namespace dnnperf {

/// What a tensor is, which decides whether it has a gradient and whether it counts as a parameter.
enum class TensorRole : std::uint8_t {
  input,       // data fed to the network (images, token ids, labels); no gradient
  activation,  // produced by an op
  parameter,   // trainable weight: counted in parameters, has a gradient, updated by the optimizer
  buffer,      // state that is not trained (BatchNorm running statistics)
  constant,    // fixed values (ONNX initializers that are not weights)
};

struct Tensor {
  std::string name;
  TensorShape shape;
  DType dtype = DType::f32;
  TensorRole role = TensorRole::activation;
  /// Index of the op that produces it; -1 for inputs, parameters, buffers and constants.
  int producer = -1;
  /// True when a training step computes a gradient for it: parameters, and activations that
  /// depend on a parameter.
  bool requires_grad = false;

  std::int64_t bytes() const { return shape.numel() * dtype_bytes(dtype); }
};

}  // namespace dnnperf
