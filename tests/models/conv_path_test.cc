// conv_path against what the library did: the implementation oneDNN's verbose mode named for each
// convolution the dev VM's calibration measured (scripts/onednn_paths.py; PyTorch 1.13, oneDNN
// 2.6, AVX-512). A rule that sends shapes down the wrong path prices them with another path's
// rates, so the rules are held to the record rather than to examples written beside them.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "models/compute/direct_conv.h"
#include "records/kernel_record.h"

using namespace dnnperf;

namespace {

ConvPath path_named(const std::string& implementation) {
  if (implementation == "native") return ConvPath::native;
  if (implementation.rfind("jit_1x1:", 0) == 0) return ConvPath::pointwise;
  if (implementation.rfind("jit_dw:", 0) == 0) return ConvPath::depthwise;
  if (implementation.find("gemm") != std::string::npos) return ConvPath::gemm;
  if (implementation.rfind("jit:", 0) == 0) return ConvPath::direct;
  FAIL("unknown implementation " << implementation);
  return ConvPath::direct;
}

struct Agreement {
  int total = 0, agree = 0;
  std::map<ConvPath, int> seen;
};

Agreement agreement(const std::string& name) {
  const std::string file = std::string(DNNPERF_SOURCE_DIR) + "/tests/data/onednn-paths/" + name;
  std::ifstream in(file);
  REQUIRE(in);
  Agreement a;
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json r = nlohmann::json::parse(line);
    // The record's shape read as measurement files are (output size included).
    const std::optional<Kernel> k = matrix_kernel_of(r.at("op"), r.at("params"), DType::f32);
    REQUIRE(k);
    const ConvPath taken = path_named(r.at("implementation"));
    ++a.seen[taken];
    ++a.total;
    if (conv_path(k->conv, k->phase) == taken) ++a.agree;
    else UNSCOPED_INFO(name << " disagrees: " << line);
  }
  return a;
}

}  // namespace

TEST_CASE("conv_path takes the path oneDNN and PyTorch took for the dev VM's measured convolutions", "[models][compute]") {
  // The calibration's seeded sample of shapes.
  Agreement sample = agreement("onednn_paths.jsonl");
  REQUIRE(sample.total > 2000);
  for (const ConvPath path : {ConvPath::direct, ConvPath::pointwise, ConvPath::native, ConvPath::depthwise, ConvPath::gemm})
    CHECK(sample.seen[path] >= 50);  // every path is exercised by the record
  // Two backward-data shapes (7x7 over 2x2 images) went to oneDNN's GEMM for reasons the rules
  // do not capture; everything else agrees.
  CHECK(sample.total - sample.agree <= 2);
  // The validated networks' own convolutions at batch 4 (AlexNet, VGG-11, ResNet-18/50, MobileNetV2): all.
  const Agreement networks = agreement("onednn_paths_networks.jsonl");
  CHECK(networks.total > 200);
  CHECK(networks.agree == networks.total);
}
