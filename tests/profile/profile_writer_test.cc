// The profile writer is the reader's inverse: every shipped profile (datasheet and calibrated),
// read, written and read again, is the same profile field for field, prices the same kernels and
// messages identically, and writing is whole or not at all.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/lowering/lower.h"
#include "models/comm/fitted_comm_model.h"
#include "models/compute/profile_model.h"
#include "profile/profile_writer.h"

using namespace dnnperf;

namespace {

std::vector<std::string> shipped_profiles() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(DNNPERF_SOURCE_DIR "/data/hardware"))
    if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

TEST_CASE("every shipped profile survives writing and reading back unchanged") {
  const std::vector<std::string> paths = shipped_profiles();
  REQUIRE(paths.size() >= 8);
  for (const std::string& path : paths) {
    INFO(path);
    const HardwareProfile read = load_hardware_profile(path);
    const nlohmann::json written = hardware_profile_to_json(read);
    const HardwareProfile again = hardware_profile_from_json(written, path + " (written)");
    // Every figure the file gives is written back as it was (the writer also spells out defaults).
    std::ifstream in(path);
    const nlohmann::json document = nlohmann::json::parse(in);
    const nlohmann::json original = document.flatten(), flat = written.flatten();
    for (const auto& [pointer, value] : original.items()) {
      INFO(pointer);
      const nlohmann::json& at = document[nlohmann::json::json_pointer(pointer)];
      if (at.empty() && !at.is_primitive()) continue;  // an empty section: none, which the writer leaves out
      REQUIRE(flat.contains(pointer));
      if (value.is_number()) CHECK(flat[pointer].get<double>() == value.get<double>());
      else CHECK(flat[pointer] == value);
    }
    // Writing what was read back gives the same document: nothing altered on the way.
    CHECK(hardware_profile_to_json(again) == written);
    CHECK(again.name == read.name);
    CHECK(again.aliases == read.aliases);
    CHECK(again.communication.size() == read.communication.size());
    CHECK(again.compute_regression.size() == read.compute_regression.size());
    CHECK(again.reference_kernels.size() == read.reference_kernels.size());
    CHECK(again.device.step_warmth.enabled() == read.device.step_warmth.enabled());
    for (int p = 0; p < 3; ++p) CHECK(again.device.direct_conv[static_cast<std::size_t>(p)].enabled() == read.device.direct_conv[static_cast<std::size_t>(p)].enabled());

    // And it prices the same: a GEMM, a convolution in each direction, a message.
    const ProfileComputeModel before(read), after(again);
    const ConvShape c{8, 64, 56, 56, 64, 3, 3, 56, 56, 1, 1, 1, 1};
    for (const Kernel& k : {gemm_kernel(Phase::forward, {512, 768, 3072, 1, false, true}, DType::f32), conv_kernel(Phase::forward, c, DType::f32),
                            conv_kernel(Phase::backward_data, c, DType::f32), conv_kernel(Phase::backward_weight, c, DType::f32)})
      CHECK(after.seconds(k, {}) == before.seconds(k, {}));
    for (std::size_t m = 0; m < read.communication.size(); ++m)
      CHECK(comm_seconds(again.communication[m], 1e6, 2) == comm_seconds(read.communication[m], 1e6, 2));
  }
}

TEST_CASE("a profile is written whole: nothing is left half-written where the file cannot be made") {
  const HardwareProfile p = load_hardware_profile(DNNPERF_SOURCE_DIR "/data/hardware/a100-sxm4-80gb.json");
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "dnnperf-profile-writer-test";
  std::filesystem::create_directories(dir);
  const std::string target = (dir / "a100.json").string();
  write_hardware_profile(p, target);
  CHECK(load_hardware_profile(target).name == p.name);
  CHECK_FALSE(std::filesystem::exists(target + ".partial"));
  CHECK_THROWS_AS(write_hardware_profile(p, (dir / "no-such-folder" / "x.json").string()), InputError);
  CHECK(load_hardware_profile(target).name == p.name);  // the old file is untouched
  std::filesystem::remove_all(dir);
}
