#pragma once
// RegressionComputeModel: the regression family. Per kernel class (gemm, conv_forward,
// conv_backward_data, conv_backward_filter) the log of a kernel's time is a linear function of
// features of its shape — log FLOPs, log bytes, the logs of its (implicit) GEMM dimensions, ... —
// chosen by cross-validation and fitted by fitting/compute/ in log space, so that relative error
// is what was minimised. Their covariance and the residual spread give prediction intervals.
#include <string>
#include <string_view>
#include <vector>

#include "predictor/lowering/kernel.h"

namespace dnnperf {

/// The features a regression may use, by name (profiles store the names).
const std::vector<std::string>& regression_feature_names();
/// One feature of a kernel; throws InputError for an unknown name.
double regression_feature(const Kernel& kernel, std::string_view name);
/// gemm, conv_forward, conv_backward_data, conv_backward_filter; empty for other kernels.
std::string regression_class(const Kernel& kernel);

struct RegressionModel {
  std::string kernel_class;
  DType dtype = DType::f32;          // the element type it was fitted on
  std::vector<std::string> features;
  std::vector<double> weights;
  std::vector<double> covariance;    // of the weights, row-major
  double residual_sigma = 0;         // of log(measured / fitted)
  /// The part of the held-out log error a family of kernels shares (models/compute/error_family.h).
  double shared_sigma = 0;

  /// log seconds with explicit weights (templated for automatic differentiation).
  template <typename T>
  T log_seconds_with(const T* w, const std::vector<double>& values) const {
    T sum = T(0);
    for (std::size_t i = 0; i < values.size(); ++i) sum += w[i] * values[i];
    return sum;
  }
  std::vector<double> feature_values(const Kernel& kernel) const;
  double seconds(const Kernel& kernel) const;
  /// 95% prediction interval.
  std::pair<double, double> interval(const Kernel& kernel) const;
};

}  // namespace dnnperf
