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
