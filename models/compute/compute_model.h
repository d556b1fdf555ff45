#pragma once
// ComputeModel: the time one kernel takes on one device. Evaluating a model is pure arithmetic —
// it never measures — and allocation-free, because sweeps price millions of kernels.
//
// Families: AnalyticComputeModel (roofline with shape-dependent efficiencies, analytic_model.h);
// the regression family arrives with calibration.
#include "core/lowering/kernel.h"

namespace dnnperf {

/// How kernels are executed, beyond what the kernel itself says.
struct ExecutionOptions {
  /// fp32 GEMMs and convolutions run on TF32 tensor cores (PyTorch's allow_tf32).
  bool allow_tf32 = false;
};

class ComputeModel {
 public:
  virtual ~ComputeModel() = default;
  /// Seconds for `kernel`, launch overhead included.
  virtual double seconds(const Kernel& kernel, const ExecutionOptions& options) const = 0;
};

}  // namespace dnnperf
