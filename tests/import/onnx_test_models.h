#pragma once
// Small ONNX models built in code for import tests.
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace dnnperf::testing {

inline onnx::TensorProto float_tensor(const std::string& name, std::vector<std::int64_t> dims) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    t.add_dims(d);
    n *= d;
  }
  for (std::int64_t i = 0; i < n; ++i) t.add_float_data(0.5f);
  return t;
}

inline onnx::TensorProto int_tensor(const std::string& name, std::vector<std::int64_t> values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(static_cast<std::int64_t>(values.size()));
  for (std::int64_t v : values) t.add_int64_data(v);
  return t;
}

inline onnx::NodeProto& add_node(onnx::GraphProto& g, const std::string& op, const std::string& name,
                                 std::vector<std::string> inputs, std::vector<std::string> outputs) {
  onnx::NodeProto& n = *g.add_node();
  n.set_op_type(op);
  n.set_name(name);
  for (auto& i : inputs) n.add_input(i);
  for (auto& o : outputs) n.add_output(o);
  return n;
}

inline void add_input(onnx::GraphProto& g, const std::string& name, std::vector<std::int64_t> dims) {
  auto& in = *g.add_input();
  in.set_name(name);
  auto* tt = in.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

/// x[2,4] -> MatMul(W[4,3]) -> Add(b[3]) -> Reshape(Shape/Gather/Concat target) -> Relu.
inline onnx::ModelProto small_mlp() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("mlp");
  add_input(g, "x", {2, 4});
  *g.add_initializer() = float_tensor("W", {4, 3});
  *g.add_initializer() = float_tensor("b", {3});
  *g.add_initializer() = int_tensor("zero", {0});
  *g.add_initializer() = int_tensor("minus_one", {-1});
  add_node(g, "MatMul", "mm", {"x", "W"}, {"h"});
  add_node(g, "Add", "bias", {"h", "b"}, {"hb"});
  add_node(g, "Shape", "shape", {"hb"}, {"s"});
  auto& gather = add_node(g, "Gather", "batch_dim", {"s", "zero"}, {"n"});
  auto* axis = gather.add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  auto& concat = add_node(g, "Concat", "target", {"n", "minus_one"}, {"t"});
  auto* caxis = concat.add_attribute();
  caxis->set_name("axis");
  caxis->set_type(onnx::AttributeProto::INT);
  caxis->set_i(0);
  add_node(g, "Reshape", "reshape", {"hb", "t"}, {"r"});
  add_node(g, "Relu", "relu", {"r"}, {"y"});
  g.add_output()->set_name("y");
  return m;
}

}  // namespace dnnperf::testing
