// A short randomized fuzz of both parsers: mutated inputs must end in a parsed graph or an
// InputError, never a crash, a hang or another exception. (Run under -DDNNPERF_SANITIZE=ON it also
// checks memory safety.)
#include <fstream>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "predictor/common/error.h"
#include "predictor/import/json_network.h"
#include "predictor/import/onnx_import.h"
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
  std::mt19937_64 rng(12345);
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
