#pragma once
// GpuComputeModel: the GPU kernel family, chosen for a device whose profile has a device.gpu
// section (GpuKernelParams::enabled), in place of the analytic family's roofline forms.
//
//   GEMM          the tiled model of gpu_gemm.h, in the math the kernel runs in (FP32 on the
//                 plain units, TF32, FP16/BF16 on tensor cores, FP64), with the alignment of its
//                 leading dimensions;
//   convolution   the implicit GEMM of its direction (Kernel's implicit_gemm: forward
//                 m = N P Q, n = K, k = C R S; backward data m = N H W, n = C, k = K R S;
//                 backward filter m = K, n = C R S, k = N P Q, where split-K decides), its
//                 k-loop at the direction's GpuConvParams::efficiency, aligned as its channels
//                 are, or in FP32 the non-fused Winograd algorithm where that is cheaper
//                 (gpu_winograd.h); depthwise and other thin-group convolutions as streams;
//   memory pass   pass_min_s plus its bytes at DRAM's rate times its pass family's efficiency,
//                 or its arithmetic on the plain units where that is longer.
// Pure arithmetic and allocation-free (bench/kernel_pricing_bench.cc times it).
#include "models/compute/analytic_model.h"
#include "models/compute/compute_model.h"
#include "models/compute/gpu/gpu_gemm.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

/// A kernel priced by the GPU family, with its parts.
struct GpuKernelCost {
  double seconds = 0;
  GpuMath math = GpuMath::fp32;
  GpuGemmPlan plan;  // GEMMs and tiled convolutions
  bool streamed = false;  // priced as a stream: memory passes, thin-group convolutions
  bool winograd = false;  // a 3x3 convolution priced as FP32 Winograd (gpu_winograd.h), cheaper than its implicit GEMM
};

class GpuComputeModel final : public ComputeModel {
 public:
  /// Keeps a reference: `device` must outlive the model. Throws InputError where the device has
  /// no fp32 peak or no GPU section.
  explicit GpuComputeModel(const DeviceSpec& device);
  double seconds(const Kernel& kernel, const ExecutionOptions& options) const override { return cost(kernel, options).seconds; }
  GpuKernelCost cost(const Kernel& kernel, const ExecutionOptions& options) const;
  /// The same with other parameters (fitting varies them): `params` replaces the device's.
  GpuKernelCost cost_with(const GpuKernelParams& params, const Kernel& kernel, const ExecutionOptions& options) const;
  /// The math a GEMM or convolution's k-loop runs in (as AnalyticComputeModel::mode decides).
  GpuMath math(const Kernel& kernel, const ExecutionOptions& options) const;

 private:
  const DeviceSpec& device_;
  AnalyticComputeModel modes_;  // only for its mode(): one rule for which math a kernel runs in
};

/// The pass-family key of GpuKernelParams::pass_efficiency for a memory-bound kernel: its
/// Kernel::pass; for thin-group convolutions "depthwise_conv" (forward),
/// "depthwise_conv_backward_data" or "depthwise_conv_backward_filter" (a profile without the
/// latter two prices them by the first); else "" (a plain pass, at 1).
std::string_view gpu_pass_key(const Kernel& kernel);

}  // namespace dnnperf
