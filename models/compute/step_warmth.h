#pragma once
// StepWarmth: what a convolution saves inside a training step against its cold calibration.
//
// Calibration times every convolution from evicted caches (scripts/torch_bench.py --cold): a
// layer's filter was, in most networks, last touched a whole pass ago. The same kernels timed
// again back to back (--hot-pairs) run faster, by a fixed part and a part per byte of each operand:
//
//   cold - hot = call_s * cold / (cold + call_tau_s) + input_s_per_byte * input_bytes
//                + weight_s_per_byte * filter_bytes + output_s_per_byte * output_bytes
//
// (per direction, the forward's activation and filter sizes in every direction). The fixed part
// is a cold start (the library's code and state, the page tables) that a kernel pays as it runs:
// one much shorter than call_tau_s is over before it has paid the whole of it. Without that bound
// (call_tau_s = 0, the form before 2026-12-02's night) the fit on the dev VM's 298 pairs of CNN
// layers left its error in the kernels' length: under 0.3 ms it saved 0.69 of the cold time where
// the pairs saved 0.66, over 3 ms 0.94 where they saved 0.99 (forward; the backward alike), and
// the networks' layers, mostly under a millisecond at small batches, were priced too cold. With
// it: fixed parts of 86-105 us at tau 83-121 us, the bytes at 20-430 GB/s, held-out hot times
// 7.5-9.2% off (against 25-28% taken as cold). How much a cold cache costs depends on the
// machine's neighbours: at twice the calibration's times the pairs saved twice as much.
//
// Inside a step a kernel is neither: its operands and its library's buffers are warm as far as
// the step touched little else since (analysis/step_residency.h replays the step through a cache
// of cache_bytes and sets Kernel::resident). The step prices a convolution at its cold time less
// each part of that difference by the share found warm:
//
//   saved = resident.call * call_s + resident.input * input_s_per_byte * input_bytes + ...
//
// at most most_saved of the cold time (the largest share the pairs saved), all of it times
// realized_share. A pair's second call finds everything of the first warm — its operands, its
// output's pages, the library's code and state — and a step's kernel finds part of that even where
// its operands are resident: on the dev VM (2026-12-02) DenseNet-121's 1x1 forwards at batch 4 ran
// in their inference at 0.82 of their cold times, where full savings price them at 0.68. That
// share is fitted on whole steps of networks not validated (`fit --steps`; 1 without them), and
// apart for inference (realized_share_inference), whose forward passes run back to back without a
// backward's tensors between them: on the dev VM (2026-12-03) a calibration whose training steps
// realized none of the savings priced its batch-4 to 32 inferences of ResNet-18/50 and
// MobileNetV2 5-24% slow, where half of them fitted.
//
// The fixed part may be the native path's own (native_call_s): a oneDNN primitive's cold start
// includes its own JIT code and the reorders of blocked layouts, which PyTorch's im2col-free GEMMs
// on plain tensors do not have — on the dev VM's generic pairs (2026-12-02, scaled to the
// calibration's speed) the native forwards have a fixed part of 49 us against the others' 84, and
// one fixed part for both left the native ones' held-out hot times 7.9% off, 3.3% with their own.
// The fit keeps it per direction only where it predicts held-out pairs better. A weight gradient
// computed in its input gradient's call (Kernel::shares_call) paid no call to save. Fitted by
// `dnnperf fit` from hot pairs (fitting/compute/warm_savings_fit.h); absent, convolutions keep
// their cold price.
#include <array>

#include "predictor/analysis/step_residency.h"
#include "predictor/lowering/kernel.h"

namespace dnnperf {

struct ConvWarmSavings {
  /// The fixed part: call_s for a long kernel, call_s * cold / (cold + call_tau_s) for any (0: no
  /// such bound; a kernel shorter than call_tau_s is over before it has paid the whole of it).
  double call_s = 0, call_tau_s = 0;
  double input_s_per_byte = 0, weight_s_per_byte = 0, output_s_per_byte = 0;
  /// The fixed part of a convolution on PyTorch's native path (ConvPath::native), under the same
  /// bound; < 0: as every other path's, call_s.
  double native_call_s = -1;
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
  /// The same for inference, in [0, 1]; < 0: as training's.
  double realized_share_inference = -1;

  /// The share for a step of this kind.
  double share(bool inference) const { return inference && realized_share_inference >= 0 ? realized_share_inference : realized_share; }
  /// What a step's convolutions pay beyond their cold calibration, as a share of the cold time,
  /// whatever they save: calibration's eviction (64 MiB) leaves a large last-level cache, its
  /// page tables and the library's state partly warm, which a step's other tensors do not. On the
  /// Intel VM (L3 480 MiB, 2026-12-03) ResNeXt-50's and ResNet-34's convolutions ran 0-7% slower
  /// inside their steps than timed cold, where the warmth saved them 4-8%, and a 1 GiB eviction
  /// made ResNet-50's batch-16 kernels 1.44x slower than the 64 MiB one. Fitted with the share on
  /// convolutions timed inside steps (fitting/compute/realized_share_fit.h); 0: none.
  double in_step_excess = 0;
  /// The same for inference; < 0: as training's.
  double in_step_excess_inference = -1;
  double excess(bool inference) const { return inference && in_step_excess_inference >= 0 ? in_step_excess_inference : in_step_excess; }

  /// How far calibration's cold state reached (analysis/step_residency.h ColdReach): the eviction
  /// before each cold repetition (kCpuColdEvictionBytes) and the calibrating CPU's last-level
  /// cache. 0: no far bytes counted.
  double cold_eviction_bytes = 0, last_level_cache_bytes = 0;
  /// What a step's convolution pays per byte of its operands beyond that reach (Kernel::far_bytes):
  /// the cold timing found them in the last-level cache, the step fetches them from memory.
  /// Fitted beside the share on convolutions timed inside steps (fitting/compute/realized_share_fit.h),
  /// kept only where it predicts held-out networks better; 0: none.
  double far_s_per_byte = 0;
  /// The same for inference; < 0: as training's.
  double far_s_per_byte_inference = -1;
  double far(bool inference) const { return inference && far_s_per_byte_inference >= 0 ? far_s_per_byte_inference : far_s_per_byte; }

  /// Where the machine's cache stops holding what was touched long ago, as measured: a distance
  /// curve's fitted reach (fitting/compute/pass_far_fit.h), below the last-level cache where
  /// neighbours use part of it. 0: not measured, the last-level cache's size stands for it.
  double far_reach_bytes = 0;
  /// What a memory-bound pass pays per byte it reads, and per byte it writes, beyond its hot
  /// calibration's reach (Kernel::far_read_bytes, far_written_bytes): calibration times passes
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

/// The eviction before each cold repetition of a GEMM or convolution on a CPU
/// (scripts/torch_bench.py CacheFlush: twice a large L3 of 2020, an AMD EPYC's 32 MiB).
inline constexpr double kCpuColdEvictionBytes = 64.0 * 1024 * 1024;

/// The operand sizes the savings are per byte of: the forward's input, filter and output.
struct ConvOperandBytes {
  double input = 0, weight = 0, output = 0;
};
ConvOperandBytes conv_operand_bytes(const ConvShape& c, double element_bytes);

/// What `k` saves against `cold_seconds` where the step left it as warm as Kernel::resident says,
/// in a training step or an inference (the share realized, StepWarmth::share), less what every
/// convolution of such a step pays beyond its cold time (StepWarmth::excess) and for its operands
/// fetched from further out than the cold timing's (StepWarmth::far): negative where those are the
/// larger. A memory-bound pass saves nothing (it was timed hot) and pays for its far bytes read
/// and written (StepWarmth::pass_far_read_s_per_byte). 0 for other kernels, the optimizer's
/// updates, or where `warmth` is not enabled.
double warm_savings_seconds(const StepWarmth& warmth, const Kernel& k, double cold_seconds, bool inference = false);

}  // namespace dnnperf
