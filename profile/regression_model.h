#pragma once
// The parameters of one regression-family compute model (one per kernel class and element type),
// as a profile's compute_regression section stores them: plain data. Its features, and how it
// prices a kernel, are models/compute/regression_model.h.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"

namespace dnnperf {

/// The features a regression may use, by name (profiles store the names; what each measures is
/// models/compute/regression_model.h).
const std::vector<std::string>& regression_feature_names();
/// Whether a feature needs a blocking factor to mean anything.
bool is_blocking_feature(std::string_view name);

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
};

}  // namespace dnnperf
