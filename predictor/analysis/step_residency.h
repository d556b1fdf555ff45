#pragma once
// Which operands a training step finds in the cache.
//
// Calibration times every convolution from evicted caches (scripts/torch_bench.py --cold),
// because in most networks a layer's filter was last touched a whole pass ago. Inside a step that
// is not always so: the backward pass visits the last layers right after their forward, a kernel
// reads the gradient the kernel before it wrote, and a network whose tensors are small against the
// cache finds its filters there again. On the dev VM (2026-12-02, batch 4, 64x64, dnnperf's
// allocator policy, 11 steps each) a training step took 1.16x longer with every convolution and
// linear layer started from evicted caches for ResNet-18, 1.41x for MobileNetV2, 1.31x for
// DenseNet-121 and 1.01x for ResNet-50.
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
// (ColdReach): on the Intel VM (2026-12-03) ResNet-50's batch-16 kernels took 1.11x their time
// after the calibration's 64 MiB eviction once 256 MiB were evicted and 1.44x after 1 GiB — its
// convolutions 1.3–2.4e-10 s more per operand byte, 2–9e-11 at 256 MiB — and MobileNetV2's batch-32 forward
// convolutions ran 1.2-1.3x slower with their outputs kept (as a training step keeps them) than
// with each output freed as the next was made (as an inference does), page faults none.
#include <vector>

#include "predictor/graph/graph.h"
#include "predictor/lowering/kernel.h"

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

/// Sets Kernel::resident on the convolutions of `kernels`, a step lowered from `graph` (lower():
/// forward in op order, backward in reverse, then the updates), and where `reach` is enabled
/// Kernel::far_bytes on the convolutions and Kernel::far_read_bytes, far_written_bytes on the
/// memory-bound passes (not the optimizer's updates): those are timed hot, back to back over their
/// own operands, so their bytes count as far by the share at their step distance less the share at
/// their own bytes; their writes count in a training step (on the Intel VM, 2026-12-04, MobileNetV2's
/// batch-32 batch-norm backward over [32, 96, 32, 32] took 4.14 ms in its step, 1.93 timed hot and
/// 4.04 with every operand evicted), not in an inference, whose outputs reuse memory just freed. Other kernels' touches only age the cache. Nothing is set where
/// cache_bytes <= 0.
void mark_resident_operands(const Graph& graph, std::vector<Kernel>& kernels, double cache_bytes, const ColdReach& reach = {});

}  // namespace dnnperf
