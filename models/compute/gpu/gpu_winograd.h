#pragma once
// A 3x3 convolution as cuDNN's non-fused Winograd algorithm runs it in FP32 on the plain units
// (CUDNN_CONVOLUTION_*_ALGO_WINOGRAD_NONFUSED, every direction since cuDNN 5.1): Lavin & Gray's
// F(4x4, 3x3) (arXiv:1509.09308) cuts each 6x6 input tile's products from 16 x 9 to 36, four
// times fewer, at the price of transforming the tensors in and out of that domain.
//
//   input transform    reads the input, writes 36 values per 4x4 output tile and channel;
//   36 GEMMs           one per point of the 6x6 domain, batched: forward m = tiles, n = K,
//                      k = C; backward data the same with C and K swapped; backward filter
//                      m = C, n = K, k = tiles (the sum over the batch's tiles);
//   output transform   reads 36 values per tile and output channel, writes the output.
//
// The transforms are memory passes at DRAM's rate (three kernels: input, filter, output), the
// GEMMs the tiled GEMM model at a plain GEMM's rate. Frameworks let cuDNN pick the fastest
// algorithm (TensorFlow's autotuning, torch.backends.cudnn.benchmark), so the convolution costs
// the cheaper of this and its implicit GEMM (GpuComputeModel). Only FP32 on the plain units of
// GPUs before Ampere: from Ampere on, cuDNN runs FP32 convolutions on TF32 tensor cores by default
// (the H200's cuDNN records pick implicit GEMMs for 3x3 FP32 convolutions), and with tensor cores
// the implicit GEMM is the faster.

#include "core/lowering/kernel.h"
#include "models/compute/gpu/gpu_gemm.h"

namespace dnnperf {

/// Whether `k` is a convolution Winograd F(4x4, 3x3) computes: 3x3 window, unit stride and
/// dilation, one group.
bool winograd_applies(const Kernel& k);

/// Seconds of `k` (winograd_applies) by the non-fused Winograd algorithm on `device`, with
/// `params` and the FP32 math's `work`; `call_s` is the least a convolution call takes
/// (GpuConvParams::fixed_s of its direction).
double winograd_seconds(const DeviceSpec& device, const GpuKernelParams& params, const Kernel& k, GpuMatrixWork work, double call_s);

}  // namespace dnnperf
