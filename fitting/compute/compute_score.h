#pragma once
// Scoring a profile's compute models on measurements they were not fitted to — typically the
// exact kernels of the networks a user cares about, measured separately (torch_bench.py
// --shapes zoo:NET). Held-out folds of the generic shape set say how well a fit interpolates its
// own sample; this says whether that sample represents the kernels that matter.
//
// Beside the usual per-kernel errors it reports the time-weighted bias, sum(predicted) /
// sum(measured): an iteration's time is a sum of kernel times, so a model whose per-kernel errors
// look fine but lean one way on the expensive kernels mispredicts whole networks.
#include <string>
#include <vector>

#include "fitting/compute/compute_fit.h"
#include "fitting/error_stats.h"
#include "profile/hardware_profile.h"

namespace dnnperf::fitting {

struct ClassScore {
  std::string kernel_class;  // regression_class(), "memory", or "pass:NAME"
  std::string priced_by;     // measured, regression, analytic (what priced most of its kernels)
  ErrorStats errors;
  double measured_seconds = 0;   // sums over the class's kernels
  double predicted_seconds = 0;
};

/// One priced measurement.
struct ScoredKernel {
  const ComputeSample* sample = nullptr;
  std::string priced_by;
  double predicted_seconds = 0;
  double low = 0, high = 0;  // 95% interval (equal to the prediction where no uncertainty is known)
};

/// Prices every sample of `data` with `profile`'s compute model; one score per kernel class in
/// order of first appearance, then "all". `kernels`, if given, receives every priced sample.
/// fp32 convolutions are priced in the math the records ran them in (ComputeData::fp32_conv_tf32),
/// not the profile's own fp32_conv_math; InputError where they ran on TF32 and the profile has no
/// TF32 peak.
std::vector<ClassScore> score_compute(const HardwareProfile& profile, const ComputeData& data,
                                      std::vector<ScoredKernel>* kernels = nullptr);

}  // namespace dnnperf::fitting
