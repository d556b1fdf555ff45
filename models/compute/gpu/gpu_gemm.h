#pragma once
// A GEMM on a GPU as its library runs it: the output cut into tiles of one of the shapes the
// generation's kernels use, the tiles run in waves of one per SM (the last wave partly idle),
// the k dimension split over several tiles where too few output tiles would leave SMs idle
// (split-K, its partial sums reduced through memory), each tile's k-loop paced by the slower
// of its arithmetic and its operand loads from L2, plus a fixed cost per tile and per kernel;
// never faster than streaming the operands from DRAM once. Libraries pick the fastest tiling
// for a shape by their heuristics; the model takes the fastest of its candidates, which is what
// a good heuristic approaches.
//
// Shapes are row-major, as frameworks call them (GemmShape): C[m, n] = op(A)[m, k] op(B)[k, n],
// A stored [m, k] ([k, m] with trans_a), B stored [k, n] ([n, k] with trans_b). cuBLAS's
// column-major calls are the row-major product with m and n, and the operands, swapped.
#include <cstdint>
#include <span>

#include "core/lowering/kernel.h"
#include "profile/gpu_kernel_params.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

/// A tile shape: output rows and columns per tile, k per step of its loop.
struct GpuTile {
  std::int64_t m = 0, n = 0, k = 0;
};

/// The candidate tiles of a generation and math, largest first.
std::span<const GpuTile> gpu_tile_candidates(GpuGeneration generation, GpuMath math);

/// The alignment in bytes (1, 2, 4, 8 or 16: at most 16) of the leading dimensions of A, B and C.
int gemm_alignment_bytes(const GemmShape& g, int element_bytes);

/// The tiling the model chose for a GEMM and its parts, for reports and fitting.
struct GpuGemmPlan {
  GpuTile tile;
  std::int64_t split_k = 1;
  std::int64_t tiles = 0;   // output tiles times split_k, all batches
  std::int64_t waves = 0;
  double loop_seconds = 0;  // the waves' time
  double dram_seconds = 0;  // streaming A, B and C from DRAM once
  double seconds = 0;       // what the kernel takes, kernel_min_s included
};

/// What the GEMM's k-loop needs beyond its shape: the math it runs in and that math's peak, the
/// bytes of an element, and a factor on the k-loop's rate (1 for a GEMM; a convolution
/// direction's GpuConvParams::efficiency).
struct GpuMatrixWork {
  GpuMath math = GpuMath::fp32;
  double peak_flops = 0;  // the device's, for the math
  int element_bytes = 4;
  int alignment_bytes = 16;
  double loop_factor = 1;
  double tile_extra_s = 0;  // added to the math's tile_fixed_s (a convolution's, GpuConvParams)
  double least_s = -1;      // the kernel's least time; < 0: GpuKernelParams::kernel_min_s
  bool split_k = true;      // whether the k dimension may be split over several tiles
  const GpuMathParams* loop = nullptr;  // the k-loop's parameters; null: GpuKernelParams::math of `math`
};

/// Prices `g` on `device` with `params`. Pure arithmetic, allocation-free.
GpuGemmPlan gpu_gemm_plan(const DeviceSpec& device, const GpuKernelParams& params, const GemmShape& g, const GpuMatrixWork& work);

}  // namespace dnnperf
