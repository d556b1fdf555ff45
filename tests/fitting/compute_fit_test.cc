// The compute families on synthetic measurements: each must recover the law that generated them.
#include <cmath>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string_view>
#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fitting/compute/compute_fit.h"
#include "models/compute/analytic_model.h"
#include "models/compute/blocked_gemm.h"
#include "models/compute/direct_conv.h"
#include "core/lowering/lower.h"

using namespace dnnperf;
using namespace dnnperf::fitting;

namespace {

/// A measurement record of host "h" on an H200, timed `seconds` (median, min and max alike);
/// `fields` (op, params, algorithm, library, layout, metrics) add to or replace the defaults.
nlohmann::json h200_record(double seconds, const nlohmann::json& fields) {
  nlohmann::json r = {{"type", "record"}, {"dtype", "f32"}, {"host", "h"}, {"status", "ok"}, {"algorithm", "torch:default"},
                      {"library", "PyTorch"}, {"library_version", "2.11"}, {"date", "2026-11-30T00:00:00Z"}, {"repetitions", 5},
                      {"layout", {{"device", "NVIDIA H200"}}},
                      {"seconds", {{"median", seconds}, {"min", seconds}, {"max", seconds}, {"stddev", 0}}}};
  r.update(fields);
  return r;
}

/// Writes a measurement file of `records` under the temporary directory, after a context line;
/// returns its path.
std::string write_measurements(const std::string& name, const std::vector<nlohmann::json>& records) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream out(path);
  out << R"({"type": "context", "schema": "dnnperf.measurements/1", "host": "h", "tool": "test"})" << "\n";
  for (const nlohmann::json& r : records) out << r.dump() << "\n";
  return path;
}

std::vector<Kernel> gemms(int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto dim = [&] { return static_cast<std::int64_t>(std::exp(std::log(16.0) + (rng() % 1000) / 1000.0 * std::log(2048.0 / 16))); };
  std::vector<Kernel> out;
  for (int i = 0; i < count; ++i) out.push_back(gemm_kernel(Phase::forward, {dim(), dim(), dim(), 1, false, false}, DType::f32));
  return out;
}

/// Adds `c`, same-padded and unstrided in its output, timed as `truth` prices it times `factor`;
/// nothing above 2 GFLOP (the calibration's cap).
void add_conv_sample(ComputeData& data, ConvShape c, Phase direction, const DirectConv& truth, double factor) {
  c.pad_h = c.pad_w = c.r / 2;
  c.p = c.q = c.h;
  const Kernel k = conv_kernel(direction, c, DType::f32);
  if (k.flops > 2e9) return;
  const char* cls = direction == Phase::forward ? "conv_forward" : direction == Phase::backward_data ? "conv_backward_data" : "conv_backward_filter";
  data.samples.push_back({k, cls, direct_conv_seconds(truth, c, direction, 4) * factor});
}

/// A memory pass of class `cls` reading `read` and writing `written` bytes, of pass family `pass`
/// (none: a plain pass).
Kernel pass_kernel(KernelClass cls, double read, double written, std::string_view pass = "") {
  Kernel k;
  k.cls = cls;
  k.bytes_read = read;
  k.bytes_written = written;
  k.pass = pass;
  return k;
}

/// The generic CPU with plain passes at `bandwidth` after a 2 us launch, slowing by up to
/// `dram_slowdown` past a cache of `cache_bytes`.
DeviceSpec cpu_with_memory(double bandwidth, double cache_bytes, double dram_slowdown) {
  DeviceSpec d = find_hardware_profile("cpu").device;
  d.memory_bandwidth = bandwidth;
  d.launch_overhead_s = 2e-6;
  d.memory = {.max_efficiency = 1.0, .half_efficiency_bytes = 2e4, .cache_bytes = cache_bytes, .dram_slowdown = dram_slowdown};
  return d;
}

}  // namespace

TEST_CASE("The regression family recovers a power law and reports honest held-out errors", "[fitting][compute]") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.03);
  std::vector<ComputeSample> samples;
  for (const Kernel& k : gemms(150, 1))  // t = 2e-11 flops^0.95 k^-0.1, with 3% noise
    samples.push_back({k, "gemm", 2e-11 * std::pow(k.flops, 0.95) * std::pow(static_cast<double>(k.gemm.k), -0.1) * std::exp(noise(rng))});
  const RegressionFit f = fit_regression("gemm", samples);
  REQUIRE(f.converged);
  CHECK(f.held_out.count == 3 * 150);  // each shape held out once in each of three shuffles
  CHECK(f.held_out.mape < 4.0);
  CHECK(f.held_out.coverage > 0.85);
  CHECK(std::find(f.model.features.begin(), f.model.features.end(), "log_k") != f.model.features.end());
  CHECK_FALSE(fit_regression("conv_forward", samples).converged);  // no convolution measurements
}

TEST_CASE("The analytic family recovers the device's effective peak and launch overhead", "[fitting][compute]") {
  DeviceSpec truth = find_hardware_profile("cpu").device;
  truth.multiprocessors = 1;
  truth.peak_flops[MathMode::fp32] = 50e9;
  truth.launch_overhead_s = 8e-6;
  truth.gemm.max_efficiency = 1.0;
  const AnalyticComputeModel model(truth);
  ComputeData data;
  data.threads = 1;
  for (const Kernel& k : gemms(80, 2)) data.samples.push_back({k, "gemm", model.seconds(k, {})});
  DeviceSpec start = find_hardware_profile("cpu").device;
  const AnalyticFit f = fit_analytic(start, data);
  REQUIRE(f.converged);
  CHECK(f.device.peak_flops.at(MathMode::fp32) == Approx(50e9).epsilon(0.02));
  CHECK(f.device.launch_overhead_s == Approx(8e-6).epsilon(0.1));
  REQUIRE(f.held_out.size() == 1);
  CHECK(f.held_out[0].second.mape < 1.0);
}

TEST_CASE("The analytic family recovers a cache's size and slowdown, and each pass family's efficiency", "[fitting][compute]") {
  DeviceSpec truth = cpu_with_memory(150e9, 16e6, 3);
  truth.passes["max_pool"] = {.max_efficiency = 0.02, .half_efficiency_bytes = 5e4, .cache_bytes = 16e6, .dram_slowdown = 3};
  const AnalyticComputeModel model(truth);
  ComputeData data;
  for (double bytes = 4096; bytes <= 1.1e9; bytes *= 2) {
    const Kernel copy = pass_kernel(KernelClass::copy, bytes, bytes);
    const Kernel pool = pass_kernel(KernelClass::reduction, bytes, 0.75 * bytes, "max_pool");
    data.samples.push_back({copy, "memory", model.seconds(copy, {})});
    data.samples.push_back({pool, "pass:max_pool", model.seconds(pool, {})});
  }
  const AnalyticFit f = fit_analytic(find_hardware_profile("cpu").device, data);
  INFO(f.message);
  CHECK(f.device.memory_bandwidth == Approx(150e9).epsilon(0.05));
  CHECK(f.device.memory.cache_bytes == Approx(16e6).epsilon(0.1));
  CHECK(f.device.memory.dram_slowdown == Approx(3).epsilon(0.05));
  REQUIRE(f.device.passes.count("max_pool") == 1);
  CHECK(f.device.passes.at("max_pool").max_efficiency == Approx(0.02).epsilon(0.05));
  CHECK(f.device.passes.at("max_pool").operation_s == 0.0);  // one window per byte measured: the efficiency holds the windows
  REQUIRE(f.held_out.size() == 2);
  for (const auto& [cls, e] : f.held_out) {
    INFO(cls);
    CHECK(e.mape < 2.0);
  }
}

TEST_CASE("A pass family measured beyond the cache gets its own slowdown there; one measured inside keeps the plain passes'", "[fitting][compute]") {
  DeviceSpec truth = cpu_with_memory(100e9, 32e6, 5);
  // SGD's scaled add runs at 60% of a copy's rate in the cache and about as fast from DRAM.
  truth.passes["sgd"] = {.max_efficiency = 0.6, .half_efficiency_bytes = 5e4, .cache_bytes = 32e6, .dram_slowdown = 1.8};
  truth.passes["softmax"] = {.max_efficiency = 0.1, .half_efficiency_bytes = 5e4, .cache_bytes = 32e6, .dram_slowdown = 5};
  const AnalyticComputeModel model(truth);
  ComputeData data;
  for (double bytes = 4096; bytes <= 300e6; bytes *= 4) {
    const Kernel copy = pass_kernel(KernelClass::copy, bytes, bytes);
    const Kernel sgd = pass_kernel(KernelClass::elementwise, 2 * bytes, bytes, "sgd");
    const Kernel softmax = pass_kernel(KernelClass::reduction, bytes, bytes, "softmax");
    data.samples.push_back({copy, "memory", model.seconds(copy, {})});
    data.samples.push_back({sgd, "pass:sgd", model.seconds(sgd, {})});
    if (bytes < 4e6) data.samples.push_back({softmax, "pass:softmax", model.seconds(softmax, {})});
  }
  const AnalyticFit f = fit_analytic(find_hardware_profile("cpu").device, data);
  INFO(f.message);
  CHECK(f.device.memory.dram_slowdown == Approx(5).epsilon(0.05));
  REQUIRE(f.device.passes.count("sgd") == 1);
  CHECK(f.device.passes.at("sgd").dram_slowdown == Approx(1.8).epsilon(0.05));
  CHECK(f.device.passes.at("sgd").max_efficiency == Approx(0.6).epsilon(0.05));
  REQUIRE(f.device.passes.count("softmax") == 1);
  CHECK(f.device.passes.at("softmax").dram_slowdown == f.device.memory.dram_slowdown);
  // The parameter set of a large network: priced at its own slowdown, not the copy's.
  const Kernel update = pass_kernel(KernelClass::elementwise, 2 * 500e6, 500e6, "sgd");
  CHECK(AnalyticComputeModel(f.device).seconds(update, {}) == Approx(model.seconds(update, {})).epsilon(0.05));
}

TEST_CASE("Shape features tell pointwise and depthwise convolutions from the rest", "[fitting][compute]") {
  const auto conv = [](std::int64_t c, std::int64_t k, std::int64_t r, std::int64_t stride, std::int64_t groups) {
    ConvShape s;
    s.n = 4, s.c = c, s.h = s.w = 8, s.k = k, s.r = s.s = r, s.stride_h = s.stride_w = stride, s.pad_h = s.pad_w = r / 2, s.groups = groups;
    s.p = (s.h + 2 * s.pad_h - r) / stride + 1, s.q = s.p;
    return conv_kernel(Phase::forward, s, DType::f32);
  };
  CHECK(regression_feature(conv(64, 128, 1, 1, 1), "pointwise") == 1.0);
  CHECK(regression_feature(conv(64, 128, 1, 2, 1), "pointwise") == 0.0);  // strided: a gather first
  CHECK(regression_feature(conv(64, 128, 3, 1, 1), "pointwise") == 0.0);
  CHECK(regression_feature(conv(64, 64, 3, 1, 64), "depthwise") == 1.0);
  CHECK(regression_feature(conv(64, 128, 3, 1, 1), "depthwise") == 0.0);
  const Kernel g = gemm_kernel(Phase::forward, {64, 64, 64, 1, false, false}, DType::f32);
  CHECK(regression_feature(g, "pointwise") == 0.0);
  CHECK(regression_feature(g, "depthwise") == 0.0);
}

TEST_CASE("The shared part of held-out errors is told from each kernel's own", "[fitting][compute]") {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> family_shift(0.0, 0.3), own(0.0, 0.2);
  std::vector<std::pair<std::string, double>> shared, independent;
  for (int f = 0; f < 60; ++f) {
    const double shift = family_shift(rng);
    for (int i = 0; i < 3 + f % 8; ++i) {
      shared.emplace_back("family " + std::to_string(f), shift + own(rng));
      independent.emplace_back("family " + std::to_string(f), own(rng));
    }
  }
  CHECK(shared_log_sigma(shared) == Approx(0.3).margin(0.07));
  CHECK(shared_log_sigma(independent) < 0.07);
  CHECK(shared_log_sigma({{"one", 0.5}, {"one", -0.5}}) == 0.0);  // one family: nothing to compare
}

TEST_CASE("Regression features see vector lanes, images and PyTorch's small-batch 1x1 path", "[fitting][compute]") {
  const auto conv = [](std::int64_t n, std::int64_t c, std::int64_t k, std::int64_t r) {
    ConvShape s;
    s.n = n, s.c = c, s.h = s.w = 8, s.k = k, s.r = s.s = r, s.pad_h = s.pad_w = r / 2;
    s.p = s.q = 8;
    return conv_kernel(Phase::forward, s, DType::f32);
  };
  CHECK(regression_feature(conv(4, 64, 128, 3), "in_lane_fill") == 0.0);
  CHECK(regression_feature(conv(4, 3, 128, 3), "in_lane_fill") == Approx(std::log(3.0 / 16)));
  CHECK(regression_feature(conv(4, 64, 24, 3), "out_lane_fill") == Approx(std::log(24.0 / 32)));
  CHECK(regression_feature(conv(4, 64, 24, 3), "log_image") == Approx(std::log(64.0)));
  CHECK(regression_feature(conv(4, 64, 128, 1), "small_batch_pointwise") == 1.0);
  CHECK(regression_feature(conv(16, 64, 128, 1), "small_batch_pointwise") == 0.0);
  CHECK(regression_feature(conv(4, 64, 128, 3), "small_batch_pointwise") == 0.0);
}

TEST_CASE("Regression features see cache blocks, row alignment and second-order size terms", "[fitting][compute]") {
  const Kernel g = gemm_kernel(Phase::forward, {100, 50, 9215, 1, false, true}, DType::f32);
  CHECK(regression_feature(g, "n_block_remainder", 48) == Approx(2.0 / 50));
  CHECK(regression_feature(g, "k_block_remainder", 48) == Approx(47.0 / 9215));
  CHECK(regression_feature(g, "m_block_remainder", 48) == Approx(4.0 / 100));
  CHECK(regression_feature(g, "nk_block_remainder", 48) == Approx(2.0 / 50 * 47.0 / 9215));
  CHECK(regression_feature(g, "n_block_remainder") == 0.0);  // no blocking chosen: no such term
  CHECK(regression_feature(gemm_kernel(Phase::forward, {100, 40, 64, 1, false, false}, DType::f32), "n_block_remainder", 48) == 1.0);
  CHECK(regression_feature(g, "k_misaligned") == 1.0);  // 9215 floats: rows end off 16 bytes
  CHECK(regression_feature(g, "n_misaligned") == 1.0);  // 50 floats: 200 bytes
  CHECK(regression_feature(gemm_kernel(Phase::forward, {100, 52, 8, 1, false, false}, DType::f32), "n_misaligned") == 0.0);
  CHECK(regression_feature(gemm_kernel(Phase::forward, {100, 50, 8, 1, false, false}, DType::f16), "n_misaligned") == 1.0);  // 8 halves per 16 bytes
  CHECK(regression_feature(g, "log_m_log_n") == Approx(std::log(100.0) * std::log(50.0) / 10));
  CHECK(is_blocking_feature("nk_block_remainder"));
  CHECK_FALSE(is_blocking_feature("k_misaligned"));
}

TEST_CASE("The regression finds a library's blocking factor from the clean-up code's cost", "[fitting][compute]") {
  // A BLAS that runs whole blocks of 48 columns at full rate and the rest at a third of it.
  std::mt19937_64 rng(9);
  std::normal_distribution<double> noise(0.0, 0.03);
  std::vector<ComputeSample> samples;
  for (const Kernel& k : gemms(240, 3)) {
    const double rest = static_cast<double>(k.gemm.n % 48) / static_cast<double>(k.gemm.n);
    samples.push_back({k, "gemm", 2e-11 * k.flops * (1 - rest + 3 * rest) * std::exp(noise(rng))});
  }
  const RegressionFit f = fit_regression("gemm", samples);
  REQUIRE(f.converged);
  CHECK(f.model.blocking == 48);
  CHECK(std::find(f.model.features.begin(), f.model.features.end(), "n_block_remainder") != f.model.features.end());
  CHECK(f.held_out.mape < 6.0);
}

TEST_CASE("The analytic family finds a BLAS's cache blocks, vector width and packing costs", "[fitting][compute]") {
  BlockedGemm truth;
  truth.block = 32, truth.vector_width = 4, truth.block_flops = 40e9;
  truth.partial_efficiency = {0.6, 0.5, 0.9, 0.7, 0.6, 0.5, 0.4};
  truth.misaligned_slowdown = {1.0, 3.0, 2.5};
  truth.cleanup_width = {0, 6, 0};  // n leftovers of 6, 18 or 30 run vectorised too
  truth.operand_bandwidth = 8e9, truth.long_row_bytes = 8192, truth.long_row_slowdown = {1.2, 1.05, 1.5, 2.5};
  truth.layout_packing = {1, 1, 1.6, 1};  // B stored [k, n] packs slower, as on the dev VM
  truth.output_bandwidth = 12e9, truth.call_overhead_s = 10e-6;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> noise(0.0, 0.02);
  const auto dim = [&] { return static_cast<std::int64_t>(std::exp(std::log(2.0) + (rng() % 1000) / 1000.0 * std::log(4000.0 / 2))); };
  ComputeData data;
  data.threads = 1;
  while (data.samples.size() < 400) {
    const GemmShape g{dim(), dim(), dim(), 1, rng() % 2 == 0, rng() % 2 == 0};
    if (2.0 * g.m * g.n * g.k > 2e9) continue;
    const Kernel k = gemm_kernel(Phase::forward, g, DType::f32);
    data.samples.push_back({k, "gemm", blocked_gemm_seconds(truth, g, 4) * std::exp(noise(rng))});
  }
  const AnalyticFit f = fit_analytic(find_hardware_profile("cpu").device, data);
  const BlockedGemm& b = f.device.blocked_gemm;
  REQUIRE(b.enabled());  // kept: it predicts the held-out GEMMs better than any tiling
  CHECK(b.block == 32);
  CHECK(b.vector_width == 4);
  CHECK(b.cleanup_width == std::array<std::int64_t, 3>{0, 6, 0});
  CHECK(b.block_flops == Approx(40e9).epsilon(0.05));
  CHECK(b.misaligned_slowdown[1] == Approx(3.0).epsilon(0.15));
  INFO("long rows from " << b.long_row_bytes << " bytes: " << b.long_row_slowdown[0] << " " << b.long_row_slowdown[1] << " " << b.long_row_slowdown[2] << " " << b.long_row_slowdown[3] );
  CHECK(b.long_row_slowdown[3] == Approx(2.5).epsilon(0.15));
  CHECK(b.layout_packing[2] == Approx(1.6).epsilon(0.15));
  CHECK(b.layout_packing[1] == Approx(1.0).epsilon(0.15));
  REQUIRE(f.choices.size() == 1);
  CHECK(f.choices[0].kernel_class == "gemm");
  CHECK(f.choices[0].kept);
  CHECK(f.choices[0].structural.mape < 4.0);  // 2% noise
  CHECK(f.choices[0].structural.mape < f.choices[0].tiled.mape / 3);
  // Data a tiled GPU GEMM made (no blocks, no clean-up) keep the tiles.
  DeviceSpec gpu = find_hardware_profile("cpu").device;
  gpu.multiprocessors = 1, gpu.peak_flops[MathMode::fp32] = 50e9, gpu.launch_overhead_s = 8e-6, gpu.gemm.max_efficiency = 1.0;
  const AnalyticComputeModel tiled(gpu);
  ComputeData smooth;
  smooth.threads = 1;
  for (const Kernel& k : gemms(80, 2)) smooth.samples.push_back({k, "gemm", tiled.seconds(k, {})});
  CHECK_FALSE(fit_analytic(gpu, smooth).device.blocked_gemm.enabled());
}

TEST_CASE("The analytic family fits how sharp the large-output edge is, and where large operands pack slower", "[fitting][compute]") {
  // Outputs written at one rate up to ~100 MB and 4x slower beyond within a few percent of size
  // (fresh pages on the dev VM: 80 MB at 7 GB/s, 150 MB at 2 GB/s). A gentle edge fixed at
  // exponent 4 prices both sides wrong; the fitted one follows.
  BlockedGemm truth;
  truth.block = 32, truth.vector_width = 4, truth.block_flops = 40e9;
  truth.partial_efficiency = {0.6, 0.5, 0.9, 0.7, 0.6, 0.5, 0.4};
  truth.misaligned_slowdown = {1.0, 2.0, 2.0};
  truth.operand_bandwidth = 8e9, truth.long_row_bytes = 8192, truth.long_row_slowdown = {1.2, 1.05, 1.5, 2.5};
  truth.output_bandwidth = 10e9, truth.large_output_bytes = 1e8, truth.large_output_slowdown = 4, truth.large_output_steepness = 40;
  // And operands beyond 50 MB pack 2x slower (from memory): what a batch-4 classifier's
  // weights, streamed by a GEMM of 4 rows, show.
  truth.large_operand_bytes = 5e7, truth.large_operand_slowdown = 2.0;
  truth.call_overhead_s = 10e-6;
  std::mt19937_64 rng(21);
  std::normal_distribution<double> noise(0.0, 0.02);
  const auto log_uniform = [&](double low, double high) {
    return static_cast<std::int64_t>(std::exp(std::log(low) + (rng() % 1000) / 1000.0 * std::log(high / low)));
  };
  ComputeData data;
  data.threads = 1;
  while (data.samples.size() < 600) {
    // A third each: ordinary GEMMs, thin ones (k up to 8) with outputs of 10-400 MB, and ones of
    // up to 8 rows streaming B of 1-400 MB.
    const std::size_t kind = data.samples.size() % 3;
    GemmShape g{log_uniform(2, 4000), log_uniform(2, 4000), log_uniform(2, 4000), 1, rng() % 2 == 0, rng() % 2 == 0};
    if (kind == 1) g.m = log_uniform(500, 20000), g.k = log_uniform(1, 9), g.n = log_uniform(2.5e6, 1e8) / g.m;
    if (kind == 2) g.m = log_uniform(1, 9), g.k = log_uniform(200, 20000), g.n = log_uniform(2.5e5, 1e8) / g.k;
    if (g.n < 1 || 2.0 * g.m * g.n * g.k > 2e9) continue;
    data.samples.push_back({gemm_kernel(Phase::forward, g, DType::f32), "gemm", blocked_gemm_seconds(truth, g, 4) * std::exp(noise(rng))});
  }
  const BlockedGemm b = fit_analytic(find_hardware_profile("cpu").device, data).device.blocked_gemm;
  REQUIRE(b.enabled());
  INFO("edge at " << b.large_output_bytes << " bytes, slowdown " << b.large_output_slowdown << ", steepness " << b.large_output_steepness);
  CHECK(b.large_output_steepness > 16);
  CHECK(b.large_output_bytes == Approx(1e8).epsilon(0.1));
  INFO("operands from " << b.large_operand_bytes << " bytes " << b.large_operand_slowdown << "x slower");
  CHECK(b.large_operand_bytes == Approx(5e7).epsilon(0.25));
  CHECK(b.large_operand_slowdown == Approx(2.0).epsilon(0.15));
  // Just below and just above the edge: 4096 x 5000 and 4096 x 7000 outputs, k = 4.
  for (const std::int64_t n : {5000, 7000}) {
    const GemmShape g{4096, n, 4, 1, true, false};
    CHECK(blocked_gemm_seconds(b, g, 4) == Approx(blocked_gemm_seconds(truth, g, 4)).epsilon(0.1));
  }
}

TEST_CASE("The analytic family finds a convolution library's lanes, paths and traffic", "[fitting][compute]") {
  DirectConv truth;
  truth.lanes = 8, truth.rate = {60e9, 45e9, 20e9, 4e9}, truth.input_fill_exponent = 1.0, truth.output_fill_exponent = 0.5;
  truth.window_exponent = 0.1, truth.input_bandwidth = {8e9, 6e9, 4e9, 3e9}, truth.weight_bandwidth = 10e9;
  truth.output_bandwidth = {6e9, 5e9, 3e9, 2e9}, truth.call_overhead_s = 5e-6;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0.0, 0.02);
  const auto pick = [&](std::initializer_list<std::int64_t> v) { return *(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size())); };
  ComputeData data;
  data.threads = 1;
  while (data.samples.size() < 240) {
    ConvShape c;
    c.n = pick({1, 2, 4, 8, 16, 32});
    c.c = pick({3, 12, 16, 24, 37, 64, 96, 128, 256});
    c.k = pick({8, 16, 20, 32, 64, 100, 128, 256});
    c.h = c.w = pick({7, 14, 28, 56});
    c.r = c.s = pick({1, 3, 5});
    c.stride_h = c.stride_w = pick({1, 2});
    if (rng() % 6 == 0) c.k = c.c, c.groups = c.c, c.r = c.s = 3;
    c.pad_h = c.pad_w = c.r / 2;
    c.p = (c.h + 2 * c.pad_h - c.r) / c.stride_h + 1, c.q = c.p;
    const Kernel k = conv_kernel(Phase::forward, c, DType::f32);
    if (k.flops > 2e9) continue;
    data.samples.push_back({k, "conv_forward", direct_conv_seconds(truth, c, Phase::forward, 4) * std::exp(noise(rng))});
  }
  const AnalyticFit f = fit_analytic(find_hardware_profile("cpu").device, data);
  const DirectConv& d = f.device.direct_conv[static_cast<int>(Phase::forward)];
  REQUIRE(d.enabled());
  CHECK(d.lanes == 8);
  CHECK(d.rate[0] == Approx(60e9).epsilon(0.15));
  CHECK(d.input_fill_exponent == Approx(1.0).margin(0.2));
  REQUIRE(f.choices.size() == 1);
  CHECK(f.choices[0].kernel_class == "conv_forward");
  CHECK(f.choices[0].kept);
  CHECK(f.choices[0].structural.mape < 4.0);  // 2% noise
  CHECK(f.choices[0].structural.mape < f.choices[0].tiled.mape / 3);
  CHECK_FALSE(f.device.direct_conv[static_cast<int>(Phase::backward_data)].enabled());  // no such measurements
  // As few as `dnnperf calibrate` times of a direction in its 10 minutes (~120 weight gradients):
  // every fold still fits the model (three measurements per parameter every fit has; the native
  // path's optional terms ask for their own), where a fold without it would price its held-out
  // kernels by the tiles, 10x off.
  ComputeData small = data;
  small.samples.resize(125);
  const AnalyticFit few = fit_analytic(find_hardware_profile("cpu").device, small);
  REQUIRE(few.choices.size() == 1);
  CHECK(few.choices[0].kept);
  CHECK(few.choices[0].structural.mape < 6.0);
  CHECK(few.choices[0].folds_without == 0);
  // Fewer still: enough for a fit of all of them, too few in every fold, and the report says so.
  small.samples.resize(100);
  const AnalyticFit fewer = fit_analytic(find_hardware_profile("cpu").device, small);
  REQUIRE(fewer.choices.size() == 1);
  CHECK(fewer.choices[0].folds_without == 5);
  CHECK(fewer.too_few.empty());
  // Fewer than the model needs at all: no model, and said.
  small.samples.resize(80);
  const AnalyticFit fewest = fit_analytic(find_hardware_profile("cpu").device, small);
  CHECK_FALSE(fewest.device.direct_conv[static_cast<int>(Phase::forward)].enabled());
  REQUIRE(fewest.too_few.size() == 1);
  CHECK_THAT(fewest.too_few[0], Catch::Contains("conv_forward: direct model not fitted: 80 measurements, it needs 96"));
}

TEST_CASE("The analytic family prices oneDNN's im2col fallback for the weight gradients that take it", "[fitting][compute]") {
  DirectConv truth;
  truth.lanes = 16, truth.rate = {60e9, 45e9, 20e9, 4e9, 3e9}, truth.input_fill_exponent = 1.0, truth.output_fill_exponent = 0.5;
  truth.input_bandwidth = {8e9, 6e9, 4e9, 3e9, 2e9}, truth.weight_bandwidth = 10e9;
  truth.output_bandwidth = {6e9, 5e9, 3e9, 2e9, 2e9}, truth.call_overhead_s = 5e-6, truth.image_call_s = 2e-7, truth.gemm_path = true;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.02);
  const auto pick = [&](std::initializer_list<std::int64_t> v) { return *(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size())); };
  const auto data_with = [&](int depthwise_wide) {
    ComputeData data;
    data.threads = 1;
    int wide = 0;
    while (data.samples.size() < 240) {
      ConvShape c;
      c.n = pick({1, 2, 4, 8, 16});
      c.c = c.k = pick({16, 32, 64, 96, 128, 256});
      c.h = c.w = pick({7, 14, 28, 56});
      c.r = c.s = 3;
      if (rng() % 3 == 0) {
        c.groups = c.c;
        if (wide < depthwise_wide) c.r = c.s = pick({5, 7}), ++wide;  // 5x5 and 7x7: oneDNN's im2col and GEMM
      }
      add_conv_sample(data, c, Phase::backward_weight, truth, std::exp(noise(rng)));
    }
    return data;
  };
  const AnalyticFit f = fit_analytic(find_hardware_profile("cpu").device, data_with(40));
  const DirectConv& d = f.device.direct_conv[static_cast<int>(Phase::backward_weight)];
  REQUIRE(d.enabled());
  CHECK(d.gemm_path);
  // The per-call cost and the rate trade off a little against each other; the times they give do not.
  CHECK(d.image_call_s == Approx(2e-7).epsilon(0.5));
  for (const auto& [n, channels, side] : {std::tuple{1, 16, 7}, std::tuple{16, 256, 28}}) {  // calls, then unfolded elements
    ConvShape c;
    c.n = n, c.c = c.k = c.groups = channels, c.h = c.w = c.p = c.q = side, c.r = c.s = 7, c.pad_h = c.pad_w = 3;
    CHECK(direct_conv_seconds(d, c, Phase::backward_weight, 4) == Approx(direct_conv_seconds(truth, c, Phase::backward_weight, 4)).epsilon(0.1));
  }
  REQUIRE(f.choices.size() == 1);
  CHECK(f.choices[0].structural.mape < 4.0);  // 2% noise
  // Too few such shapes to fit the path's own parameters: priced as depthwise, no path of its own.
  const AnalyticFit few = fit_analytic(find_hardware_profile("cpu").device, data_with(5));
  CHECK_FALSE(few.device.direct_conv[static_cast<int>(Phase::backward_weight)].gemm_path);
}

TEST_CASE("The analytic family prices the native path's GEMM columns by the BLAS's blocks and vectors", "[fitting][compute]") {
  // The BLAS: blocks of 16, vectors of 4; its GEMMs are what tells the fit so.
  BlockedGemm blas;
  blas.block = 16, blas.vector_width = 4, blas.block_flops = 40e9;
  blas.partial_efficiency = {0.6, 0.5, 0.9, 0.7, 0.6, 0.5, 0.4};
  blas.misaligned_slowdown = {1.0, 3.0, 2.5};
  blas.operand_bandwidth = 8e9, blas.output_bandwidth = 12e9, blas.call_overhead_s = 10e-6;
  DirectConv truth;
  truth.lanes = 16, truth.rate = {60e9, 45e9, 30e9, 4e9}, truth.input_fill_exponent = 1.0, truth.output_fill_exponent = 0.5;
  truth.input_bandwidth = {8e9, 6e9, 4e9, 3e9}, truth.weight_bandwidth = 10e9, truth.output_bandwidth = {6e9, 5e9, 3e9, 2e9};
  truth.call_overhead_s = 5e-6, truth.image_call_s = 2e-7;
  truth.native_column_block = 16, truth.native_column_vector = 4;
  truth.native_leftover_columns = 8, truth.native_misaligned_slowdown = 3;
  truth.native_call_overhead_s = 2e-6;  // PyTorch's own code: no oneDNN primitive to call
  std::mt19937_64 rng(13);
  std::normal_distribution<double> noise(0.0, 0.02);
  const auto pick = [&](std::initializer_list<std::int64_t> v) { return *(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size())); };
  const auto dim = [&] { return static_cast<std::int64_t>(std::exp(std::log(2.0) + (rng() % 1000) / 1000.0 * std::log(2000.0 / 2))); };
  const auto data_with = [&](bool leftovers) {
    ComputeData data;
    data.threads = 1;
    while (data.samples.size() < 300) {
      const GemmShape g{dim(), dim(), dim(), 1, rng() % 2 == 0, rng() % 2 == 0};
      if (2.0 * g.m * g.n * g.k > 1e9) continue;
      data.samples.push_back({gemm_kernel(Phase::forward, g, DType::f32), "gemm", blocked_gemm_seconds(blas, g, 4) * std::exp(noise(rng))});
    }
    while (data.samples.size() < 540) {
      ConvShape c;
      c.n = pick({1, 2, 4, 8, 16, 32});
      c.c = pick({16, 32, 64, 128, 256, 512});
      c.k = pick({16, 32, 64, 128, 256, 512});
      // Sides 1, 3, 5, 7 and 9 leave 1, 9, 9, 1 and 1 columns past blocks of 16 (misaligned); 2, 6
      // and 10 leave 4 (whole vectors); 4, 8, 12 and 16 none.
      c.h = c.w = leftovers ? pick({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16}) : pick({4, 8, 12, 16});
      c.r = c.s = pick({1, 1, 3});
      add_conv_sample(data, c, Phase::forward, truth, std::exp(noise(rng)));
    }
    return data;
  };
  const AnalyticFit f = fit_analytic(find_hardware_profile("cpu").device, data_with(true));
  REQUIRE(f.device.blocked_gemm.enabled());
  const DirectConv& d = f.device.direct_conv[static_cast<int>(Phase::forward)];
  REQUIRE(d.enabled());
  CHECK(d.native_column_block == 16);
  CHECK(d.native_column_vector == 4);
  CHECK(d.native_misaligned_slowdown == Approx(3.0).epsilon(0.2));
  CHECK(d.native_call_overhead_s == Approx(2e-6).epsilon(0.3));
  CHECK(d.call_overhead_s == Approx(5e-6).epsilon(0.3));
  // A batch-4 1x1 layer over 3x3 images (9 columns, scalar) against the same over 4x4 (16, one block).
  for (const std::int64_t side : {3, 4}) {
    ConvShape c;
    c.n = 4, c.c = c.k = 512, c.h = c.w = c.p = c.q = side, c.r = c.s = 1;
    CHECK(direct_conv_seconds(d, c, Phase::forward, 4) == Approx(direct_conv_seconds(truth, c, Phase::forward, 4)).epsilon(0.1));
  }
  // Native layers whose columns fill whole blocks say nothing about leftovers: no term.
  CHECK(fit_analytic(find_hardware_profile("cpu").device, data_with(false)).device.direct_conv[0].native_column_block == 0);
}

TEST_CASE("A GPU backend's host dispatch times are kept per kernel class, and few-channel batch norms only for them", "[fitting][compute]") {
  const auto record = [](const std::string& op, const nlohmann::json& params, double seconds, double dispatch, const nlohmann::json& layout) {
    return h200_record(seconds, {{"op", op}, {"params", params}, {"layout", layout}, {"metrics", {{"dispatch_s", dispatch}}}});
  };
  const nlohmann::json h200 = {{"device", "NVIDIA H200"}}, wide = {{"device", "NVIDIA H200"}, {"pass_channels", 256}};
  const auto gemm = [](int m) { return nlohmann::json{{"m", m}, {"n", 64}, {"k", 64}, {"batch", 1}, {"trans_a", false}, {"trans_b", false}}; };
  const std::string path = write_measurements("dnnperf_dispatch_test.jsonl", {
      record("gemm", gemm(64), 5e-6, 12e-6, h200), record("gemm", gemm(128), 6e-6, 20e-6, h200), record("gemm", gemm(256), 7e-6, 14e-6, h200),
      record("memory_batch_norm", {{"bytes", 1048576}}, 40e-6, 60e-6, h200),  // 16 channels: its time says nothing of a network's
      record("memory_batch_norm", {{"bytes", 4194304}}, 20e-6, 62e-6, wide)});
  const ComputeData d = load_compute_data({path});
  REQUIRE(d.dispatch_seconds.count("gemm"));
  CHECK(d.dispatch_seconds.at("gemm").size() == 3);
  CHECK(d.dispatch_seconds.at("pass:batch_norm").size() == 2);  // both dispatch times
  CHECK(d.samples.size() == 4);                                   // one batch norm's time excluded
  REQUIRE(d.excluded.size() == 1);
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("training batch norm on a GPU over an image of few channels"));
  CHECK_THAT(d.excluded[0].where, Catch::Contains("record 4"));
  std::filesystem::remove(path);
}

TEST_CASE("Batch norm records over images count their runs; inference batch norm is its own family", "[fitting][compute]") {
  const nlohmann::json cpu = {{"device", "cpu"}};
  const std::string path = write_measurements("dnnperf_bn_inference_test.jsonl", {
      h200_record(9.6e-4, {{"op", "memory_batch_norm_inference"}, {"params", {{"bytes", 32 * 2048 * 4 * 4}, {"batch", 32}, {"channels", 2048}}}, {"layout", cpu}}),
      h200_record(1.9e-4, {{"op", "memory_batch_norm_inference"}, {"params", {{"bytes", 32 * 1024 * 16 * 4}, {"batch", 32}, {"channels", 1024}}}, {"layout", cpu}}),
      h200_record(1.5e-3, {{"op", "memory_batch_norm"}, {"params", {{"bytes", 32 * 2048 * 4 * 4}, {"batch", 32}, {"channels", 2048}}}, {"layout", cpu}})});
  const ComputeData d = load_compute_data({path});
  REQUIRE(d.samples.size() == 3);
  CHECK(d.samples[0].kernel_class == "pass:batch_norm_inference");
  CHECK(d.samples[0].kernel.run_elements == 4);  // 2x2 images: every element in a short run
  CHECK(short_run_elements(d.samples[0].kernel) == 32 * 2048 * 4);
  CHECK(d.samples[0].kernel.bytes_read == d.samples[0].kernel.bytes_written);
  CHECK(d.samples[1].kernel.run_elements == 16);
  CHECK(short_run_elements(d.samples[1].kernel) == 0);  // 4x4: runs of two vectors
  CHECK(d.samples[2].kernel_class == "pass:batch_norm");
  std::filesystem::remove(path);
}

TEST_CASE("PyTorch's TF32 switch for cuDNN, read from a run's context, says how fp32 convolutions ran; the other way is excluded", "[fitting][compute]") {
  const auto conv = [](int k, const std::string& device) {
    return h200_record(1e-4, {{"op", "conv_forward"}, {"layout", {{"device", device}}},
                              {"params", {{"n", 8}, {"c", 64}, {"h", 16}, {"w", 16}, {"k", k}, {"r", 3}, {"s", 3}, {"pad_h", 1}, {"pad_w", 1},
                                          {"stride_h", 1}, {"stride_w", 1}, {"dilation_h", 1}, {"dilation_w", 1}, {"groups", 1}}}});
  };
  const auto file = [&](const std::string& name, const char* tf32, const std::string& device, int k) {
    const std::string path = (std::filesystem::temp_directory_path() / name).string();
    std::ofstream out(path);
    out << R"({"type": "context", "schema": "dnnperf.measurements/1", "host": "h", "tool": "test", "libraries": {"torch": "2.11", "tf32": {"matmul": false, "cudnn": )"
        << tf32 << "}}}\n" << conv(k, device).dump() << "\n" << conv(k + 1, device).dump() << "\n";
    return path;
  };
  const std::string on = file("dnnperf_tf32_on.jsonl", "true", "NVIDIA H200", 64), off = file("dnnperf_tf32_off.jsonl", "false", "NVIDIA H200", 96);
  const ComputeData both = load_compute_data({on, off});
  REQUIRE(both.fp32_conv_tf32);
  CHECK(*both.fp32_conv_tf32);
  CHECK(both.samples.size() == 2);
  REQUIRE(both.excluded.size() == 2);
  CHECK_THAT(both.excluded[0].reason, Catch::Contains("TF32 math off, the fit's first ones with it on"));
  CHECK_THAT(both.excluded[0].where, Catch::Contains("dnnperf_tf32_off.jsonl record 1"));
  CHECK_FALSE(*load_compute_data({off}).fp32_conv_tf32);
  // The switch means nothing on a CPU; files without it (the C++ benchmarks') ran fp32.
  const std::string cpu = file("dnnperf_tf32_cpu.jsonl", "true", "cpu", 64);
  CHECK_FALSE(*load_compute_data({cpu}).fp32_conv_tf32);
  CHECK_FALSE(*load_compute_data({write_measurements("dnnperf_tf32_none.jsonl", {conv(64, "NVIDIA H200")})}).fp32_conv_tf32);
  // PyTorch's matmul switch (off by default) makes its fp32 GEMMs TF32 ones.
  const std::string matmul = (std::filesystem::temp_directory_path() / "dnnperf_tf32_matmul.jsonl").string();
  {
    std::ofstream out(matmul);
    out << R"({"type": "context", "schema": "dnnperf.measurements/1", "host": "h", "tool": "test", "libraries": {"tf32": {"matmul": true, "cudnn": true}}})" << "\n"
        << h200_record(1e-4, {{"op", "gemm"}, {"layout", {{"device", "NVIDIA H200"}}},
                              {"params", {{"m", 512}, {"n", 256}, {"k", 256}, {"batch", 1}, {"trans_a", false}, {"trans_b", false}}}}).dump() << "\n";
  }
  const ComputeData tf32_gemm = load_compute_data({matmul});
  CHECK(tf32_gemm.samples.empty());
  REQUIRE(tf32_gemm.tf32_samples.size() == 1);
  CHECK(tf32_gemm.tf32_samples[0].tf32);
  CHECK(load_compute_data({off}).tf32_samples.empty());
  for (const std::string& p : {on, off, cpu, matmul}) std::filesystem::remove(p);
}

TEST_CASE("Host times per framework op are kept per op kind, not as samples; bad ones are named", "[fitting][compute]") {
  const auto record = [](const std::string& kind, const nlohmann::json& metrics) {
    return h200_record(1e-4, {{"op", "host_op"}, {"params", {{"op_kind", kind}}}, {"metrics", metrics}});
  };
  const std::string path = write_measurements("dnnperf_op_host_test.jsonl", {
      record("attention", {{"forward_host_s", 8e-5}, {"backward_host_s", 1.2e-4}}),
      record("linear", {{"forward_host_s", 1e-5}, {"backward_host_s", 2e-5}}),
      record("attn", {{"forward_host_s", 1e-5}, {"backward_host_s", 2e-5}}),
      record("relu", {{"forward_host_s", 1e-5}})});
  const ComputeData d = load_compute_data({path});
  CHECK(d.samples.empty());
  REQUIRE(d.op_host_seconds.size() == 2);
  CHECK(d.op_host_seconds.at("attention").front() == std::pair{8e-5, 1.2e-4});
  CHECK(d.device == "NVIDIA H200");
  REQUIRE(d.excluded.size() == 2);
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("unknown op kind 'attn'"));
  CHECK_THAT(d.excluded[1].where, Catch::Contains("record 4"));
  CHECK_THAT(d.excluded[1].reason, Catch::Contains("forward_host_s and backward_host_s"));
  std::filesystem::remove(path);
}

TEST_CASE("Passes timed at a distance are kept as the distance curve, not as samples; bad ones are named", "[fitting][compute]") {
  const auto record = [](const std::string& direction, double distance, double seconds, const nlohmann::json& hot) {
    return h200_record(seconds, {{"op", "pass_distance"}, {"params", {{"direction", direction}, {"bytes", 4194304}, {"distance_mib", distance / 1048576}}},
                                 {"layout", {{"device", "cpu"}, {"threads", 1}}}, {"metrics", {{"distance_bytes", distance}, {"hot_median_s", hot}}}});
  };
  const std::string path = write_measurements("dnnperf_pass_distance_test.jsonl", {
      record("read", 1073741824, 3e-4, 1.4e-4),
      record("write", 1073741824, 5.4e-4, 2.9e-4),
      record("sum", 1073741824, 3e-4, 1.4e-4),
      record("read", 1073741824, 3e-4, "fast")});
  const ComputeData d = load_compute_data({path});
  CHECK(d.samples.empty());
  REQUIRE(d.pass_distances.size() == 2);
  CHECK_FALSE(d.pass_distances[0].written);
  CHECK(d.pass_distances[1].written);
  CHECK(d.pass_distances[1].distance_bytes == 1073741824);
  CHECK(d.pass_distances[1].hot_seconds == 2.9e-4);
  CHECK(d.pass_distances[1].seconds == 5.4e-4);
  CHECK(d.device == "cpu");
  REQUIRE(d.excluded.size() == 2);
  CHECK_THAT(d.excluded[0].where, Catch::Contains("record 3"));
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("neither read nor write"));
  CHECK_THAT(d.excluded[1].reason, Catch::Contains("hot_median_s"));
  std::filesystem::remove(path);
}

TEST_CASE("Synchronised training steps give a co-running and a wait ratio per rank count; bad ones are named", "[fitting][compute]") {
  const auto record = [](int ranks, const nlohmann::json& metrics) {
    return h200_record(0.12, {{"op", "sync_step"}, {"params", {{"network", "resnet34"}, {"batch", 4}, {"input", 64}}},
                              {"layout", {{"device", "cpu"}, {"threads", 1}, {"co_running", ranks}}}, {"metrics", metrics}});
  };
  const std::string path = write_measurements("dnnperf_sync_step_test.jsonl", {
      record(2, {{"lone_median_s", 0.100}, {"own_median_s", 0.110}, {"slowest_median_s", 0.1155}}),
      record(4, {{"lone_median_s", 0.100}, {"own_median_s", 0.130}, {"slowest_median_s", 0.143}}),
      record(1, {{"lone_median_s", 0.100}, {"own_median_s", 0.110}, {"slowest_median_s", 0.12}}),
      record(2, {{"lone_median_s", 0.100}, {"own_median_s", 0.110}}),
      record(2, {{"lone_median_s", 0.100}, {"own_median_s", 0.120}, {"slowest_median_s", 0.110}})});
  const ComputeData d = load_compute_data({path});
  CHECK(d.samples.empty());
  CHECK(d.co_run_ratios.empty());  // kernels' co-running is another measurement
  REQUIRE(d.step_co_run_ratios.size() == 2);
  REQUIRE(d.step_co_run_ratios.at(2).size() == 1);
  CHECK(d.step_co_run_ratios.at(2)[0] == Approx(1.10));
  REQUIRE(d.sync_wait_ratios.at(2).size() == 1);
  CHECK(d.sync_wait_ratios.at(2)[0] == Approx(1.05));
  REQUIRE(d.step_co_run_ratios.at(4).size() == 1);
  CHECK(d.step_co_run_ratios.at(4)[0] == Approx(1.30));
  REQUIRE(d.sync_wait_ratios.at(4).size() == 1);
  CHECK(d.sync_wait_ratios.at(4)[0] == Approx(1.10));
  CHECK(d.device == "cpu");
  REQUIRE(d.excluded.size() == 3);
  CHECK_THAT(d.excluded[0].where, Catch::Contains("record 3"));
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("co_running of at least 2 ranks"));
  CHECK_THAT(d.excluded[1].reason, Catch::Contains("slowest_median_s"));
  CHECK_THAT(d.excluded[2].reason, Catch::Contains("slowest rank's median step is below a rank's own"));
  std::filesystem::remove(path);
}

TEST_CASE("Synchronised steps' DDP steps: what DDP added and its buckets; bad ones named, their ratios kept", "[fitting][compute]") {
  const auto record = [](const std::string& network, const nlohmann::json& metrics) {
    return h200_record(0.12, {{"op", "sync_step"}, {"params", {{"network", network}, {"batch", 4}, {"input", 64}}},
                              {"layout", {{"device", "cpu"}, {"threads", 1}, {"co_running", 2}}}, {"metrics", metrics}});
  };
  const nlohmann::json steps = {{"lone_median_s", 0.100}, {"own_median_s", 0.110}, {"slowest_median_s", 0.1155}};
  const auto with = [&](const nlohmann::json& ddp) {
    nlohmann::json m = steps;
    m.update(ddp);
    return m;
  };
  const std::string path = write_measurements("dnnperf_ddp_step_test.jsonl", {
      record("resnet34", with({{"ddp_slowest_median_s", 0.2155}, {"ddp_bucket_bytes", {2e6, 2.8e7}}, {"ddp_buffers", 108}})),
      record("mnasnet1_0", steps),  // measured before DDP steps were: its ratios alone
      record("squeezenet1_1", with({{"ddp_slowest_median_s", 0.15}, {"ddp_bucket_bytes", {2e6, -1}}})),
      record("shufflenet", with({{"ddp_bucket_bytes", {2e6}}, {"ddp_slowest_median_s", "fast"}}))});
  const ComputeData d = load_compute_data({path});
  CHECK(d.step_co_run_ratios.at(2).size() == 4);  // every record's co-running counts
  REQUIRE(d.ddp_steps.size() == 1);
  CHECK(d.ddp_steps[0].network == "resnet34");
  CHECK(d.ddp_steps[0].ranks == 2);
  CHECK(d.ddp_steps[0].added_s == Approx(0.100));
  CHECK(d.ddp_steps[0].bucket_bytes == std::vector<double>{2e6, 2.8e7});
  REQUIRE(d.excluded.size() == 2);
  CHECK_THAT(d.excluded[0].where, Catch::Contains("record 3"));
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("DDP steps without a positive ddp_slowest_median_s and positive ddp_bucket_bytes"));
  CHECK_THAT(d.excluded[1].where, Catch::Contains("record 4"));
  std::filesystem::remove(path);
}

TEST_CASE("Of a shape timed with several cuDNN algorithms, the heuristic's choice is the sample", "[fitting][compute]") {
  const nlohmann::json conv = {{"n", 8}, {"c", 64}, {"h", 28}, {"w", 28}, {"k", 64}, {"r", 3}, {"s", 3}, {"stride_h", 1}, {"stride_w", 1},
                               {"pad_h", 1}, {"pad_w", 1}, {"dilation_h", 1}, {"dilation_w", 1}, {"groups", 1}};
  const auto record = [&](const std::string& algorithm, double seconds) {
    return h200_record(seconds, {{"op", "conv_forward"}, {"params", conv}, {"algorithm", algorithm}, {"library", "cuDNN"}, {"library_version", "91900"}});
  };
  const std::string path = write_measurements("dnnperf_algorithms_test.jsonl", {
      record("cudnn:search:0", 70e-6), record("cudnn:heuristic:1", 80e-6),
      record("cudnn:heuristic:1", 90e-6)});  // the same algorithm again: a plain duplicate
  const ComputeData d = load_compute_data({path});
  REQUIRE(d.samples.size() == 1);
  CHECK(d.samples[0].seconds == 80e-6);
  REQUIRE(d.excluded.size() == 2);
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("cuDNN's heuristic choice is kept"));
  CHECK(d.excluded[1].reason == "duplicate shape");
  std::filesystem::remove(path);
}

TEST_CASE("bench's GPU records are bracketed with their launch unless queued behind a hold; their library's dispatch is not the framework's", "[fitting][compute]") {
  const auto conv = [](int c) {
    return nlohmann::json{{"n", 8}, {"c", c}, {"h", 28}, {"w", 28}, {"k", 64}, {"r", 3}, {"s", 3}, {"stride_h", 1}, {"stride_w", 1},
                          {"pad_h", 1}, {"pad_w", 1}, {"dilation_h", 1}, {"dilation_w", 1}, {"groups", 1}};
  };
  const auto record = [&](int c, const nlohmann::json& layout) {
    return h200_record(60e-6, {{"op", "conv_forward"}, {"params", conv(c)}, {"algorithm", "cudnn:heuristic:1"}, {"library", "cuDNN"},
                               {"library_version", "91900"}, {"layout", layout}, {"metrics", {{"dispatch_s", 40e-6}}}});
  };
  const nlohmann::json unheld = {{"device", "NVIDIA H200"}, {"compute_capability", "9.0"}};
  nlohmann::json queued = unheld;
  queued["timing"] = "queued";
  const std::string path = write_measurements("dnnperf_bench_timing_test.jsonl", {record(32, unheld), record(64, queued)});
  const ComputeData d = load_compute_data({path});
  REQUIRE(d.samples.size() == 2);
  CHECK(d.samples[0].bracketed);
  CHECK_FALSE(d.samples[1].bracketed);
  CHECK(d.dispatch_seconds.empty());  // cuDNN's own host time, not PyTorch's
  std::filesystem::remove(path);
}

TEST_CASE("A kernel timed in several files is one sample, the median of its runs, with their spread", "[fitting][compute]") {
  const auto gemm = [](std::int64_t m, double seconds) {
    return h200_record(seconds, {{"op", "gemm"}, {"params", {{"m", m}, {"n", 256}, {"k", 256}, {"batch", 1}, {"trans_a", false}, {"trans_b", false}}}});
  };
  const std::string first = write_measurements("dnnperf_runs_1.jsonl", {gemm(128, 1.0e-4), gemm(64, 5e-5), gemm(64, 6e-5)});  // 64 twice: a duplicate
  const std::string second = write_measurements("dnnperf_runs_2.jsonl", {gemm(128, 1.2e-4)});
  // The third file times 128 twice: its second timing is a duplicate too, not a fourth run.
  const std::string third = write_measurements("dnnperf_runs_3.jsonl", {gemm(128, 1.1e-4), gemm(32, 3e-5), gemm(128, 9e-4)});
  const ComputeData d = load_compute_data({first, second, third});
  REQUIRE(d.samples.size() == 3);
  CHECK(d.samples[0].kernel.gemm.m == 128);
  CHECK(d.samples[0].runs == 3);
  CHECK(d.samples[0].seconds == Approx(1.1e-4));                      // the median of 1.0, 1.2 and 1.1
  CHECK(d.samples[0].run_spread == Approx(0.2e-4 / 1.1e-4));          // (slowest - fastest) / mean
  CHECK(d.samples[1].runs == 1);
  CHECK(d.samples[1].seconds == 5e-5);                                // the first of one file's two
  CHECK(d.samples[1].run_spread == 0);
  CHECK(d.samples[2].kernel.gemm.m == 32);
  REQUIRE(d.excluded.size() == 2);
  CHECK(d.excluded[0].reason == "duplicate shape");
  CHECK_THAT(d.excluded[0].where, Catch::Contains(first + " record 3"));
  CHECK(d.excluded[1].reason == "duplicate shape");
  CHECK_THAT(d.excluded[1].where, Catch::Contains(third + " record 3"));
  for (const auto& f : {first, second, third}) std::filesystem::remove(f);
}

TEST_CASE("Files that timed the same kernels are merged at one speed: the later session's times scaled to the larger's", "[fitting][compute]") {
  const auto gemm = [](std::int64_t m, double seconds) {
    return h200_record(seconds, {{"op", "gemm"}, {"params", {{"m", m}, {"n", 256}, {"k", 256}, {"batch", 1}, {"trans_a", false}, {"trans_b", false}}}});
  };
  std::vector<nlohmann::json> day1, day2;
  for (std::int64_t m = 64; m < 64 + 12; ++m) day1.push_back(gemm(m, 1e-6 * static_cast<double>(m)));
  // The same twelve kernels and one of its own, all timed while the machine ran 1.8x slower.
  for (std::int64_t m = 64; m < 64 + 10; ++m) day2.push_back(gemm(m, 1.8e-6 * static_cast<double>(m)));
  day2.push_back(gemm(500, 1.8 * 500e-6));
  const std::string first = write_measurements("dnnperf_sessions_1.jsonl", day1);
  const std::string second = write_measurements("dnnperf_sessions_2.jsonl", day2);
  const ComputeData d = load_compute_data({second, first});
  REQUIRE(d.sessions.size() == 2);
  CHECK(d.sessions[1].session == first);  // the larger file is the scale
  CHECK(d.sessions[0].reference == first);
  CHECK(d.sessions[0].factor("gemm") == Approx(1.8));
  REQUIRE(d.samples.size() == 13);
  for (const ComputeSample& s : d.samples) {
    CHECK(s.seconds == Approx(1e-6 * static_cast<double>(s.kernel.gemm.m)));  // each at day 1's speed
    CHECK(s.run_spread == Approx(0).margin(1e-9));                            // the runs agree once on one scale
  }
  CHECK(d.samples[0].runs == 2);
  CHECK(d.samples[10].kernel.gemm.m == 500);
  CHECK(d.samples[10].runs == 1);
  for (const auto& f : {first, second}) std::filesystem::remove(f);
}

/// A pass family's optional term (`term`) is recovered as `expected` from `told` (the family's
/// held-out error under 3%), and left at 0 from `untold`, which cannot tell it.
void check_term_fitted_where_told(const ComputeData& told, const ComputeData& untold, const std::string& family, double MemoryEfficiency::*term,
                                  double expected) {
  const AnalyticFit f = fit_analytic(find_hardware_profile("cpu").device, told);
  INFO(f.message);
  REQUIRE(f.device.passes.count(family) == 1);
  CHECK(f.device.passes.at(family).*term == Approx(expected).epsilon(0.1));
  for (const auto& [cls, e] : f.held_out)
    if (cls == "pass:" + family) CHECK(e.mape < 3.0);
  const AnalyticFit g = fit_analytic(find_hardware_profile("cpu").device, untold);
  REQUIRE(g.device.passes.count(family) == 1);
  CHECK(g.device.passes.at(family).*term == 0.0);
}

TEST_CASE("A pooling family's rate per window operation is fitted where it was measured at two strides", "[fitting][compute]") {
  DeviceSpec truth = cpu_with_memory(150e9, 16e6, 3);
  truth.passes["max_pool"] = {.max_efficiency = 0.3, .half_efficiency_bytes = 5e4, .cache_bytes = 16e6, .dram_slowdown = 3, .operation_s = 2e-10};
  const AnalyticComputeModel model(truth);
  ComputeData data, one_stride;
  for (double bytes = 4096; bytes <= 1.1e9; bytes *= 2) {
    Kernel copy = pass_kernel(KernelClass::copy, bytes, bytes);
    data.samples.push_back({copy, "memory", model.seconds(copy, {})});
    one_stride.samples.push_back(data.samples.back());
  }
  for (double bytes = 4096; bytes <= 2.7e8; bytes *= 4) {
    const double n = bytes / 4;
    Kernel stride2 = pass_kernel(KernelClass::reduction, bytes, 0.75 * bytes, "max_pool");  // 3x3 windows, a quarter of the outputs
    stride2.flops = 9 * n / 4;
    Kernel stride1 = pass_kernel(KernelClass::reduction, bytes, 3 * bytes, "max_pool");  // as many outputs (and indices) as inputs
    stride1.flops = 9 * n;
    data.samples.push_back({stride2, "pass:max_pool", model.seconds(stride2, {})});
    one_stride.samples.push_back(data.samples.back());
    data.samples.push_back({stride1, "pass:max_pool", model.seconds(stride1, {})});
  }
  // One stride cannot tell windows from bytes: no rate is invented.
  check_term_fitted_where_told(data, one_stride, "max_pool", &MemoryEfficiency::operation_s, 2e-10);
}

TEST_CASE("Batch norm's scalar rate for short runs is fitted where the measurements have short and long runs", "[fitting][compute]") {
  DeviceSpec truth = cpu_with_memory(150e9, 16e6, 3);
  truth.passes["batch_norm_backward"] = {.max_efficiency = 0.5, .half_efficiency_bytes = 1e5, .cache_bytes = 16e6, .dram_slowdown = 3,
                                         .short_run_element_s = 1.5e-8};
  const AnalyticComputeModel model(truth);
  ComputeData data, long_only;
  for (double bytes = 4096; bytes <= 1.1e9; bytes *= 2) {
    Kernel copy;
    copy.cls = KernelClass::copy;
    copy.bytes_read = copy.bytes_written = bytes;
    data.samples.push_back({copy, "memory", model.seconds(copy, {})});
    long_only.samples.push_back(data.samples.back());
  }
  for (double bytes = 16384; bytes <= 6.8e7; bytes *= 4)
    for (const bool short_runs : {false, true}) {
      Kernel bn;
      bn.cls = KernelClass::elementwise;
      bn.bytes_read = 4 * bytes, bn.bytes_written = bytes;
      bn.pass = "batch_norm_backward";
      bn.elements = static_cast<std::int64_t>(bytes / 4);
      bn.run_elements = short_runs ? 4 : 64;
      data.samples.push_back({bn, "pass:batch_norm_backward", model.seconds(bn, {})});
      if (!short_runs) long_only.samples.push_back(data.samples.back());
    }
  // Measured over long runs only, the data cannot tell a scalar rate: none is invented.
  check_term_fitted_where_told(data, long_only, "batch_norm_backward", &MemoryEfficiency::short_run_element_s, 1.5e-8);
}

TEST_CASE("The large-output edge is placed within the outputs measured, not extrapolated past them", "[fitting][compute]") {
  // The dev VM's calibration of 2026-12-02 (EPYC family 25): GEMMs writing up to 246 MB at 2-3.6
  // GB/s, from 298 to 326 MB at 0.9-1.0 (the allocator's spare heap runs out). Fitted without a
  // bound, the whole calibration put the edge at 432 MB with a 48x plateau and priced VGG-11's
  // 411 MB weight gradient (4096 x 25088 x 4, measured 315 ms alone on the same VM) at 1,633 ms;
  // these four files put it at 950 GB, no edge at all, and the same GEMM at 137 ms.
  const std::string dir = std::string(DNNPERF_SOURCE_DIR) + "/tests/data/large-output-gemms/";
  ComputeData data = load_compute_data({dir + "torch_cpu_memory.jsonl", dir + "torch_cpu_kernels.jsonl", dir + "torch_cpu_cnn.jsonl", dir + "torch_cpu_wide.jsonl"});
  std::erase_if(data.samples, [](const ComputeSample& s) { return s.kernel.cls != KernelClass::gemm; });
  double largest = 0;
  for (const ComputeSample& s : data.samples) largest = std::max(largest, 4.0 * static_cast<double>(s.kernel.gemm.m * s.kernel.gemm.n * s.kernel.gemm.batch));
  const BlockedGemm b = fit_analytic(find_hardware_profile("cpu").device, data).device.blocked_gemm;
  REQUIRE(b.enabled());
  INFO("edge at " << b.large_output_bytes << " bytes (largest output " << largest << "), slowdown " << b.large_output_slowdown);
  CHECK(b.large_output_bytes <= largest * (1 + 1e-9));
  const GemmShape wgrad{4096, 25088, 4, 1, true, false};
  CHECK(blocked_gemm_seconds(b, wgrad, 4) == Approx(0.315).epsilon(0.5));
}

TEST_CASE("Time weights follow each GEMM and convolution class's median, within bounds", "[fitting][compute]") {
  const auto gemm_of = [](std::int64_t m) { return gemm_kernel(Phase::forward, {m, 64, 64, 1, false, false}, DType::f32); };
  std::vector<ComputeSample> samples = {{gemm_of(8), "gemm", 1e-4}, {gemm_of(16), "gemm", 1e-3}, {gemm_of(32), "gemm", 1e-2},
                                        {gemm_of(64), "gemm", 1e-8}, {gemm_of(128), "gemm", 10.0},
                                        {pass_kernel(KernelClass::copy, 1e6, 1e6), "memory", 1.0}};
  weigh_by_time(samples, 0.5);
  // The GEMMs' median is 1e-3 s; the memory pass is no structural fit's sample.
  CHECK(samples[0].weight == Approx(std::sqrt(0.1)));
  CHECK(samples[1].weight == Approx(1.0));
  CHECK(samples[2].weight == Approx(std::sqrt(10.0)));
  CHECK(samples[3].weight == Approx(kMinTimeWeight));
  CHECK(samples[4].weight == Approx(kMaxTimeWeight));
  CHECK(samples[5].weight == 1.0);
  weigh_by_time(samples, 0);
  for (const ComputeSample& s : samples) CHECK(s.weight == 1.0);
  CHECK_THROWS_WITH(weigh_by_time(samples, -1), Catch::Contains("at least 0"));
}

TEST_CASE("The direct model streams a filter past the core's cache once per image", "[fitting][compute]") {
  DirectConv truth;
  truth.lanes = 16, truth.rate = {80e9, 70e9, 30e9, 5e9}, truth.input_fill_exponent = 1.0, truth.output_fill_exponent = 0.5;
  truth.window_exponent = 0.0, truth.input_bandwidth = {10e9, 10e9, 5e9, 4e9}, truth.weight_bandwidth = 8e9;
  truth.output_bandwidth = {8e9, 8e9, 4e9, 3e9}, truth.call_overhead_s = 5e-6;
  truth.image_weight_bandwidth = 25e9, truth.weight_cache_bytes = 2e6;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.02);
  const auto pick = [&](std::initializer_list<std::int64_t> v) { return *(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size())); };
  ComputeData data;
  data.threads = 1;
  while (data.samples.size() < 240) {
    ConvShape c;
    c.n = pick({2, 4, 8, 16, 32});
    c.c = pick({16, 32, 64, 128, 256, 512, 1024});
    c.k = pick({16, 64, 128, 256, 512, 1024, 2048});
    c.h = c.w = pick({2, 4, 8, 14, 28});
    c.r = c.s = pick({1, 3});
    c.pad_h = c.pad_w = c.r / 2;
    c.p = c.q = c.h;
    const Kernel k = conv_kernel(Phase::backward_weight, c, DType::f32);
    if (k.flops > 2e9) continue;
    data.samples.push_back({k, "conv_backward_filter", direct_conv_seconds(truth, c, Phase::backward_weight, 4) * std::exp(noise(rng))});
  }
  const AnalyticFit f = fit_analytic(find_hardware_profile("cpu").device, data);
  const DirectConv& d = f.device.direct_conv[static_cast<int>(Phase::backward_weight)];
  REQUIRE(d.enabled());
  INFO("filter streamed per image past " << d.weight_cache_bytes << " bytes at " << d.image_weight_bandwidth << " bytes/s");
  CHECK(d.weight_cache_bytes == Approx(2e6).epsilon(0.3));
  CHECK(d.image_weight_bandwidth == Approx(25e9).epsilon(0.3));
  REQUIRE(f.choices.size() == 1);
  CHECK(f.choices[0].structural.mape < 4.0);  // 2% noise
  // A 512x512 3x3 filter (9.4 MB) over 2x2 images: each image streams it once more.
  ConvShape late;
  late.n = 16, late.c = late.k = 512, late.h = late.w = late.p = late.q = 2, late.r = late.s = 3, late.pad_h = late.pad_w = 1;
  ConvShape fewer = late;
  fewer.n = 2;
  const double per_image = (direct_conv_seconds(d, late, Phase::backward_weight, 4) - direct_conv_seconds(d, fewer, Phase::backward_weight, 4)) / 14;
  CHECK(per_image > 0.8 * 512 * 512 * 9 * 4 / 25e9);
  // A profile without the term prices none of it.
  DirectConv older = truth;
  older.image_weight_bandwidth = older.weight_cache_bytes = 0;
  CHECK(direct_conv_seconds(older, late, Phase::backward_weight, 4) < direct_conv_seconds(truth, late, Phase::backward_weight, 4) - 14 * 0.9 * 512 * 512 * 9 * 4 / 25e9);
}

TEST_CASE("Optimizer steps timed over rotated parameters are passes of a stream that long; ReLU6 is its own family", "[fitting][compute]") {
  const nlohmann::json cpu = {{"device", "cpu"}};
  const nlohmann::json rotated = {{"device", "cpu"}, {"rotated_parameters", 30}};
  const std::string path = write_measurements("dnnperf_rotation_test.jsonl", {
      h200_record(2.3e-3, {{"op", "memory_sgd"}, {"params", {{"bytes", 16777216}}}, {"layout", rotated}}),
      h200_record(1.2e-3, {{"op", "memory_sgd"}, {"params", {{"bytes", 16777216}}}, {"layout", cpu}}),
      h200_record(3.0e-3, {{"op", "memory_relu6"}, {"params", {{"bytes", 16777216}}}, {"layout", cpu}}),
      h200_record(2.3e-3, {{"op", "memory_sgd"}, {"params", {{"bytes", 16777216}}}, {"layout", {{"device", "cpu"}, {"rotated_parameters", 0}}}})});
  const ComputeData d = load_compute_data({path});
  REQUIRE(d.samples.size() == 3);
  // SGD moves three bytes per parameter byte (reads w and g, writes w): 30 of them stream 30 x 48 MiB.
  CHECK(d.samples[0].kernel.footprint_bytes == Approx(30.0 * 3 * 16777216));
  CHECK(d.samples[1].kernel.footprint_bytes == 0);  // one parameter stepped again and again: its own bytes
  CHECK(d.samples[2].kernel_class == "pass:relu6");
  REQUIRE(d.excluded.size() == 1);
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("rotated_parameters must be a positive integer"));
  CHECK_THAT(d.excluded[0].where, Catch::Contains("record 4"));
  // The price follows the stream: the same pass from a longer one costs more where the family
  // slows beyond the cache.
  DeviceSpec device = find_hardware_profile("cpu").device;
  device.memory.dram_slowdown = 3;
  device.memory.cache_bytes = 8e6;
  const AnalyticComputeModel model(device);
  CHECK(model.seconds(d.samples[0].kernel, {}) > 1.05 * model.seconds(d.samples[1].kernel, {}));
  std::filesystem::remove(path);
}
