#pragma once
// The parameters of the GPU kernel family (plain data, as a profile's device.gpu section stores
// them; models/compute/gpu/ prices with them, fitting/compute/gpu_fit.h fits them).
//
// Two kinds of parameter, which transfer differently between GPUs (docs/models/gpu.md):
//  * device-level, from a datasheet or a device query: the generation (which tile shapes its
//    libraries run), the L2's size, and the DeviceSpec's SMs, peaks and DRAM bandwidth;
//  * shape-level, fitted to measured kernels: how close a tile's k-loop comes to its SM's peak
//    per math, the fixed costs of a tile and of a k-step, what misaligned operands cost, what a
//    convolution direction adds to its implicit GEMM, what a memory pass reaches of DRAM and L2.
//    A datasheet profile carries the ones fitted on another GPU of a like generation.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace dnnperf {

/// The arithmetic a matrix kernel's k-loop runs in, as the GPU family groups it: plain fp32
/// units, TF32 tensor cores (fp32 data), 16-bit tensor cores (f16 and bf16 run alike), fp64,
/// FP8 tensor cores (Hopper on; 8-bit operands, 16-bit results).
enum class GpuMath : std::uint8_t { fp32 = 0, tf32 = 1, half = 2, fp64 = 3, fp8 = 4 };
inline constexpr int kGpuMaths = 5;
inline constexpr std::array<GpuMath, kGpuMaths> kAllGpuMaths{GpuMath::fp32, GpuMath::tf32, GpuMath::half, GpuMath::fp64, GpuMath::fp8};
std::string_view gpu_math_name(GpuMath math);

/// The tile shapes a library picks among depend on the generation's tensor cores and shared
/// memory: Volta (sm_70), Ampere (sm_80/86), Hopper (sm_90) and later.
enum class GpuGeneration : std::uint8_t { volta = 0, ampere = 1, hopper = 2 };
std::string_view gpu_generation_name(GpuGeneration generation);

/// What one math's k-loop achieves.
struct GpuMathParams {
  /// Fraction of an SM's peak (DeviceSpec::peak_flops / multiprocessors) a tile's k-loop reaches
  /// on operands aligned to 16 bytes, in (0, 1].
  double max_efficiency = 0.75;
  /// Seconds a tile pays besides its k-loop: the pipeline's fill and drain, the epilogue.
  double tile_fixed_s = 2e-6;
  /// The shortest a k-step can take whatever its arithmetic (the latency the pipeline cannot hide
  /// on a thin tile), seconds.
  double k_step_min_s = 5e-8;
  /// The rate, bytes/s over all SMs together, at which this math's tiles load their operands
  /// from L2: kernels of different maths load differently (Hopper's tensor-core kernels multicast
  /// a tile's operands to a cluster of SMs; SIMT kernels do not), so one math's fit says nothing
  /// of another's.
  double operand_bandwidth = 10e12;
  /// The k-loop's rate with operands whose leading dimensions are aligned to only 8, 4 or 2
  /// bytes, against 16 (libraries fall back to narrower loads, or off the tensor cores), in (0, 1].
  std::array<double, 3> misaligned_efficiency{1, 1, 1};
};

/// What a convolution direction adds to the implicit GEMM it runs as.
struct GpuConvParams {
  /// The implicit GEMM's k-loop rate against a plain GEMM's of the same math, in (0, 2]: the
  /// gather of the input's windows (forward, backward data) or the reduction over the batch
  /// (backward filter), and where cuDNN picks Winograd or FFT, their saving.
  double efficiency = 1;
  /// Seconds a tile pays on top of a GEMM tile's: the implicit GEMM's address arithmetic over the
  /// window and the padding.
  double tile_fixed_s = 0;
  /// The call's least time, in place of a GEMM's kernel_min_s: cuDNN runs a convolution as one
  /// kernel or several (transforms, split-K reductions).
  double fixed_s = 4e-6;
  /// Depthwise and other thin-group convolutions (priced as streams, not as implicit GEMMs): the
  /// rate of their window arithmetic against the plain units' fp32 peak, in (0, 1]. cuDNN's
  /// depthwise kernels sweep each output's window with little reuse, far below the peak (H200,
  /// PyTorch's MobileNetV2: 1.4-1.8 TFLOP/s forward, 2.5% of the peak).
  double thin_group_efficiency = 1;
};

struct GpuKernelParams {
  /// Off: the device is priced by the analytic family (models/compute/analytic_model.h).
  bool enabled = false;
  GpuGeneration generation = GpuGeneration::hopper;
  /// The L2's size, bytes (device query: cudaDevAttrL2CacheSize).
  double l2_bytes = 50e6;
  /// The shortest a GEMM or convolution runs, launch to finish on the GPU, seconds: a library's
  /// kernel sets up its tiles' pipeline, and may run a second kernel (split-K's reduction).
  double kernel_min_s = 4e-6;
  /// The same for a memory pass: one plain kernel.
  double pass_min_s = 2e-6;
  /// Fraction of DRAM's datasheet bandwidth a stream reaches (copies, operands from DRAM).
  double dram_efficiency = 0.9;
  /// Per math (index: GpuMath): GEMMs' k-loops, and convolutions' where conv_loop has no entry.
  std::array<GpuMathParams, kGpuMaths> math{};
  /// Per math, the k-loop of convolutions' implicit GEMMs where it was fitted apart from GEMMs':
  /// a calibration that timed convolutions but no GEMM in a math (PyTorch's defaults run
  /// convolutions on TF32 and matmuls on plain fp32) measures only what the convolutions reach
  /// (H200: PyTorch's TF32 convolutions fitted a TF32 k-loop at 47% of the peak where cuBLAS's
  /// TF32 GEMMs, timed by the C++ programs, reach 72%), and says nothing of that math's GEMMs.
  /// Absent, convolutions use `math`, with their direction's efficiency on top.
  std::array<std::optional<GpuMathParams>, kGpuMaths> conv_loop{};
  /// The k-loop parameters a convolution in `m` runs with.
  const GpuMathParams& convolution_math(GpuMath m) const {
    const auto i = static_cast<std::size_t>(m);
    return conv_loop[i] ? *conv_loop[i] : math[i];
  }
  /// Per direction (index: Phase forward, backward_data, backward_weight).
  std::array<GpuConvParams, 3> conv{};
  /// A memory pass's rate against a copy's, per pass family (Kernel::pass; "" for plain passes),
  /// in (0, 2]: softmax's exponentials, a normalisation's two sweeps, an optimizer's reads.
  std::map<std::string, double, std::less<>> pass_efficiency;
  /// How many times faster than from DRAM a pass streams bytes the L2 holds, in [1, 8]. A pass
  /// whose bytes read and written fit the L2 (l2_bytes) meets them there: its input was just
  /// written by the kernel before it, in a step as in a benchmark's repetitions. Between one and
  /// two L2s the share it meets falls linearly to none.
  double l2_speedup = 1;
  /// Kernels a framework op of the pass family runs (Kernel::pass; plain passes run one), in
  /// [1, 64]: its least time is that many pass_min_s. PyTorch's Adam step runs about seven.
  std::map<std::string, double, std::less<>> pass_kernels;
  /// Held-out spread of log(measured / modelled) per calibration_class() ("gemm",
  /// "conv_forward", "memory", ...): the 95% interval is the time times exp(+-1.96 sigma).
  std::map<std::string, double, std::less<>> residual_sigma;
  /// The part of it every kernel of the class shares (at most residual_sigma): the held-out
  /// time-weighted bias, log(sum predicted / sum measured), which summing many kernels keeps.
  std::map<std::string, double, std::less<>> shared_sigma;
};

}  // namespace dnnperf
