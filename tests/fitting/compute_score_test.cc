// Scoring a profile on measurements it was not fitted to: errors per class and the time-weighted bias.
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
