// A short randomized fuzz of both parsers: mutated inputs must end in a parsed graph or an
// InputError, never a crash, a hang or another exception. (Run under -DDNNPERF_SANITIZE=ON it also
// checks memory safety.)
#include <fstream>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "networks/import/json_network.h"
#include "networks/import/onnx_import.h"
#include "tests/import/onnx_test_models.h"

using namespace dnnperf;

namespace {

std::string mutate(std::string s, std::mt19937_64& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < edits && !s.empty(); ++i) {
    const std::size_t at = rng() % s.size();
    switch (rng() % 4) {
      case 0: s[at] = static_cast<char>(rng() % 256); break;
      case 1: s.erase(at, 1 + rng() % 8); break;
      case 2: s.insert(at, s.substr(rng() % s.size(), 1 + rng() % 16)); break;
      default: s[at] = "0123456789-[]{},:\""[rng() % 18]; break;
    }
  }
  return s;
}

template <typename Parse>
int survive(const std::string& seed, int rounds, Parse parse) {
  std::mt19937_64 rng(12345 + Catch::rngSeed());
  int rejected = 0;
  for (int i = 0; i < rounds; ++i) {
    const std::string input = mutate(seed, rng);
    try {
      parse(input);
    } catch (const InputError&) {
      ++rejected;
    }
  }
  return rejected;
}

}  // namespace

TEST_CASE("The JSON network parser survives mutated input", "[import][fuzz]") {
  std::ifstream in(std::string(DNNPERF_SOURCE_DIR) + "/data/networks/tiny_transformer.json");
  std::stringstream text;
  text << in.rdbuf();
  const int rejected = survive(text.str(), 3000, [](const std::string& s) {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(s);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(e.what());
    }
    network_from_json(doc, "fuzz.json");
  });
  CHECK(rejected > 0);
}

TEST_CASE("The ONNX importer survives mutated models", "[import][fuzz]") {
  const std::string seed = testing::small_mlp().SerializeAsString();
  const int rejected = survive(seed, 3000, [](const std::string& s) { onnx_network_from_bytes(s, "fuzz.onnx"); });
  CHECK(rejected > 0);
}

TEST_CASE("The ONNX importer survives structurally mutated models", "[import][fuzz]") {
  // Byte flips mostly fail the protobuf parse; these mutations keep the model parseable and break
  // it where the importer must notice: shapes, attributes, wiring and op types.
  static const char* kOps[] = {"Conv", "Gemm", "MatMul", "Add", "Reshape", "Gather", "Concat", "Slice",
                               "Transpose", "Squeeze", "Unsqueeze", "Split", "Softmax", "Pad", "Range"};
  std::mt19937_64 rng(7 + Catch::rngSeed());  // vary with --rng-seed N
  int rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    onnx::ModelProto m = testing::small_mlp();
    onnx::GraphProto& g = *m.mutable_graph();
    for (int edit = 0; edit < 1 + static_cast<int>(rng() % 3); ++edit) {
      onnx::NodeProto& node = *g.mutable_node(static_cast<int>(rng() % static_cast<unsigned>(g.node_size())));
      switch (rng() % 5) {
        case 0: {
          onnx::TensorProto& t = *g.mutable_initializer(static_cast<int>(rng() % static_cast<unsigned>(g.initializer_size())));
          if (t.dims_size()) t.set_dims(static_cast<int>(rng() % static_cast<unsigned>(t.dims_size())), static_cast<std::int64_t>(rng() % 12) - 2);
          break;
        }
        case 1: node.set_op_type(kOps[rng() % std::size(kOps)]); break;
        case 2:
          if (node.input_size()) node.set_input(static_cast<int>(rng() % static_cast<unsigned>(node.input_size())), g.node(static_cast<int>(rng() % static_cast<unsigned>(g.node_size()))).output(0));
          break;
        case 3: {
          auto* a = node.add_attribute();
          a->set_name(rng() % 2 ? "axis" : "perm");
          a->set_type(onnx::AttributeProto::INT);
          a->set_i(static_cast<std::int64_t>(rng() % 9) - 4);
          break;
        }
        default: node.add_input(g.input(0).name()); break;
      }
    }
    try {
      onnx_network_from_bytes(m.SerializeAsString(), "fuzz.onnx");
    } catch (const InputError&) {
      ++rejected;
    }
  }
  CHECK(rejected > 1000);
}
