#pragma once
// Fitting the GPU kernel family (models/compute/gpu/gpu_compute_model.h) to GEMM, convolution
// and memory-pass measurements of one GPU, from `dnnperf bench`'s programs (cuBLAS, cuDNN, CUDA
// passes) or the PyTorch backend (scripts/torch_bench.py), every element type at once: the
// shape-level parameters (GpuKernelParams: per math, per convolution direction, per pass family;
// the kernel's least time, L2 and DRAM rates) by Ceres on log errors with a soft-L1 loss, each
// bounded to stay physical. Device-level figures (SMs, peaks, DRAM bandwidth, L2 size, the
// generation) are the base profile's and are not fitted. A parameter no record informs (a math
// nothing ran in, a pass family not timed) keeps the base profile's value, and is named.
//
// Errors are on shapes the fit did not see: 5 folds over the shapes, one shape in one fold in
// every element type.
#include <map>
#include <string>
#include <vector>

#include "fitting/compute/compute_fit.h"
#include "fitting/error_stats.h"
#include "profile/hardware_profile.h"

namespace dnnperf::fitting {

/// The class the GPU fit reports a sample under: calibration_class(), GEMMs and convolutions with
/// their math ("gemm half", "conv_forward tf32"), memory passes by family ("memory",
/// "pass:softmax").
std::string gpu_report_class(const DeviceSpec& device, const ComputeSample& sample);

/// The seconds `sample`'s measurement should read under `params` on `device`: the kernel's time,
/// plus bracket_s for a time bracketed with its launch (ComputeSample::bracketed): the host's part
/// of the bracket, taken as the whole of an empty kernel's, whose own run is a microsecond or two.
double gpu_sample_seconds(const DeviceSpec& device, const GpuKernelParams& params, const ComputeSample& sample, double bracket_s);

struct GpuClassFit {
  std::string kernel_class;  // gpu_report_class()
  ErrorStats held_out;
  double held_out_bias = 0;  // sum predicted / sum measured - 1, over the held-out predictions
  ErrorStats in_sample;
};

struct GpuFit {
  GpuKernelParams params;  // enabled, with residual_sigma and shared_sigma from the held-out errors
  bool converged = false;
  std::string message;
  std::vector<GpuClassFit> classes;  // in order of first appearance, then "all"
  /// Held-out errors per calibration_class() ("gemm", "conv_forward", ...), every math together:
  /// what `fit` weighs the regression family against, class by class.
  std::map<std::string, ErrorStats> held_out_by_class;
  std::vector<std::string> not_fitted;  // parameters no record informs, kept at the base's values
  int samples = 0;
};

/// Fits the family on every GEMM, convolution and memory-pass sample of `data` (tf32 ones too).
/// `base`'s GPU section (or GpuKernelParams' defaults, where it has none) starts the fit.
/// Throws InputError where `base` is not a GPU or `data` holds no usable sample.
GpuFit fit_gpu_kernels(const DeviceSpec& base, const ComputeData& data);

}  // namespace dnnperf::fitting
