#include "networks/import/json_network.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "networks/import/network_loader.h"

using namespace dnnperf;
using nlohmann::json;

namespace {

const std::string kTinyCnn = std::string(DNNPERF_SOURCE_DIR) + "/data/networks/tiny_cnn.json";

json tiny() {
  return json::parse(R"({
    "inputs": [{"name": "x", "shape": [2, 3, 8, 8]}],
    "layers": [
      {"name": "conv", "op": "conv2d", "inputs": ["x"], "out_channels": 4, "kernel": 3},
      {"name": "relu", "op": "relu", "inputs": ["conv"]}
    ]})");
}

std::string error_of(const json& doc) {
  try {
    network_from_json(doc, "net.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("The example JSON network loads with its parameters", "[import][json]") {
  const Graph g = load_json_network(kTinyCnn);
  CHECK(g.name() == "tiny_cnn");
  CHECK(g.ops().size() == 10);
  CHECK(g.parameter_count() == 16 * 3 * 9 + 32 + (32 * 16 * 9 + 32) + (32 * 10 + 10));
  CHECK(g.tensor(g.outputs().at(0)).shape.rank() == 0);
}

TEST_CASE("The batch can be overridden at import", "[import][json]") {
  ImportOptions o;
  o.batch = 32;
  const Graph g = load_json_network(kTinyCnn, o);
  CHECK(g.tensor(g.op(0).outputs[0]).shape[0] == 32);
  LoadOptions four;
  four.batch = 4;
  CHECK(load_network(kTinyCnn, four).tensor(0).shape[0] == 4);
}

TEST_CASE("Layers may be listed in any order", "[import][json]") {
  json doc = tiny();
  std::swap(doc["layers"][0], doc["layers"][1]);
  const Graph g = network_from_json(doc, "net.json");
  CHECK(g.op(0).name == "conv");
}

TEST_CASE("Each class of bad JSON network gets a message naming file, layer and field", "[import][json][errors]") {
  json doc = tiny();
  doc["layers"][0]["op"] = "convolution";
  CHECK_THAT(error_of(doc), Catch::Contains("net.json: layer 'conv': unknown op 'convolution'"));

  doc = tiny();
  doc["layers"][0]["kernal"] = 3;
  CHECK_THAT(error_of(doc), Catch::Contains("layer 'conv': unknown field 'kernal'"));

  doc = tiny();
  doc["layers"][0]["kernel"] = "three";
  CHECK_THAT(error_of(doc), Catch::Contains("layer 'conv': field 'kernel' must be an integer"));

  doc = tiny();
  doc["layers"][0].erase("out_channels");
  CHECK_THAT(error_of(doc), Catch::Contains("field 'out_channels' is required"));

  doc = tiny();
  doc["layers"][0]["out_channels"] = -4;
  CHECK_THAT(error_of(doc), Catch::Contains("'conv'") && Catch::Contains("out_channels must be positive"));

  doc = tiny();
  doc["inputs"][0]["shape"] = {2, 0, 8, 8};
  CHECK_THAT(error_of(doc), Catch::Contains("inputs[0] 'x': field 'shape' must hold positive sizes"));

  doc = tiny();
  doc["layers"][0]["kernel"] = 11;  // larger than the 8x8 input
  CHECK_THAT(error_of(doc), Catch::Contains("net.json: op 'conv' (conv2d)") && Catch::Contains("does not fit"));

  doc = tiny();
  doc["layers"][0]["inputs"] = {"relu"};  // conv <- relu <- conv
  CHECK_THAT(error_of(doc), Catch::Contains("cycle through layer"));

  doc = tiny();
  doc["layers"][1]["inputs"] = {"nothing"};
  CHECK_THAT(error_of(doc), Catch::Contains("layer 'relu': input 'nothing' names no input or layer"));

  doc = tiny();
  doc["layers"][1]["name"] = "conv";
  CHECK_THAT(error_of(doc), Catch::Contains("name 'conv' is used twice"));

  doc = tiny();
  doc["colour"] = "red";
  CHECK_THAT(error_of(doc), Catch::Contains("unknown top-level field 'colour'"));

  CHECK_THAT(error_of(json::array()), Catch::Contains("must be a JSON object"));
  CHECK_THAT(error_of(json::object()), Catch::Contains("field 'inputs' is required"));
}

TEST_CASE("Malformed and missing files are reported", "[import][json][errors]") {
  const std::string bad = std::string(DNNPERF_SOURCE_DIR) + "/tests/import/data/malformed.json";
  CHECK_THROWS_WITH(load_json_network(bad), Catch::Contains("malformed.json: not valid JSON"));
  CHECK_THROWS_WITH(load_network("/nonexistent/net.json"), Catch::Contains("/nonexistent/net.json: no such file"));
  CHECK_THROWS_WITH(load_network("resnet50x"), Catch::Contains("unknown network"));
  LoadOptions sequence;
  sequence.sequence = 10;
  CHECK_THROWS_WITH(load_network(kTinyCnn, sequence), Catch::Contains("zoo networks only"));
}

// Issue 54: sizes past any count, integers past int64, a key given twice, and sizes of the
// wrong kind were accepted (and printed as negative counts) or crashed.
TEST_CASE("Sizes that would overflow a count are refused where they are given", "[import][json][errors]") {
  json doc = tiny();
  doc["layers"][0]["out_channels"] = 4000000000000000000;
  CHECK_THAT(error_of(doc), Catch::Contains("tensor 'conv.weight' of shape 4000000000000000000x3x3x3 holds more than 2^48"));

  doc = tiny();
  doc["layers"][0]["out_channels"] = 9223372036854775808u;  // 2^63: nlohmann keeps it unsigned
  CHECK_THAT(error_of(doc), Catch::Contains("layer 'conv': field 'out_channels' is 9223372036854775808, beyond a 64-bit integer"));

  doc = tiny();
  doc["inputs"][0]["shape"] = {8, 3, 1000000000, 1000000000};
  CHECK_THAT(error_of(doc), Catch::Contains("tensor 'x' of shape 8x3x1000000000x1000000000 holds more than 2^48"));

  doc = tiny();
  doc["layers"][0]["padding"] = 4000000000000000000;
  CHECK_THAT(error_of(doc), Catch::Contains("padding is past the most a size may be"));
}

TEST_CASE("JSON text with a key twice in one object or a number past a double is refused", "[import][json][errors]") {
  CHECK_THROWS_WITH(parse_json(R"({"a": 1, "b": {"c": 2, "c": 3}})", "net.json"), "net.json: key 'c' appears twice in one object");
  CHECK_NOTHROW(parse_json(R"({"a": {"c": 2}, "b": {"c": 3}})", "net.json"));  // the same key in two objects
  CHECK_THROWS_WITH(parse_json(R"({"a": 1e309})", "net.json"), Catch::StartsWith("net.json: not valid JSON"));
}

TEST_CASE("Zoo settings and input sizes are bounded and of the network's kind", "[import][zoo][errors]") {
  CHECK_THROWS_WITH(load_network("gpt:layers=1000000,hidden=64,heads=4"), Catch::Contains("setting 'layers' must be an integer in [1, 4096]"));
  CHECK_THROWS_WITH(load_network("randwire-er:nodes=20000"), Catch::Contains("setting 'nodes' must be an integer in [2, 1024]"));
  CHECK_THROWS_WITH(load_network("gpt:layers=2,hidden=4000000000,heads=4"), Catch::Contains("holds more than 2^48"));
  CHECK_THROWS_WITH(load_network("gpt:layers=2,hidden=64,heads=4,seq=100000000"),
                    Catch::Contains("attention scores") || Catch::Contains("holds more than 2^48"));
  LoadOptions sequence;
  sequence.sequence = 128;
  CHECK_THROWS_WITH(load_network("resnet18", sequence), Catch::Contains("takes an image size (--input), not a sequence length"));
  LoadOptions image;
  image.image = std::array<std::int64_t, 2>{224, 224};
  CHECK_THROWS_WITH(load_network("gpt2", image), Catch::Contains("is a transformer"));
  LoadOptions huge;
  huge.batch = 1000000000000;
  CHECK_THROWS_WITH(load_network("resnet18", huge), Catch::Contains("holds more than 2^48"));
}
