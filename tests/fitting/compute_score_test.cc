// Scoring a profile on measurements it was not fitted to: errors per class and the time-weighted bias.
#include <cmath>

#include <catch2/catch.hpp>

#include "fitting/compute/compute_score.h"
#include "models/compute/profile_model.h"
#include "core/lowering/lower.h"

using namespace dnnperf;
using namespace dnnperf::fitting;

TEST_CASE("Scores report per-class errors and the bias of summed times", "[fitting][compute]") {
  const HardwareProfile profile = find_hardware_profile("cpu");
  const ProfileComputeModel model(profile);
  const Kernel small = gemm_kernel(Phase::forward, {64, 64, 64, 1, false, false}, DType::f32);
  const Kernel large = gemm_kernel(Phase::forward, {1024, 1024, 1024, 1, false, false}, DType::f32);
  ComputeData data;
  // The small GEMM measured at half its predicted time, the large one at exactly its prediction.
  data.samples.push_back({small, "gemm", 0.5 * model.seconds(small, {})});
  data.samples.push_back({large, "gemm", model.seconds(large, {})});
  std::vector<ScoredKernel> kernels;
  const std::vector<ClassScore> scores = score_compute(profile, data, &kernels);
  REQUIRE(scores.size() == 2);  // gemm, then all
  CHECK(scores[0].kernel_class == "gemm");
  CHECK(scores[1].kernel_class == "all");
  CHECK(scores[0].priced_by == "analytic");
  CHECK(scores[0].errors.count == 2);
  CHECK(scores[0].errors.mape == Approx(50.0));  // (100% + 0%) / 2
  // The sum is dominated by the large kernel: the bias is small although one kernel is off 2x.
  const double bias = scores[0].predicted_seconds / scores[0].measured_seconds - 1;
  CHECK(bias > 0);
  CHECK(bias < 0.01);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].predicted_seconds == Approx(model.seconds(small, {})));
  CHECK(score_compute(profile, ComputeData{}).empty());
}

TEST_CASE("Scores price fp32 convolutions in the math the records ran them in, not the profile's", "[fitting][compute]") {
  const ConvShape shape{.n = 32, .c = 256, .h = 14, .w = 14, .k = 256, .r = 3, .s = 3, .p = 14, .q = 14, .pad_h = 1, .pad_w = 1};
  const Kernel conv = conv_kernel(Phase::forward, shape, DType::f32);
  HardwareProfile h200 = find_hardware_profile("h200");  // a datasheet profile: fp32 convolutions in FP32
  REQUIRE(h200.device.fp32_conv_math == MathMode::fp32);
  const double fp32 = ProfileComputeModel(h200).seconds(conv, {});
  const double tf32 = ProfileComputeModel(h200).seconds(conv, ExecutionOptions{true});
  REQUIRE(tf32 < 0.5 * fp32);
  ComputeData data;
  data.samples.push_back({conv, "conv_forward", tf32});
  // PyTorch's records (cudnn.allow_tf32 on): priced on TF32 tensor cores.
  data.fp32_conv_tf32 = true;
  std::vector<ScoredKernel> kernels;
  score_compute(h200, data, &kernels);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].predicted_seconds == Approx(tf32));
  // bench's f32 records (cuDNN's FMA math) against a profile calibrated on TF32 convolutions,
  // whose fp32 convolution regression was fitted on those: FP32, by the family, not the regression.
  HardwareProfile calibrated = h200;
  calibrated.device.fp32_conv_math = MathMode::tf32_tensor;
  RegressionModel fitted_on_tf32;
  fitted_on_tf32.kernel_class = "conv_forward";
  fitted_on_tf32.features = {"one"};
  fitted_on_tf32.weights = {std::log(1e-9)};
  calibrated.compute_regression.push_back(fitted_on_tf32);
  REQUIRE(ProfileComputeModel(calibrated).priced_by(conv) == "regression");
  data.fp32_conv_tf32 = false;
  kernels.clear();
  const std::vector<ClassScore> scores = score_compute(calibrated, data, &kernels);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].priced_by == "gpu");
  CHECK(kernels[0].predicted_seconds == Approx(fp32));
  // The same records in TF32, where the profile's regression was fitted: the regression prices them.
  data.fp32_conv_tf32 = true;
  kernels.clear();
  score_compute(calibrated, data, &kernels);
  CHECK(kernels[0].priced_by == "regression");
  // TF32 records against a device without TF32 tensor cores: said, not priced as something else.
  data.fp32_conv_tf32 = true;
  CHECK_THROWS_WITH(score_compute(find_hardware_profile("v100"), data), Catch::Contains("device.peak_flops.tf32_tensor"));
}
