#include "calibration/profile_fit.h"

#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "profile/hardware_profile.h"

using namespace dnnperf;

TEST_CASE("A profile fit narrates to the stream it is given and writes a profile that reads back", "[calibration]") {
  const std::string out = (std::filesystem::temp_directory_path() / "dnnperf_profile_fit_test.json").string();
  std::filesystem::remove(out);
  calibration::FitOptions o;
  o.files = {std::string(DNNPERF_SOURCE_DIR) + "/tests/data/cpu-sample/allreduce_np2.jsonl"};
  o.hardware = "cpu";
  o.models = "hockney,dnnperf";
  o.output = out;
  std::ostringstream log;
  calibration::fit_profile_files(log, o);
  CHECK_THAT(log.str(), Catch::Contains("held-out error") && Catch::Contains("wrote " + out));
  const HardwareProfile p = load_hardware_profile(out);
  CHECK_FALSE(p.communication.empty());
  CHECK(find_comm_model(p, "allreduce", "ring") != nullptr);
}

TEST_CASE("A profile fit refuses bad options before it reads anything", "[calibration]") {
  calibration::FitOptions o;
  std::ostringstream log;
  CHECK_THROWS_WITH(calibration::fit_profile_files(log, o), Catch::Contains("no measurement files"));
  o.files = {"/nonexistent/m.jsonl"};
  o.family = "both,gemm";
  CHECK_THROWS_WITH(calibration::fit_profile_files(log, o), Catch::Contains("--family"));
  o.family = "both";
  o.time_weight = "heavy";
  CHECK_THROWS_WITH(calibration::fit_profile_files(log, o), Catch::Contains("--time-weight"));
  CHECK(log.str().empty());
}

TEST_CASE("A fit of GPU records keeps the device figures the GPU family was fitted against", "[calibration]") {
  // The analytic family's effective bandwidth and peak are figures of its own forms, and a torch
  // record's threads are the host's: written over a GPU profile they misprice every GPU kernel.
  const std::string out = (std::filesystem::temp_directory_path() / "dnnperf_profile_fit_gpu_test.json").string();
  std::filesystem::remove(out);
  calibration::FitOptions o;
  o.files = {std::string(DNNPERF_SOURCE_DIR) + "/data/measurements/h200/lease2/torch_cuda_memory.jsonl"};
  o.hardware = "h200";
  o.output = out;
  std::ostringstream log;
  calibration::fit_profile_files(log, o);
  const DeviceSpec base = find_hardware_profile("h200").device;
  const HardwareProfile p = load_hardware_profile(out);
  REQUIRE(p.device.gpu.enabled);
  CHECK(p.device.multiprocessors == base.multiprocessors);
  CHECK(p.device.memory_bandwidth == base.memory_bandwidth);
  CHECK(p.device.peak_flops.at(MathMode::fp32) == base.peak_flops.at(MathMode::fp32));
  CHECK(p.device.launch_overhead_s == base.launch_overhead_s);
}
