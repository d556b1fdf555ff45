#pragma once
// Compile-time values of an ONNX graph: initializers, Constant nodes and the small integer
// subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ...) that torch.onnx.export emits to
// compute reshape targets. The importer folds them here so that every tensor shape is known.
// Internal to networks/import.
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/common/dtype.h"
#include "core/graph/tensor_shape.h"

namespace dnnperf::onnx_import {

/// A tensor whose shape is known and whose values may be (small tensors: up to kMaxFoldedElements).
struct ConstValue {
  static constexpr std::int64_t kMaxFoldedElements = 1 << 16;
  std::vector<std::int64_t> shape;
  DType dtype = DType::f32;
  bool has_data = false;
  std::vector<double> data;  // row-major; integers stored exactly up to 2^53

  std::int64_t numel() const;
  /// Element i as an integer, clamped to +-2^62 (ONNX uses INT64_MAX for "to the end").
  std::int64_t integer(std::size_t i) const;
  std::vector<std::int64_t> integers() const;
};

/// ONNX TensorProto element type to ours; nullopt for types the IR has no use for.
std::optional<DType> dtype_from_onnx(int onnx_type);

/// Reads a TensorProto: its shape always, its values when it is small.
ConstValue read_tensor_proto(const onnx::TensorProto& t, const std::string& where);

/// Evaluates `node` when all its inputs are known values and the op is one of the integer/shape
/// ops folding supports; nullopt otherwise. `inputs[i]` is null for a value that is not constant.
/// Throws InputError for a foldable node whose inputs contradict it.
std::optional<std::vector<ConstValue>> fold_node(const onnx::NodeProto& node,
                                                 const std::vector<const ConstValue*>& inputs,
                                                 int opset);

/// Attribute helpers.
const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name);
std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback);
float float_attribute(const onnx::NodeProto& node, const std::string& name, float fallback);
std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name);

}  // namespace dnnperf::onnx_import
