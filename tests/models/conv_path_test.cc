// conv_path against what the library did: the implementation oneDNN's verbose mode named for each
// convolution the dev VM's calibration measured (scripts/onednn_paths.py; PyTorch 1.13, oneDNN
// 2.6, AVX-512). A rule that sends shapes down the wrong path prices them with another path's
// rates, so the rules are held to the record rather than to examples written beside them.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "models/compute/direct_conv.h"

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
  const std::string file = std::string(DNNPERF_SOURCE_DIR) + "/data/measurements/cpu-vm-2core-2026-12-01-onednn-paths/" + name;
  std::ifstream in(file);
  REQUIRE(in);
  const std::map<std::string, Phase> directions = {
      {"conv_forward", Phase::forward}, {"conv_backward_data", Phase::backward_data}, {"conv_backward_filter", Phase::backward_weight}};
  Agreement a;
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json r = nlohmann::json::parse(line);
    const nlohmann::json& p = r.at("params");
    ConvShape c;
    c.n = p.at("n"), c.c = p.at("c"), c.h = p.at("h"), c.w = p.at("w"), c.k = p.at("k"), c.r = p.at("r"), c.s = p.at("s");
    c.stride_h = p.at("stride_h"), c.stride_w = p.at("stride_w"), c.pad_h = p.at("pad_h"), c.pad_w = p.at("pad_w");
    c.dilation_h = p.at("dilation_h"), c.dilation_w = p.at("dilation_w"), c.groups = p.at("groups");
    c.p = (c.h + 2 * c.pad_h - c.dilation_h * (c.r - 1) - 1) / c.stride_h + 1;
    c.q = (c.w + 2 * c.pad_w - c.dilation_w * (c.s - 1) - 1) / c.stride_w + 1;
    const ConvPath taken = path_named(r.at("implementation"));
    ++a.seen[taken];
    ++a.total;
    if (conv_path(c, directions.at(r.at("op"))) == taken) ++a.agree;
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
