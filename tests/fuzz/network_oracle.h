#pragma once
// What an accepted network must also allow: lowering to a training step's kernels and
// summing them per layer. A reader that accepts a graph the rest of dnnperf cannot price has let
// bad input through.
#include "core/analysis/network_summary.h"
#include "core/graph/graph.h"
#include "core/lowering/lower.h"

namespace dnnperf::fuzz {

inline void check_network(const Graph& graph) {
  const std::vector<Kernel> kernels = lower(graph, LoweringOptions::training_with(Optimizer::adam));
  const NetworkSummary summary = summarize(graph, kernels);
  DNNPERF_CHECK(summary.totals.activation_bytes >= 0);
}

}  // namespace dnnperf::fuzz
