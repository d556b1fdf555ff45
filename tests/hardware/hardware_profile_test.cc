#include "predictor/hardware/hardware_profile.h"

#include <cstdio>
#include <functional>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "predictor/common/error.h"

using namespace dnnperf;

namespace {

std::string write_variant(const std::string& name, const std::function<void(nlohmann::json&)>& change) {
  std::ifstream in(std::string(DNNPERF_SOURCE_DIR) + "/data/hardware/a100-sxm4-80gb.json");
  nlohmann::json j = nlohmann::json::parse(in);
  change(j);
  const std::string path = "/tmp/dnnperf_test_" + name + ".json";
  std::ofstream(path) << j.dump();
  return path;
}

}  // namespace

TEST_CASE("Shipped profiles load and are found by name and alias", "[hardware]") {
  const auto shipped = shipped_hardware_profiles();
  CHECK(shipped.size() == 6);
  for (const auto& [name, aliases] : shipped) {
    INFO(name);
    const HardwareProfile p = find_hardware_profile(name);
    CHECK(p.name == name);
    CHECK(p.peak(MathMode::fp32) > 0);
    CHECK(p.sources.count("device.peak_flops") + p.sources.count("device") == 1);
    for (const std::string& alias : aliases) CHECK(find_hardware_profile(alias).name == name);
  }
  const HardwareProfile h200 = find_hardware_profile("h200");
  CHECK(h200.device.memory_bandwidth == 4.8e12);
  CHECK(h200.node.devices == 8);
  CHECK(h200.peak(MathMode::bf16_tensor) == Approx(989.4e12));
  CHECK_THROWS_WITH(find_hardware_profile("v100").peak(MathMode::bf16_tensor), Catch::Contains("has no bf16_tensor"));
}

TEST_CASE("Bad profiles are rejected with file and field", "[hardware][errors]") {
  const std::string unknown = write_variant("unknown", [](nlohmann::json& j) { j["device"]["colour"] = "green"; });
  CHECK_THROWS_WITH(load_hardware_profile(unknown), Catch::Contains(unknown + ": device: unknown field 'colour'"));
  const std::string negative = write_variant("negative", [](nlohmann::json& j) { j["node"]["intra"]["bandwidth"] = -1; });
  CHECK_THROWS_WITH(load_hardware_profile(negative), Catch::Contains("node.intra: field 'bandwidth' must be positive"));
  const std::string zero = write_variant("zero", [](nlohmann::json& j) { j["device"]["memory_bandwidth"] = 0; });
  CHECK_THROWS_WITH(load_hardware_profile(zero), Catch::Contains("field 'memory_bandwidth' must be positive"));
  const std::string eff = write_variant("eff", [](nlohmann::json& j) { j["device"]["efficiency"]["gemm"]["max_efficiency"] = 1.5; });
  CHECK_THROWS_WITH(load_hardware_profile(eff), Catch::Contains("efficiency.gemm: field 'max_efficiency' must be in (0, 1]"));
  const std::string missing = write_variant("missing", [](nlohmann::json& j) { j.erase("cluster"); });
  CHECK_THROWS_WITH(load_hardware_profile(missing), Catch::Contains("field 'cluster' is required"));
  CHECK_THROWS_WITH(find_hardware_profile("tpu-v9"), Catch::Contains("unknown hardware 'tpu-v9'") && Catch::Contains("a100-sxm4-80gb"));
  CHECK_THROWS_WITH(find_hardware_profile("/nonexistent/hw.json"), Catch::Contains("no such hardware profile file"));
}
