#include "models/compute/profile_model.h"

#include <algorithm>
#include <cmath>

#include "models/compute/conv_as_gemm.h"
#include "models/compute/direct_conv.h"
#include "models/compute/error_family.h"

namespace dnnperf {

ProfileComputeModel::ProfileComputeModel(const HardwareProfile& profile) : profile_(profile), analytic_(profile.device) {
  if (profile.device.gpu.enabled) gpu_.emplace(profile.device);
  for (const auto& [k, seconds] : profile.measured_kernels) measured_[matrix_kernel_key(k)] = seconds;
}

const RegressionModel* ProfileComputeModel::regression_for(const Kernel& k) const {
  if (k.cls != KernelClass::gemm && k.cls != KernelClass::conv) return nullptr;
  return regression_named(regression_class(k), k.dtype);
}

const RegressionModel* ProfileComputeModel::regression_named(std::string_view cls, DType dtype) const {
  for (const RegressionModel& m : profile_.compute_regression)
    if (m.kernel_class == cls && m.dtype == dtype) return &m;
  return nullptr;
}

const RegressionModel* ProfileComputeModel::per_image_regression(const Kernel& gemm) const {
  return regression_named("per_image_gemm", gemm.dtype);
}

const double* ProfileComputeModel::measured_time(const Kernel& k) const {
  if (measured_.empty() || (k.cls != KernelClass::gemm && k.cls != KernelClass::conv)) return nullptr;
  const auto it = measured_.find(matrix_kernel_key(k));
  return it == measured_.end() ? nullptr : &it->second;
}

std::string_view ProfileComputeModel::priced_by(const Kernel& k) const {
  if (measured_time(k)) return "measured";
  if (const auto g = per_image_gemm(k, profile_.device)) {
    if (per_image_regression(g->gemm)) return "GEMMs: per-image regression";
    const std::string_view by = priced_by(g->gemm);
    return by == "measured" ? "GEMMs: measured" : by == "regression" ? "GEMMs: regression" : "GEMMs: analytic";
  }
  return regression_for(k) ? "regression" : gpu_ ? "gpu" : "analytic";
}

double ProfileComputeModel::without_shared_call(const Kernel& k, double t) const {
  const double saved = k.cls == KernelClass::conv ? shared_call_seconds(profile_.device.direct_conv[static_cast<int>(k.phase)], k) : 0.0;
  return std::max(t - saved, 0.5 * t);
}

double ProfileComputeModel::seconds(const Kernel& k, const ExecutionOptions& options) const {
  if (const double* t = measured_time(k)) return without_shared_call(k, *t);
  if (const auto g = per_image_gemm(k, profile_.device)) {
    const RegressionModel* m = per_image_regression(g->gemm);
    return static_cast<double>(g->images) * (m ? regression_seconds(*m, g->gemm) : seconds(g->gemm, options));
  }
  if (const RegressionModel* m = regression_for(k)) return without_shared_call(k, regression_seconds(*m, k));
  if (gpu_) return gpu_->seconds(k, options);
  return analytic_.seconds(k, options);
}

ProfileComputeModel::Uncertainty ProfileComputeModel::uncertainty(const Kernel& k, const ExecutionOptions& options) const {
  Uncertainty u;
  u.family = error_family(k);
  if (measured_time(k)) return u;
  const double t = seconds(k, options);
  const auto [low, high] = interval(k, options);
  if (!(t > 0 && high > t)) return u;
  u.sigma = std::log(high / t) / 1.96;
  const RegressionModel* m = nullptr;
  if (const auto g = per_image_gemm(k, profile_.device)) {
    m = per_image_regression(g->gemm);
    if (!m) {
      Uncertainty gemm = uncertainty(g->gemm, options);
      u.shared = std::min(u.sigma, gemm.shared);
      return u;
    }
  } else {
    m = regression_for(k);
  }
  u.shared = std::min(u.sigma, m ? m->shared_sigma : analytic_spread(k).second);
  return u;
}

std::pair<double, double> ProfileComputeModel::analytic_spread(const Kernel& k) const {
  const DeviceSpec& d = profile_.device;
  if (gpu_) {
    const std::string cls = calibration_class(k);
    const auto sigma = d.gpu.residual_sigma.find(cls);
    const auto shared = d.gpu.shared_sigma.find(cls);
    return {sigma == d.gpu.residual_sigma.end() ? 0.0 : sigma->second, shared == d.gpu.shared_sigma.end() ? 0.0 : shared->second};
  }
  if (k.cls == KernelClass::gemm) return {d.gemm.residual_sigma, d.gemm.shared_sigma};
  if (k.cls == KernelClass::conv) return {d.conv.residual_sigma, d.conv.shared_sigma};
  if (!k.pass.empty())
    if (const auto it = d.passes.find(k.pass); it != d.passes.end()) return {it->second.residual_sigma, it->second.shared_sigma};
  return {d.memory.residual_sigma, d.memory.shared_sigma};
}

std::pair<double, double> ProfileComputeModel::interval(const Kernel& k, const ExecutionOptions& options) const {
  if (const double* t = measured_time(k)) return {without_shared_call(k, *t), without_shared_call(k, *t)};
  if (const auto g = per_image_gemm(k, profile_.device)) {
    const RegressionModel* m = per_image_regression(g->gemm);
    const auto [low, high] = m ? regression_interval(*m, g->gemm) : interval(g->gemm, options);
    return {static_cast<double>(g->images) * low, static_cast<double>(g->images) * high};
  }
  if (const RegressionModel* m = regression_for(k)) {
    const auto [low, high] = regression_interval(*m, k);
    return {without_shared_call(k, low), without_shared_call(k, high)};
  }
  const double t = gpu_ ? gpu_->seconds(k, options) : analytic_.seconds(k, options);
  const double sigma = analytic_spread(k).first;
  return {t * std::exp(-1.96 * sigma), t * std::exp(1.96 * sigma)};
}

}  // namespace dnnperf
