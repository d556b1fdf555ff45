#pragma once
// Memory per GPU of a model-parallel training step, by part, with Megatron-LM's accounting:
// mixed precision holds 2 bytes of working weights, 4 of fp32 gradients and 12 of optimizer state
// (fp32 master weights and Adam's two moments) per parameter, 18 in all (Megatron's distributed
// optimizer docs; fp32 training: 4 + 4 + 8). ZeRO shards them over the data-parallel ranks
// (Rajbhandari et al. 2020): stage 1 the optimizer state (Megatron's distributed optimizer:
// 6 + 12/d), stage 2 also the gradients, stage 3 also the weights. Experts shard over the
// expert-data-parallel ranks (dp / ep) instead. Activations are the pipeline schedule's peak of
// in-flight micro-batches, by recompute mode (Korthikanti et al. 2022, Table 2, follows from the
// IR: tests/prediction/model_parallel_test.cc holds them to it).
#include "predictor/large_model/model_parallel_plan.h"

namespace dnnperf {

struct ModelParallelMemory {
  int stage = 0;  // the pipeline stage whose GPUs need the most
  double weights = 0;
  double gradients = 0;
  double optimizer_state = 0;
  double activations = 0;
  double workspace = 0;      // the runtime's reserve (DeviceSpec::reserved_bytes)
  double fragmentation = 0;  // the allocator's hold beyond allocations (plan.fragmentation)
  double capacity = 0;

  double total() const { return weights + gradients + optimizer_state + activations + workspace + fragmentation; }
  bool fits() const { return total() <= capacity; }
  double shortfall() const { return fits() ? 0.0 : total() - capacity; }
};

/// One stage's GPU: `parameters` on it (its tensor-parallel shard), of which `expert_parameters`
/// in experts, and its peak activation bytes.
ModelParallelMemory stage_memory(const ModelParallelPlan& plan, const HardwareProfile& hardware, double parameters,
                                 double expert_parameters, double peak_activations);

}  // namespace dnnperf
