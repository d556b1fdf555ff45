#include "predictor/prediction/memory.h"

#include <algorithm>
#include <numeric>

#include "core/analysis/saved_activations.h"

namespace dnnperf {
namespace {

/// Inference keeps no activations for backward; its peak is the largest set of tensors one op
/// reads and writes at once.
double inference_working_set(const Graph& g, double element_scale) {
  double peak = 0;
  for (const Op& op : g.ops()) {
    double live = 0;
    for (int t : op.inputs)
      if (g.tensor(t).role == TensorRole::activation || g.tensor(t).role == TensorRole::input) live += static_cast<double>(g.tensor(t).bytes());
    for (int t : op.outputs) live += static_cast<double>(g.tensor(t).bytes());
    peak = std::max(peak, live * element_scale);
  }
  return peak;
}

}  // namespace

MemoryEstimate estimate_memory(const Graph& g, const HardwareProfile& hw, const RunConfig& c) {
  MemoryEstimate m;
  m.capacity = hw.device.memory_bytes;
  const double params = static_cast<double>(g.parameter_count());
  const double half = mixed_precision(c.precision) ? 2.0 : 4.0;  // bytes of a working element
  m.workspace = hw.device.reserved_bytes;
  // FP8 keeps the weights its GEMMs read in 8 bits: inference in their place, training beside
  // them (an 8-bit copy and its transpose between forward and backward, Transformer Engine's).
  const double fp8_weights = c.precision == Precision::fp8 ? static_cast<double>(fp8_weight_elements(g)) : 0.0;
  if (c.inference) {
    m.weights = params * half - fp8_weights;
    m.activations = inference_working_set(g, half / 4.0);
    return m;
  }
  m.weights = params * (mixed_precision(c.precision) ? 4.0 + 2.0 : 4.0) + 2.0 * fp8_weights;
  m.gradients = params * half;
  // Adam and LAMB keep two moments per parameter, momentum one velocity.
  m.optimizer_state = params * (c.optimizer == Optimizer::adam || c.optimizer == Optimizer::lamb ? 8.0 : c.optimizer == Optimizer::momentum ? 4.0 : 0.0);
  const LoweringOptions lowering = lowering_for(c.precision, true, c.optimizer);
  const auto saved = saved_activation_bytes(g, lowering.compute_dtype, lowering.fp8_gemms);
  m.activations = static_cast<double>(std::accumulate(saved.begin(), saved.end(), std::int64_t{0}));
  if (c.plan.data_parallel() > 1) m.workspace += m.gradients;  // DDP copies gradients into its buckets
  return m;
}

}  // namespace dnnperf
