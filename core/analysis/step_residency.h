#pragma once
// Which operands a training step finds in the cache.
//
// Calibration times every convolution from evicted caches (scripts/torch_bench.py --cold),
// because in most networks a layer's filter was last touched a whole pass ago. Inside a step that
// is not always so: the backward pass visits the last layers right after their forward, a kernel
// reads the gradient the kernel before it wrote, and a network whose tensors are small against the
// cache finds its filters there again (how much a step gains so: docs/models/fitting-notes.md,
// "A step's warmth").
//
// The step is replayed as a sequence of buffer touches (each tensor's value and its gradient)
// through a least-recently-used cache of `cache_bytes`: a buffer read after D bytes of other
// buffers were touched keeps (cache_bytes - D) / size of itself there, between 0 and 1. One more
// buffer of no size stands for the convolution library's code and working buffers, which every
// convolution touches: its share, against the kernel's own operand bytes, says how much of a cold
// call's fixed cost the kernel pays. The replay runs over two steps, so that the first forward
// pass finds what the previous step's update left. models/compute/step_warmth.h prices the shares.
//
// The same distances say what a step fetches from further out than its cold calibration did
// (ColdReach): a kernel whose operands were last touched further back than the calibration's
// eviction fetches them from further out, and a training step's outputs, kept for the backward,
// land where the previous step's copies were, not in memory just freed as an inference's do.
#include <vector>

#include "core/graph/graph.h"
#include "core/lowering/kernel.h"

namespace dnnperf {

/// How far calibration's cold state reaches: each cold repetition followed an eviction of
/// `evicted_bytes`, on a CPU whose last-level cache holds `last_level_bytes` (or, where a distance
/// curve measured it, as much of it as the machine's neighbours leave: StepWarmth::cold_reach). Where the cache is
/// the larger (an Intel VM's 480 MiB L3 against the 64 MiB eviction), the cold timing still found
/// part of its operands there; a step's operand last touched further back than the eviction finds
/// less, none beyond the whole cache. Disabled (no far bytes) where the eviction covers the cache.
struct ColdReach {
  double evicted_bytes = 0, last_level_bytes = 0;
  bool enabled() const { return evicted_bytes > 0 && last_level_bytes > evicted_bytes; }
  /// The share of an operand last touched `distance` bytes ago that is beyond the reach: 0 up to
  /// the eviction, 1 from the whole cache on. A step's operand counts as far by its share less
  /// the share at the cold timing's own distance (the eviction plus the kernel's operands, which
  /// its repetitions touched too): a kernel whose operands span the cache was timed from memory.
  double far_share(double distance) const;
};

/// What a step's cache leaves one kernel of it, against how calibration timed it: convolutions
/// cold (from evicted caches), memory-bound passes hot (back to back over their own buffers).
/// Only the CPU library models read it (models/compute/step_warmth.h); a device without a step
/// warmth in its profile never computes it. All 0: as calibrated.
struct StepCacheState {
  /// How warm a training step leaves a convolution, against its cold calibration
  /// (models/compute/step_warmth.h prices it): the share of each
  /// operand it reads that is still in the cache, named as the forward's input and output
  /// activations (in the backward directions their gradients) and the filter, and the share of
  /// its library's code and buffers (`call`: little else ran since the previous convolution).
  /// All 0: cold, as calibrated. Operands a kernel writes are never counted.
  struct ResidentShare {
    double input = 0, weight = 0, output = 0, call = 0;
  } resident;
  /// Bytes of a convolution's operands that the step finds further out than calibration's cold
  /// state leaves them (replay_step_cache): each operand's share last touched beyond the
  /// calibration's eviction, up to the last-level cache, less the share the cold timing's own
  /// repetitions left that far; those bytes come from memory in the step where the cold timing
  /// found them in that cache. A training forward's output counts too: it
  /// is kept for the backward, so its memory is the one the previous step freed, not a buffer
  /// freed a moment ago as in an inference. 0: as calibrated.
  double far_bytes = 0;
  /// Bytes a memory-bound pass (elementwise, reduction, copy; not an optimizer's update) reads, and
  /// in a training step writes, further out than its hot calibration found them
  /// (replay_step_cache): each operand's far share at its distance in the step less its
  /// share at the pass's own bytes, which its back-to-back repetitions touched. 0: as calibrated.
  double far_read_bytes = 0, far_written_bytes = 0;
};

/// Replays the step `kernels` were lowered from `graph` (lower(): forward in op order, backward in
/// reverse, then the updates) through a cache of `cache_bytes`: one state per kernel, `resident`
/// set on the convolutions, and where `reach` is enabled far_bytes on the convolutions and
/// far_read_bytes, far_written_bytes on the memory-bound passes (not the optimizer's updates): those are timed hot, back to back over their
/// own operands, so their bytes count as far by the share at their step distance less the share at
/// their own bytes; their writes count in a training step, not in an inference, whose outputs
/// reuse memory just freed.
/// Other kernels' touches only age the cache. Every state is 0 where cache_bytes <= 0.
std::vector<StepCacheState> replay_step_cache(const Graph& graph, const std::vector<Kernel>& kernels, double cache_bytes, const ColdReach& reach = {});

}  // namespace dnnperf
