#include "models/compute/profile_model.h"

#include <cmath>

namespace dnnperf {

ProfileComputeModel::ProfileComputeModel(const HardwareProfile& profile) : profile_(profile), analytic_(profile.device) {
  for (const auto& [k, seconds] : profile.measured_kernels) measured_[matrix_kernel_key(k)] = seconds;
}

const RegressionModel* ProfileComputeModel::regression_for(const Kernel& k) const {
  if (profile_.compute_regression.empty() || (k.cls != KernelClass::gemm && k.cls != KernelClass::conv)) return nullptr;
  const std::string cls = regression_class(k);
  for (const RegressionModel& m : profile_.compute_regression)
    if (m.kernel_class == cls && m.dtype == k.dtype) return &m;
  return nullptr;
}

const double* ProfileComputeModel::measured_time(const Kernel& k) const {
  if (measured_.empty() || (k.cls != KernelClass::gemm && k.cls != KernelClass::conv)) return nullptr;
  const auto it = measured_.find(matrix_kernel_key(k));
  return it == measured_.end() ? nullptr : &it->second;
}

std::string_view ProfileComputeModel::priced_by(const Kernel& k) const {
  return measured_time(k) ? "measured" : regression_for(k) ? "regression" : "analytic";
}

double ProfileComputeModel::seconds(const Kernel& k, const ExecutionOptions& options) const {
  if (const double* t = measured_time(k)) return *t;
  if (const RegressionModel* m = regression_for(k)) return m->seconds(k);
  return analytic_.seconds(k, options);
}

std::pair<double, double> ProfileComputeModel::interval(const Kernel& k, const ExecutionOptions& options) const {
  if (const double* t = measured_time(k)) return {*t, *t};
  if (const RegressionModel* m = regression_for(k)) return m->interval(k);
  const double t = analytic_.seconds(k, options);
  const DeviceSpec& d = profile_.device;
  double sigma = d.memory.residual_sigma;
  if (k.cls == KernelClass::gemm) sigma = d.gemm.residual_sigma;
  else if (k.cls == KernelClass::conv) sigma = d.conv.residual_sigma;
  else if (!k.pass.empty())
    if (const auto it = d.passes.find(k.pass); it != d.passes.end()) sigma = it->second.residual_sigma;
  return {t * std::exp(-1.96 * sigma), t * std::exp(1.96 * sigma)};
}

}  // namespace dnnperf
