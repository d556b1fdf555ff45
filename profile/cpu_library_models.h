#pragma once
// The parameters of the CPU library models a calibration may fit (plain data, as a profile's
// device.efficiency section stores them; profile/fitted_sections.h reads and writes them):
//   BlockedGemm   a BLAS's cache-blocked GEMM          priced by models/compute/blocked_gemm.h
//   DirectConv    a convolution library's code paths  priced by models/compute/direct_conv.h
//   StepWarmth    what a training step leaves warm    priced by models/compute/step_warmth.h
// Plain data: the functions that price with them are those models'. A profile without them (every
// datasheet profile, every GPU) leaves them disabled.
#include <array>
#include <cstdint>
#include <optional>

#include "core/analysis/step_residency.h"
#include "core/lowering/kernel.h"

namespace dnnperf {

struct BlockedGemm {
  /// Rows and columns of a cache block; 0: the device has no blocked GEMM model.
  std::int64_t block = 0;
  /// Elements per vector register: a remainder dimension not a multiple of it runs scalar.
  std::int64_t vector_width = 1;
  /// A second width the clean-up code along m, n, k handles vectorised (0: none): a remainder
  /// that is a multiple of it is not misaligned either.
  std::array<std::int64_t, 3> cleanup_width{0, 0, 0};
  /// FLOP/s inside whole blocks.
  double block_flops = 0;
  /// Rate of each region with remainders against whole blocks, in (0, 1]. Index: 4 * (m is a
  /// remainder) + 2 * (n is) + (k is) - 1.
  std::array<double, 7> partial_efficiency{1, 1, 1, 1, 1, 1, 1};
  /// Extra time of a region whose remainder along m, n or k is misaligned (>= 1).
  std::array<double, 3> misaligned_slowdown{1, 1, 1};
  double operand_bandwidth = 0;  // bytes/s packing A and B, rows short
  /// Stored row length (bytes) at which packing an operand is halfway to its slowdown.
  double long_row_bytes = 1e9;
  /// Packing slowdown of long rows (>= 1), per operand and layout: A stored [m, k], A stored
  /// [k, m] (trans_a), B stored [k, n], B stored [n, k] (trans_b).
  std::array<double, 4> long_row_slowdown{1, 1, 1, 1};
  /// Packing time per byte of each operand and layout against A stored [m, k] (index 0, always 1):
  /// a copy along stored rows and a gather across them need not run at one rate.
  std::array<double, 4> layout_packing{1, 1, 1, 1};
  /// Operand size (bytes) at which packing it is halfway to large_operand_slowdown (>= 1): an
  /// operand beyond the last cache level streams from memory.
  double large_operand_bytes = 1e12;
  double large_operand_slowdown = 1;
  double output_bandwidth = 0;   // bytes/s writing C, up to large_output_bytes
  /// Output size (bytes) at which writing it is halfway to large_output_slowdown (>= 1).
  double large_output_bytes = 1e12;
  double large_output_slowdown = 1;
  /// How sharply packing slows once rows pass long_row_bytes, and writing once outputs pass
  /// large_output_bytes: the exponent of r above (4 in profiles that do not give them).
  double long_row_steepness = 4;
  double large_output_steepness = 4;
  double call_overhead_s = 0;
  /// The element type it was fitted on; GEMMs of other types are priced by the tiled model.
  DType dtype = DType::f32;

  bool enabled() const { return block > 0; }
};

/// The code path a CPU library takes for a convolution (the implementation oneDNN's verbose mode
/// names, checked against 1,842 measured shapes of PyTorch 1.13 / oneDNN 2.6 on AVX-512, of which
/// 1,840 agree; tests/data/onednn-paths):
/// - native: PyTorch's own im2col and GEMM instead of oneDNN (ATen's use_mkldnn): 1x1 unstrided
///   at batches under 16, any groups, and one image of at most kNativeConvMaxInput values under a
///   window of at most 3, groups 1 ("small-batch pointwise", its first case, in older notes);
/// - gemm: oneDNN's im2col and GEMM ("gemm:jit"), where no JIT kernel takes the shape: a forward
///   convolution whose padding exceeds its output's width or height (the JIT kernels start with
///   at most one output row of left padding), and a depthwise weight gradient other than a window
///   of at most 3x3 with strides no larger than the window and an output row and column that
///   reads no padding (3x3 over 2x2, or 3x3 at stride 2 over 3x3, is im2col; over 4x4 it is not);
/// - depthwise (groups > 1, "jit_dw");
/// - pointwise (1x1, "jit_1x1"): unstrided, or strided where the strides divide the input
///   exactly (oneDNN then subsamples the input first); other strided 1x1 go direct;
/// - direct ("jit"): the rest.
enum class ConvPath : std::uint8_t { direct = 0, pointwise = 1, native = 2, depthwise = 3, gemm = 4 };

constexpr int kConvPaths = 5;

struct DirectConv {
  /// Channels per vector register (the fill's unit); 0: no direct model for this direction.
  std::int64_t lanes = 0;
  std::array<double, kConvPaths> rate{};              // FLOP/s at full lanes, per path
  double input_fill_exponent = 0, output_fill_exponent = 0;
  double narrow_input_fill_exponent = 0;  // where C / groups < lanes
  std::array<double, kConvPaths> stride_exponent{};
  double window_exponent = 0;
  double depthwise_window_exponent = 0;  // the depthwise path's own (its kernels are per window size)
  std::array<double, kConvPaths> input_bandwidth{};   // bytes/s, per path
  double weight_bandwidth = 0;
  std::array<double, kConvPaths> output_bandwidth{};  // bytes/s, per path
  double call_overhead_s = 0;
  /// PyTorch's own code calls no oneDNN primitive: the native path's call overhead (0: call_overhead_s,
  /// as in profiles fitted before it had one).
  double native_call_overhead_s = 0;
  double large_bytes = 1e12;
  double large_slowdown = 1;
  double large_weight_bytes = 1e12;  // filter size halfway to large_weight_slowdown
  double large_weight_slowdown = 1;  // >= 1; 1: no such edge (profiles fitted before it had one)
  /// Whether the gemm path is priced (rate[gemm] and the rest are fitted): a fit without enough
  /// such shapes, and profiles fitted before the path, price them on the path they took before
  /// (depthwise where groups > 1, else direct).
  bool gemm_path = false;
  double image_call_s = 0;  // per image and group on the native and gemm paths; 0 in older profiles
  /// The filter streamed once per image on the JIT paths past weight_cache_bytes (bytes/s); 0: no
  /// such term (profiles fitted before it).
  double image_weight_bandwidth = 0;
  double weight_cache_bytes = 0;
  /// The BLAS's column block and vector on the native path (0: the columns are not priced; profiles
  /// fitted before the term, and fits without a cache-blocked GEMM model).
  std::int64_t native_column_block = 0, native_column_vector = 0;
  std::int64_t native_column_cleanup = 0;  // a second width the BLAS's clean-up code vectorises (0: none)
  double native_leftover_columns = 0;     // h: a leftover of L columns runs at L / (L + h) of the rate
  double native_misaligned_slowdown = 1;  // >= 1: a leftover that is not whole vectors
  DType dtype = DType::f32;  // the element type it was fitted on

  bool enabled() const { return lanes > 0; }
};

struct ConvWarmSavings {
  /// The fixed part: call_s for a long kernel, call_s * cold / (cold + call_tau_s) for any (0: no
  /// such bound; a kernel shorter than call_tau_s is over before it has paid the whole of it).
  double call_s = 0, call_tau_s = 0;
  double input_s_per_byte = 0, weight_s_per_byte = 0, output_s_per_byte = 0;
  /// The fixed part of a convolution on PyTorch's native path (ConvPath::native), under the same
  /// bound; absent: as every other path's, call_s.
  std::optional<double> native_call_s = std::nullopt;
};

struct StepWarmth {
  /// The cache a step's tensors are replayed through (bytes); 0: no warmth modelled.
  double cache_bytes = 0;
  /// Per convolution direction (Phase::forward, backward_data, backward_weight).
  std::array<ConvWarmSavings, 3> conv{};
  /// The largest share of a cold time warmth may save.
  double most_saved = 0.9;
  /// The share of the pairs' savings a training step's kernels realize, in [0, 1].
  double realized_share = 1;
  /// The same for inference, in [0, 1]; absent: as training's.
  std::optional<double> realized_share_inference = std::nullopt;

  /// The share for a step of this kind.
  double share(bool inference) const { return inference ? realized_share_inference.value_or(realized_share) : realized_share; }
  /// What a step's convolutions pay beyond their cold calibration, as a share of the cold time,
  /// whatever they save: calibration's eviction (64 MiB) leaves a large last-level cache, its
  /// page tables and the library's state partly warm, which a step's other tensors do not. On the
  /// Intel VM (L3 480 MiB, 2026-12-03) ResNeXt-50's and ResNet-34's convolutions ran 0-7% slower
  /// inside their steps than timed cold, where the warmth saved them 4-8%, and a 1 GiB eviction
  /// made ResNet-50's batch-16 kernels 1.44x slower than the 64 MiB one. Fitted with the share on
  /// convolutions timed inside steps (fitting/compute/realized_share_fit.h); 0: none.
  double in_step_excess = 0;
  /// The same for inference; absent: as training's.
  std::optional<double> in_step_excess_inference = std::nullopt;
  double excess(bool inference) const { return inference ? in_step_excess_inference.value_or(in_step_excess) : in_step_excess; }

  /// How far calibration's cold state reached (analysis/step_residency.h ColdReach): the eviction
  /// before each cold repetition (kCpuColdEvictionBytes) and the calibrating CPU's last-level
  /// cache. 0: no far bytes counted.
  double cold_eviction_bytes = 0, last_level_cache_bytes = 0;
  /// What a step's convolution pays per byte of its operands beyond that reach (StepCacheState::far_bytes):
  /// the cold timing found them in the last-level cache, the step fetches them from memory.
  /// Fitted beside the share on convolutions timed inside steps (fitting/compute/realized_share_fit.h),
  /// kept only where it predicts held-out networks better; 0: none.
  double far_s_per_byte = 0;
  /// The same for inference; absent: as training's.
  std::optional<double> far_s_per_byte_inference = std::nullopt;
  double far(bool inference) const { return inference ? far_s_per_byte_inference.value_or(far_s_per_byte) : far_s_per_byte; }

  /// Where the machine's cache stops holding what was touched long ago, as measured: a distance
  /// curve's fitted reach (fitting/compute/pass_far_fit.h), below the last-level cache where
  /// neighbours use part of it. 0: not measured, the last-level cache's size stands for it.
  double far_reach_bytes = 0;
  /// What a memory-bound pass pays per byte it reads, and per byte it writes, beyond its hot
  /// calibration's reach (StepCacheState::far_read_bytes, far_written_bytes): calibration times passes
  /// back to back over the same buffers, a step's read what was written long before and a
  /// training step writes where the previous step's copies were. On the Intel VM (2026-12-04) a
  /// far byte cost 39-57 ps more read and 58-67 ps more written over five curves (reading 29.8 ->
  /// 13.6 GB/s, writing 14.2 -> 7.7).
  /// Fitted from the distance curve (fitting/compute/pass_far_fit.h); 0: none.
  double pass_far_read_s_per_byte = 0, pass_far_written_s_per_byte = 0;

  /// How far calibration's cold state reached, for the step replay.
  ColdReach cold_reach() const { return {cold_eviction_bytes, far_reach_bytes > 0 ? far_reach_bytes : last_level_cache_bytes}; }

  bool enabled() const { return cache_bytes > 0; }
};

}  // namespace dnnperf
