// The compute families on synthetic measurements: each must recover the law that generated them.
#include <cmath>
#include <algorithm>
#include <random>

#include <catch2/catch.hpp>

#include "fitting/compute/compute_fit.h"
#include "models/compute/analytic_model.h"
#include "predictor/lowering/lower.h"

using namespace dnnperf;
using namespace dnnperf::fitting;

namespace {

std::vector<Kernel> gemms(int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto dim = [&] { return static_cast<std::int64_t>(std::exp(std::log(16.0) + (rng() % 1000) / 1000.0 * std::log(2048.0 / 16))); };
  std::vector<Kernel> out;
  for (int i = 0; i < count; ++i) out.push_back(gemm_kernel(Phase::forward, {dim(), dim(), dim(), 1, false, false}, DType::f32));
  return out;
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
  CHECK(f.held_out.count == 150);
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
