#pragma once
// RegressionComputeModel: the regression family. Per kernel class (gemm, conv_forward,
// conv_backward_data, conv_backward_filter) the log of a kernel's time is a linear function of
// features of its shape — log FLOPs, log bytes, the logs of its (implicit) GEMM dimensions, ... —
// chosen by cross-validation and fitted by fitting/compute/ in log space, so that relative error
// is what was minimised. Their covariance and the residual spread give prediction intervals.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/lowering/kernel.h"
#include "profile/regression_model.h"

namespace dnnperf {

/// One feature of a kernel; throws InputError for an unknown name. `blocking` is the library's
/// cache-blocking factor along the GEMM dimensions (RegressionModel::blocking); with 0 the
/// *_block_remainder features are 0.
double regression_feature(const Kernel& kernel, std::string_view name, std::int64_t blocking = 0);
/// gemm, conv_forward, conv_backward_data, conv_backward_filter; empty for other kernels.
std::string regression_class(const Kernel& kernel);

/// `model`'s features of `kernel`, in the model's order.
std::vector<double> regression_features(const RegressionModel& model, const Kernel& kernel);
/// The log of the time: the weights' dot product with the features (templated for automatic
/// differentiation).
template <typename T>
T regression_log_seconds(const T* weights, const std::vector<double>& features) {
  T sum = T(0);
  for (std::size_t i = 0; i < features.size(); ++i) sum += weights[i] * features[i];
  return sum;
}
double regression_seconds(const RegressionModel& model, const Kernel& kernel);
/// The 95% prediction interval.
std::pair<double, double> regression_interval(const RegressionModel& model, const Kernel& kernel);

}  // namespace dnnperf
