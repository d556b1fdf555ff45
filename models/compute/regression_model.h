#pragma once
// RegressionComputeModel: the regression family. Per kernel class (gemm, conv_forward,
// conv_backward_data, conv_backward_filter) the log of a kernel's time is a linear function of
// features of its shape — log FLOPs, log bytes, the logs of its (implicit) GEMM dimensions, ... —
// chosen by cross-validation and fitted by fitting/compute/ in log space, so that relative error
// is what was minimised. Their covariance and the residual spread give prediction intervals.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "predictor/lowering/kernel.h"

namespace dnnperf {

/// The features a regression may use, by name (profiles store the names).
const std::vector<std::string>& regression_feature_names();
/// One feature of a kernel; throws InputError for an unknown name. `blocking` is the library's
/// cache-blocking factor along the GEMM dimensions (RegressionModel::blocking); with 0 the
/// *_block_remainder features are 0.
double regression_feature(const Kernel& kernel, std::string_view name, std::int64_t blocking = 0);
/// Whether a feature needs a blocking factor to mean anything.
bool is_blocking_feature(std::string_view name);
/// gemm, conv_forward, conv_backward_data, conv_backward_filter; empty for other kernels.
std::string regression_class(const Kernel& kernel);

struct RegressionModel {
  std::string kernel_class;
  DType dtype = DType::f32;          // the element type it was fitted on
  std::vector<std::string> features;
  /// The blocking factor the *_block_remainder features divide by (0: none chosen). BLAS libraries
  /// run full blocks of a dimension with their fast kernel and the remainder with clean-up code
  /// (Debian's ATLAS on the dev VM: 48; a run of n = 40 is 3x slower per FLOP than n = 50), so
  /// the time follows how much of n and k falls outside whole blocks. Chosen by held-out error.
  std::int64_t blocking = 0;
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
