#include "calibration/calibration_plan.h"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/common/json_reader.h"

using namespace dnnperf;
using namespace dnnperf::calibration;

namespace {

std::string write_plan(const std::string& name, const nlohmann::json& plan) {
  const std::string path = (std::filesystem::temp_directory_path() / ("dnnperf_plan_" + name + ".json")).string();
  std::ofstream(path) << plan.dump(2);
  return path;
}

}  // namespace

TEST_CASE("The shipped calibration plan reads back with its corners and budgets", "[calibration]") {
  const CalibrationPlan p = read_calibration_plan(default_calibration_plan_path());
  CHECK(p.time_budget_s == 570);
  CHECK(p.fit_reserve_s == 80);
  CHECK(p.composition_inferences_s + p.large_batch_inferences_s <= p.composition_reserve_s);
  REQUIRE(p.corners.size() == 3);
  CHECK(p.corners[2].set == "late:180:1");
  CHECK(p.corners[2].gflop_suffix);
  CHECK_FALSE(p.corners[2].anchored);
  CHECK(p.memory_sizes.front() == 4096);
  CHECK(p.max_gflop_cuda == 200);
}

TEST_CASE("A bad calibration plan is refused naming its file and field", "[calibration]") {
  const nlohmann::json good = read_json_file(default_calibration_plan_path());
  nlohmann::json share = good;
  share["kernels"]["cnn_share"] = 1.5;
  CHECK_THROWS_WITH(read_calibration_plan(write_plan("share", share)), Catch::Contains("kernels") && Catch::Contains("cnn_share") && Catch::Contains("share from 0 to 1"));
  nlohmann::json unknown = good;
  unknown["reserve_s"]["fitt"] = 3;
  CHECK_THROWS_WITH(read_calibration_plan(write_plan("unknown", unknown)), Catch::Contains("fitt"));
  nlohmann::json shell = good;
  shell["corners"][0]["set"] = "wide:24:1; rm -rf /";
  CHECK_THROWS_WITH(read_calibration_plan(write_plan("shell", shell)), Catch::Contains("corners[0]") && Catch::Contains("set"));
  nlohmann::json tight = good;
  tight["time_budget_s"] = 90;
  CHECK_THROWS_WITH(read_calibration_plan(write_plan("tight", tight)), Catch::Contains("time_budget_s") && Catch::Contains("30 s"));
  nlohmann::json over = good;
  over["reserve_s"]["composition_inferences"] = 200;
  CHECK_THROWS_WITH(read_calibration_plan(write_plan("over", over)), Catch::Contains("composition_inferences"));
  CHECK_THROWS_AS(read_calibration_plan("/nonexistent/plan.json"), InputError);
}
