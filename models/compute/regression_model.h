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

#include "core/lowering/kernel.h"
#include "profile/regression_model.h"

namespace dnnperf {

/// One feature of a kernel; throws InputError for an unknown name. `blocking` is the library's
/// cache-blocking factor along the GEMM dimensions (RegressionModel::blocking); with 0 the
/// *_block_remainder features are 0.
double regression_feature(const Kernel& kernel, std::string_view name, std::int64_t blocking = 0);
/// gemm, conv_forward, conv_backward_data, conv_backward_filter; empty for other kernels.
std::string regression_class(const Kernel& kernel);

}  // namespace dnnperf
