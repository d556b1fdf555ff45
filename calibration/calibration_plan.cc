#include "calibration/calibration_plan.h"

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "profile/hardware_profile.h"

namespace dnnperf::calibration {
namespace {

double share(JsonObjectReader& r, const std::string& key) {
  const double v = r.real(key, std::nullopt);
  if (!(v >= 0 && v <= 1)) r.fail(key, "must be a share from 0 to 1");
  return v;
}

double seconds(JsonObjectReader& r, const std::string& key) {
  const double v = r.real(key, std::nullopt);
  if (!(v >= 0 && v < 1e6)) r.fail(key, "must be seconds from 0 to 1e6");
  return v;
}

std::vector<std::int64_t> sizes(JsonObjectReader& r, const std::string& key) {
  std::vector<std::int64_t> v = r.integers(key, true);
  for (const std::int64_t b : v)
    if (b <= 0 || b > (std::int64_t{1} << 40)) r.fail(key, "must hold buffer sizes from 1 byte to 1 TiB");
  return v;
}

std::string shape_set(JsonObjectReader& r, const std::string& key) {
  const std::string s = r.text(key);
  if (s.empty() || s.find_first_of(" '\"\\$`;|&") != std::string::npos) r.fail(key, "must name a shape set (scripts/torch_bench.py --shapes)");
  return s;
}

}  // namespace

CalibrationPlan read_calibration_plan(const std::string& path) {
  const nlohmann::json j = read_json_file(path);
  JsonObjectReader r(j, path);
  CalibrationPlan p;
  r.text("about", std::string());
  p.time_budget_s = seconds(r, "time_budget_s");
  {
    JsonObjectReader s(r.at("reserve_s"), path + ": reserve_s");
    p.fit_reserve_s = seconds(s, "fit");
    p.co_running_reserve_s = seconds(s, "co_running");
    p.composition_reserve_s = seconds(s, "composition");
    p.composition_inferences_s = seconds(s, "composition_inferences");
    p.large_batch_inferences_s = seconds(s, "large_batch_inferences");
    p.hot_pairs_reserve_s = seconds(s, "hot_pairs");
    if (p.composition_inferences_s + p.large_batch_inferences_s > p.composition_reserve_s)
      s.fail("composition_inferences", "and large_batch_inferences must fit within composition");
    s.check_unknown();
  }
  {
    JsonObjectReader m(r.at("memory"), path + ": memory");
    p.memory_sizes = sizes(m, "sizes");
    p.gpu_memory_sizes = sizes(m, "gpu_sizes");
    p.cpu_parameter_sizes = sizes(m, "cpu_parameter_sizes");
    p.memory_share = share(m, "share");
    p.memory_min_s = seconds(m, "min_s");
    m.check_unknown();
  }
  {
    JsonObjectReader c(r.at("collectives"), path + ": collectives");
    p.collectives_share = share(c, "share");
    p.collectives_min_s = seconds(c, "min_s");
    c.check_unknown();
  }
  {
    JsonObjectReader k(r.at("kernels"), path + ": kernels");
    p.max_gflop_cpu = static_cast<int>(k.integer("max_gflop_cpu", std::nullopt));
    p.max_gflop_cuda = static_cast<int>(k.integer("max_gflop_cuda", std::nullopt));
    if (p.max_gflop_cpu <= 0 || p.max_gflop_cpu > 100000) k.fail("max_gflop_cpu", "must be from 1 to 100000");
    if (p.max_gflop_cuda <= 0 || p.max_gflop_cuda > 100000) k.fail("max_gflop_cuda", "must be from 1 to 100000");
    p.sample = shape_set(k, "sample");
    p.cnn = shape_set(k, "cnn");
    p.cnn_share = share(k, "cnn_share");
    p.gemms_first = static_cast<int>(k.integer("gemms_first", std::nullopt));
    if (p.gemms_first < 0 || p.gemms_first > 100000) k.fail("gemms_first", "must be from 0 to 100000");
    p.gemms_first_share = share(k, "gemms_first_share");
    p.hot_pairs = shape_set(k, "hot_pairs");
    k.check_unknown();
  }
  const nlohmann::json& corners = r.at("corners");
  if (!corners.is_array()) r.fail("corners", "must be a list");
  for (std::size_t i = 0; i < corners.size(); ++i) {
    JsonObjectReader c(corners[i], path + ": corners[" + std::to_string(i) + "]");
    CornerSet s;
    s.set = shape_set(c, "set");
    s.what = c.text("what");
    s.file = c.text("file");
    if (s.file.empty() || s.file.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
      c.fail("file", "must be a short name of lower-case letters, digits and _");
    s.capped = c.boolean("capped", true);
    s.anchored = c.boolean("anchored", true);
    s.gflop_suffix = c.boolean("gflop_suffix", false);
    s.reserve_s = seconds(c, "reserve_s");
    c.check_unknown();
    p.corners.push_back(s);
  }
  {
    JsonObjectReader c(r.at("composition"), path + ": composition");
    p.composition_cpu_batch = static_cast<int>(c.integer("cpu_batch", std::nullopt));
    p.composition_cuda_batch = static_cast<int>(c.integer("cuda_batch", std::nullopt));
    p.large_inference_batch = static_cast<int>(c.integer("large_inference_batch", std::nullopt));
    for (const auto& [key, v] : {std::pair{"cpu_batch", p.composition_cpu_batch}, std::pair{"cuda_batch", p.composition_cuda_batch},
                                 std::pair{"large_inference_batch", p.large_inference_batch}})
      if (v <= 0 || v > 65536) c.fail(key, "must be a batch from 1 to 65536");
    c.check_unknown();
  }
  r.check_unknown();
  if (!(p.time_budget_s > p.fit_reserve_s + 30)) r.fail("time_budget_s", "must leave at least 30 s to measure beyond reserve_s.fit");
  return p;
}

std::string default_calibration_plan_path() { return (shipped_data_dir() / "calibration" / "torch.json").string(); }

}  // namespace dnnperf::calibration
