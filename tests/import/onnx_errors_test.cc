#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "networks/import/network_loader.h"
#include "networks/import/onnx_import.h"
#include "tests/import/onnx_test_models.h"

using namespace dnnperf;
using namespace dnnperf::testing;

namespace {

std::string error_of(const onnx::ModelProto& m) {
  try {
    onnx_network_from_bytes(m.SerializeAsString(), "model.onnx");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("A constructed ONNX model imports with folded shape subgraphs", "[import][onnx]") {
  const Graph g = onnx_network_from_bytes(small_mlp().SerializeAsString(), "model.onnx");
  CHECK(g.parameter_count() == 4 * 3 + 3);
  REQUIRE(g.outputs().size() == 1);
  CHECK(g.tensor(g.outputs()[0]).shape == TensorShape{2, 3});
  ImportOptions o;
  o.batch = 16;
  const Graph big = onnx_network_from_bytes(small_mlp().SerializeAsString(), "model.onnx", o);
  CHECK(big.tensor(big.outputs()[0]).shape == TensorShape{16, 3});
}

TEST_CASE("ONNX errors name the file, the node and its op type", "[import][onnx][errors]") {
  onnx::ModelProto m = small_mlp();
  m.mutable_graph()->mutable_node(6)->set_op_type("Softplus");
  CHECK_THAT(error_of(m), Catch::Contains("model.onnx: node 'relu' (Softplus): operator not supported"));

  m = small_mlp();
  m.mutable_graph()->mutable_node(0)->set_input(0, "missing");
  CHECK_THAT(error_of(m), Catch::Contains("node 'mm' (MatMul): input 'missing' is produced by no node"));

  m = small_mlp();
  m.mutable_graph()->mutable_node(0)->set_input(0, "y");  // mm reads relu's output: a cycle
  CHECK_THAT(error_of(m), Catch::Contains("cycle"));

  m = small_mlp();
  *m.mutable_graph()->mutable_initializer(0) = float_tensor("W", {5, 3});
  CHECK_THAT(error_of(m), Catch::Contains("node 'mm' (MatMul)") && Catch::Contains("inner dimensions differ"));

  m = small_mlp();
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("features");
  CHECK_THAT(error_of(m), Catch::Contains("graph input 'x': dimension 1 is symbolic ('features')"));

  m = small_mlp();
  m.mutable_graph()->mutable_node(5)->set_input(1, "x");  // the reshape target is no constant
  CHECK_THAT(error_of(m), Catch::Contains("node 'reshape' (Reshape): input 'x' must be a constant"));

  CHECK_THROWS_WITH(onnx_network_from_bytes("this is not protobuf", "junk.onnx"), Catch::Contains("junk.onnx: not a valid ONNX model"));
  CHECK_THROWS_WITH(onnx_network_from_bytes("", "empty.onnx"), Catch::Contains("empty.onnx: not a valid ONNX model"));
  CHECK_THROWS_WITH(load_network("/nonexistent/model.onnx"), Catch::Contains("no such file"));
}

namespace {

void add_ints(onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> values) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (std::int64_t v : values) a->add_ints(v);
}

/// x[1,3,8,8] -> Conv(W[4,3,3,3]) -> y.
onnx::ModelProto small_conv() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("conv");
  add_input(g, "x", {1, 3, 8, 8});
  *g.add_initializer() = float_tensor("W", {4, 3, 3, 3});
  add_node(g, "Conv", "conv", {"x", "W"}, {"y"});
  g.add_output()->set_name("y");
  return m;
}

}  // namespace

// Issue 54: ONNX files that were accepted (and priced) or refused with a misleading message.
TEST_CASE("ONNX models missing parts or naming what the importer cannot read are refused by name", "[import][onnx][errors]") {
  REQUIRE(error_of(small_conv()) == "no error");

  onnx::ModelProto m = small_conv();
  m.mutable_graph()->clear_output();
  CHECK_THAT(error_of(m), Catch::Contains("model.onnx: the graph declares no outputs"));

  m = small_conv();
  m.mutable_graph()->mutable_output(0)->set_name("nothing");
  CHECK_THAT(error_of(m), Catch::Contains("graph output 'nothing' is produced by no node"));

  m = small_conv();
  m.mutable_opset_import(0)->set_version(999);
  CHECK_THAT(error_of(m), Catch::Contains("opset 999 is outside the opsets 1 to"));

  m = small_conv();
  add_ints(*m.mutable_graph()->mutable_node(0), "kernel_shape", {5, 5});
  CHECK_THAT(error_of(m), Catch::Contains("node 'conv' (Conv): kernel_shape 5x5 does not match the weight's 3x3"));

  m = small_conv();
  add_ints(*m.mutable_graph()->mutable_node(0), "strides", {2, 2, 2});
  CHECK_THAT(error_of(m), Catch::Contains("strides must hold 2 values"));

  m = small_conv();
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  CHECK_THAT(error_of(m), Catch::Contains("graph input 'x' has no shape"));

  // A 1x3x2^40x2^40 input would overflow every count (it was priced at 0.001 GFLOP).
  m = small_conv();
  auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(2)->set_dim_value(std::int64_t{1} << 40);
  shape->mutable_dim(3)->set_dim_value(std::int64_t{1} << 40);
  CHECK_THAT(error_of(m), Catch::Contains("holds more than 2^48"));
}
