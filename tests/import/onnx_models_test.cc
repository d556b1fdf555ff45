// Imports the models scripts/export_onnx.py exported with torch.onnx.export (the CTest fixture
// onnx_export_fixtures) and compares them with what PyTorch counted and with the zoo.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/analysis/network_summary.h"
#include "networks/import/onnx_import.h"
#include "core/lowering/lower.h"
#include "networks/zoo/zoo.h"

using namespace dnnperf;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name;
  nlohmann::json sidecar;
  std::string onnx;
};

std::vector<Case> exported_cases() {
  const char* dir = std::getenv("DNNPERF_ONNX_CASES");
  if (!dir) return {};
  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    Case c{entry.path().stem().string(), nlohmann::json::parse(in), (entry.path().parent_path() / entry.path().stem()).string() + ".onnx"};
    if (fs::exists(c.onnx)) cases.push_back(std::move(c));
  }
  return cases;
}

double macs(const Graph& g) { return summarize(g, lower(g, LoweringOptions::inference())).totals.forward_macs; }

}  // namespace

TEST_CASE("Exported torchvision and transformer models import with PyTorch's parameter count", "[import][onnx][torch]") {
  const auto cases = exported_cases();
  REQUIRE(cases.size() >= 8);  // the fixture exports eight cases
  for (const Case& c : cases) {
    INFO(c.name);
    const Graph g = load_onnx_network(c.onnx);
    const std::int64_t trainable = c.sidecar["trainable_params"];
    if (c.sidecar["training"]) {
      CHECK(g.parameter_count() == trainable);
    } else {
      CHECK(g.parameter_count() == trainable - c.sidecar["batchnorm_channels"].get<std::int64_t>());
    }
  }
}

TEST_CASE("Imported models do the zoo's work for the same input", "[import][onnx][torch]") {
  for (const Case& c : exported_cases()) {
    INFO(c.name);
    if (c.sidecar["zoo"].is_null()) continue;  // networks the zoo does not have (export_onnx.py COMPOSITION)
    const auto shape = c.sidecar["input_shape"].get<std::vector<std::int64_t>>();
    NetworkOptions o;
    o.batch = shape[0];
    o.with_loss = false;
    if (shape.size() == 4) o.image = std::array<std::int64_t, 2>{shape[2], shape[3]};
    else o.sequence = shape[1];
    const std::string zoo = c.sidecar["zoo"];
    ImportOptions same;  // the exports have a symbolic batch axis
    same.batch = shape[0];
    const Graph imported = load_onnx_network(c.onnx, same);
    const double expected = macs(build_zoo_network(zoo, o));
    CHECK(macs(imported) == Approx(expected).epsilon(1e-9));
    // The batch override rescales the whole graph, shape subgraphs included.
    ImportOptions twice;
    twice.batch = 2 * shape[0];
    CHECK(macs(load_onnx_network(c.onnx, twice)) == Approx(2 * expected).epsilon(1e-9));
  }
}

TEST_CASE("Training exports keep BatchNorm and dropout for the training step", "[import][onnx][torch]") {
  for (const Case& c : exported_cases()) {
    if (!c.sidecar["training"] || c.name.find("resnet18") == std::string::npos) continue;
    const Graph g = load_onnx_network(c.onnx);
    int bn = 0;
    for (const Op& op : g.ops()) bn += op.kind == OpKind::batch_norm;
    CHECK(bn == 20);
  }
  for (const Case& c : exported_cases()) {
    if (!c.sidecar["training"] || c.name.find("transformer") == std::string::npos) continue;
    INFO(c.name);
    const Graph g = load_onnx_network(c.onnx);
    int dropout = 0;
    for (const Op& op : g.ops()) dropout += op.kind == OpKind::dropout;
    CHECK(dropout == 4 * 3 + 4);  // per layer: attention weights, after attention, in and after the FFN
  }
}
