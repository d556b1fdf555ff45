#pragma once
// Memory one device needs for a training step or an inference, by part.
#include <cstdint>

#include "core/graph/graph.h"
#include "profile/hardware_profile.h"
#include "predictor/prediction/run_config.h"

namespace dnnperf {

struct MemoryEstimate {
  double weights = 0;          // parameters (fp32 master plus half copy under mixed precision)
  double gradients = 0;
  double optimizer_state = 0;  // momentum: 1 fp32 copy, Adam: 2
  double activations = 0;      // kept for backward (training) or the largest live set (inference)
  double workspace = 0;        // runtime reserve, plus DDP's gradient buckets when replicated
  double capacity = 0;

  double total() const { return weights + gradients + optimizer_state + activations + workspace; }
  bool fits() const { return total() <= capacity; }
  double shortfall() const { return fits() ? 0.0 : total() - capacity; }
};

/// `graph` is the per-device graph (per-device batch).
MemoryEstimate estimate_memory(const Graph& graph, const HardwareProfile& hardware, const RunConfig& config);

}  // namespace dnnperf
