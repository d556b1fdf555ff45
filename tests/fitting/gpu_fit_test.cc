#include "fitting/compute/gpu_fit.h"

#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/lowering/lower.h"
#include "models/compute/gpu/gpu_compute_model.h"

using namespace dnnperf;
using namespace dnnperf::fitting;

namespace {

// Measurements the family itself would give under known parameters, with 3% noise: the fit must
// find parameters that price shapes it did not see as those parameters do.
ComputeData synthetic(const DeviceSpec& truth, std::uint32_t seed, int count) {
  ComputeData data;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> log_dim(std::log(16.0), std::log(8192.0));
  std::normal_distribution<double> noise(0, 0.03);
  const GpuComputeModel model(truth);
  for (int i = 0; i < count; ++i) {
    const auto dim = [&] { return 8 * static_cast<std::int64_t>(std::exp(log_dim(rng)) / 8 + 1); };
    const DType dtype = i % 2 ? DType::bf16 : DType::f32;
    ComputeSample s;
    s.kernel = gemm_kernel(Phase::forward, {dim(), dim(), dim(), 1, false, false}, dtype);
    s.kernel_class = "gemm";
    s.seconds = model.seconds(s.kernel, {}) * std::exp(noise(rng));
    data.samples.push_back(s);
  }
  for (const double bytes : {1e6, 4e6, 1.6e7, 6.4e7, 2.56e8, 1e9}) {
    ComputeSample s;
    s.kernel.cls = KernelClass::copy;
    s.kernel.bytes_read = s.kernel.bytes_written = bytes;
    s.kernel_class = "memory";
    s.seconds = model.seconds(s.kernel, {}) * std::exp(noise(rng));
    data.samples.push_back(s);
  }
  return data;
}

}  // namespace

TEST_CASE("the GPU fit recovers the family's own parameters from its prices") {
  DeviceSpec truth = find_hardware_profile("h200").device;
  truth.gpu.enabled = true;
  truth.gpu.kernel_min_s = 6e-6;
  truth.gpu.dram_efficiency = 0.7;
  truth.gpu.math[static_cast<int>(GpuMath::fp32)].max_efficiency = 0.55;
  truth.gpu.math[static_cast<int>(GpuMath::half)].max_efficiency = 0.6;
  DeviceSpec start = truth;
  start.gpu = GpuKernelParams{};  // the defaults, far from the truth
  start.gpu.enabled = true;
  const GpuFit fit = fit_gpu_kernels(start, synthetic(truth, 7, 240));
  const ComputeData unseen = synthetic(truth, 8, 120);
  DeviceSpec fitted = truth;
  fitted.gpu = fit.params;
  const GpuComputeModel truth_model(truth), fitted_model(fitted);
  double worst = 0;
  for (const ComputeSample& s : unseen.samples)
    worst = std::max(worst, std::abs(fitted_model.seconds(s.kernel, {}) / truth_model.seconds(s.kernel, {}) - 1));
  CHECK(worst < 0.08);
  CHECK(fit.params.dram_efficiency == Approx(0.7).epsilon(0.05));
  // Held out, the errors are the noise's (3%), not the defaults' (tens of percent).
  REQUIRE(!fit.classes.empty());
  CHECK(fit.classes.back().kernel_class == "all");
  CHECK(fit.classes.back().held_out.mape < 6);
  // Nothing ran in fp64 or TF32: named, not fitted.
  CHECK(std::find(fit.not_fitted.begin(), fit.not_fitted.end(), "math.fp64") != fit.not_fitted.end());
  CHECK(std::find(fit.not_fitted.begin(), fit.not_fitted.end(), "math.tf32") != fit.not_fitted.end());
}

TEST_CASE("convolutions in a math no GEMM was timed in fit a k-loop of their own, not the math's") {
  // PyTorch's defaults: fp32 matmuls, TF32 convolutions, whose k-loop reaches less than cuBLAS's.
  DeviceSpec truth = find_hardware_profile("h200").device;
  truth.gpu.enabled = true;
  GpuMathParams conv_loop = truth.gpu.math[static_cast<int>(GpuMath::tf32)];
  conv_loop.max_efficiency = 0.35;
  truth.gpu.conv_loop[static_cast<int>(GpuMath::tf32)] = conv_loop;
  ComputeData data = synthetic(truth, 11, 60);
  const GpuComputeModel model(truth);
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> channels(2, 32), image(7, 56);
  for (int i = 0; i < 60; ++i) {
    const std::int64_t ch = 16 * channels(rng), hw = image(rng);
    const ConvShape c{32, ch, hw, hw, ch, 3, 3, hw, hw, 1, 1, 1, 1, 1, 1, 1};
    ComputeSample s;
    s.kernel = conv_kernel(static_cast<Phase>(i % 3), c, DType::f32);
    s.kernel_class = "conv";
    s.tf32 = true;
    s.seconds = model.seconds(s.kernel, ExecutionOptions{true});
    data.tf32_samples.push_back(s);
  }
  DeviceSpec start = truth;
  start.gpu.conv_loop = {};
  const GpuFit fit = fit_gpu_kernels(start, data);
  const auto& own = fit.params.conv_loop[static_cast<int>(GpuMath::tf32)];
  REQUIRE(own);
  // The math's own k-loop, which GEMMs use, is not what the convolutions measured: kept, and said so.
  CHECK(fit.params.math[static_cast<int>(GpuMath::tf32)].max_efficiency == start.gpu.math[static_cast<int>(GpuMath::tf32)].max_efficiency);
  CHECK(std::find(fit.not_fitted.begin(), fit.not_fitted.end(), "math.tf32") != fit.not_fitted.end());
  // The convolutions are priced as measured (their direction's efficiency and the k-loop trade off,
  // so the product is what the records fix).
  DeviceSpec fitted = truth;
  fitted.gpu = fit.params;
  const GpuComputeModel fitted_model(fitted);
  double worst = 0;
  for (const ComputeSample& s : data.tf32_samples) worst = std::max(worst, std::abs(fitted_model.seconds(s.kernel, {true}) / s.seconds - 1));
  CHECK(worst < 0.1);
  // With TF32 GEMMs timed beside them, the two share the math's k-loop again.
  ComputeSample g;
  g.kernel = gemm_kernel(Phase::forward, {2048, 2048, 2048, 1, false, false}, DType::f32);
  g.kernel_class = "gemm";
  g.tf32 = true;
  g.seconds = model.seconds(g.kernel, ExecutionOptions{true});
  data.tf32_samples.push_back(g);
  start.gpu.conv_loop = truth.gpu.conv_loop;
  CHECK_FALSE(fit_gpu_kernels(start, data).params.conv_loop[static_cast<int>(GpuMath::tf32)]);
}

TEST_CASE("the GPU fit refuses what it cannot use") {
  DeviceSpec cpu = find_hardware_profile("cpu").device;
  CHECK_THROWS_AS(fit_gpu_kernels(cpu, ComputeData{}), InputError);
  DeviceSpec gpu = find_hardware_profile("h200").device;
  CHECK_THROWS_WITH(fit_gpu_kernels(gpu, ComputeData{}), Catch::Contains("no GEMM"));
  // bench's bracketed times without the launch record that says what the bracket holds.
  ComputeData data;
  ComputeSample s;
  s.kernel = gemm_kernel(Phase::forward, {1024, 1024, 1024, 1, false, false}, DType::f32);
  s.kernel_class = "gemm";
  s.seconds = 1e-4;
  s.bracketed = true;
  data.samples.push_back(s);
  CHECK_THROWS_WITH(fit_gpu_kernels(gpu, data), Catch::Contains("launch"));
}
