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
// of cache_bytes and gives each kernel its StepCacheState). The step prices a convolution at its cold time less
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

#include "core/analysis/step_residency.h"
#include "core/lowering/kernel.h"
#include "profile/cpu_library_models.h"

namespace dnnperf {

/// The eviction before each cold repetition of a GEMM or convolution on a CPU
/// (scripts/torch_bench.py CacheFlush: twice a large L3 of 2020, an AMD EPYC's 32 MiB).
inline constexpr double kCpuColdEvictionBytes = 64.0 * 1024 * 1024;

/// The operand sizes the savings are per byte of: the forward's input, filter and output.
struct ConvOperandBytes {
  double input = 0, weight = 0, output = 0;
};
ConvOperandBytes conv_operand_bytes(const ConvShape& c, double element_bytes);

/// What `k` saves against `cold_seconds` where the step left it as `state` says (replay_step_cache),
/// in a training step or an inference (the share realized, StepWarmth::share), less what every
/// convolution of such a step pays beyond its cold time (StepWarmth::excess) and for its operands
/// fetched from further out than the cold timing's (StepWarmth::far): negative where those are the
/// larger. A memory-bound pass saves nothing (it was timed hot) and pays for its far bytes read
/// and written (StepWarmth::pass_far_read_s_per_byte). 0 for other kernels, the optimizer's
/// updates, or where `warmth` is not enabled.
double warm_savings_seconds(const StepWarmth& warmth, const Kernel& k, const StepCacheState& state, double cold_seconds, bool inference = false);

}  // namespace dnnperf
