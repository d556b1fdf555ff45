#pragma once
// Per-layer and total counts of a network: parameters, FLOPs and bytes per phase, and the
// activation memory kept for backward. This is what `dnnperf net show` prints.
//
// FLOPs and bytes are summed from the lowered kernels, so the counts and what the cost models
// price can never disagree.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/graph/graph.h"
#include "core/lowering/kernel.h"

namespace dnnperf {

struct PhaseCounts {
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  int kernels = 0;
};

struct LayerCounts {
  /// Elements of the parameter tensors this op is the first to read.
  std::int64_t params = 0;
  std::array<PhaseCounts, kPhaseCount> phases{};
  /// Multiply-adds of GEMMs and convolutions in the forward pass (the "MACs" papers quote).
  double forward_macs = 0;
  std::int64_t activation_bytes = 0;

  const PhaseCounts& phase(Phase p) const { return phases[static_cast<std::size_t>(p)]; }
  double backward_flops() const { return phase(Phase::backward_data).flops + phase(Phase::backward_weight).flops; }
  void add(const LayerCounts& other);
};

struct NetworkSummary {
  std::vector<LayerCounts> layers;  // indexed like graph.ops()
  LayerCounts totals;
};

/// Sums `kernels` (from lower() with training on, for backward and update figures) per op.
NetworkSummary summarize(const Graph& graph, std::span<const Kernel> kernels);

}  // namespace dnnperf
