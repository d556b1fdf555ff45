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
