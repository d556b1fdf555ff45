#pragma once
// ProfileComputeModel: the compute model a profile calls for — a measured time for a GEMM or
// convolution the profile measured exactly, else, for a convolution the profile's framework runs
// as per-image GEMMs (conv_as_gemm.h), those GEMMs' price, else its regression model for a kernel
// class where calibration chose one (and the kernel's element type matches what it was fitted
// on), else the GPU family where the device has one (gpu/gpu_compute_model.h), the analytic
// model for everything else.
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include <optional>

#include "models/compute/analytic_model.h"
#include "models/compute/gpu/gpu_compute_model.h"
#include "models/compute/regression_model.h"
#include "records/kernel_record.h"

namespace dnnperf {

class ProfileComputeModel final : public ComputeModel {
 public:
  /// Keeps a reference: `profile` must outlive the model.
  explicit ProfileComputeModel(const HardwareProfile& profile);
  double seconds(const Kernel& kernel, const ExecutionOptions& options) const override;
  /// 95% bounds of the time: a measured kernel's time (no interval), the regression's interval,
  /// or the analytic model's time widened by its class's held-out spread (residual_sigma; none
  /// for datasheet profiles).
  std::pair<double, double> interval(const Kernel& kernel, const ExecutionOptions& options) const;
  /// How uncertain `kernel`'s time is, in log terms: `sigma`, its whole spread (the interval is
  /// time * exp(+-1.96 sigma)), of which `shared` is common to every kernel of its `family`
  /// (models/compute/error_family.h); zeros for measured kernels and datasheet profiles.
  struct Uncertainty {
    double sigma = 0;
    double shared = 0;
    std::string family;
  };
  Uncertainty uncertainty(const Kernel& kernel, const ExecutionOptions& options) const;
  /// The regression model that prices `kernel`, or null when the analytic model does.
  const RegressionModel* regression_for(const Kernel& kernel) const;
  /// What prices `kernel`: "measured", "regression", "gpu", "analytic", or for a convolution run
  /// as per-image GEMMs "GEMMs: " and what prices those.
  std::string_view priced_by(const Kernel& kernel) const;

 private:
  const double* measured_time(const Kernel& kernel) const;
  /// A time measured or fitted as a call of its own, less the call a weight gradient sharing its
  /// input gradient's call does not pay (Kernel::shares_call; the analytic model does the same).
  double without_shared_call(const Kernel& kernel, double seconds) const;
  const RegressionModel* regression_named(std::string_view kernel_class, DType dtype) const;
  /// The analytic class's held-out spread of `kernel` and the part its family shares.
  std::pair<double, double> analytic_spread(const Kernel& kernel) const;
  /// The regression fitted to convolutions run as per-image GEMMs (class per_image_gemm), if any.
  const RegressionModel* per_image_regression(const Kernel& gemm) const;

  const HardwareProfile& profile_;
  AnalyticComputeModel analytic_;
  std::optional<GpuComputeModel> gpu_;  // where the device has a GPU section
  std::map<MatrixKernelKey, double> measured_;
};

}  // namespace dnnperf
