#include "predictor/large_model/model_parallel_memory.h"

#include "profile/hardware_profile.h"

namespace dnnperf {

ModelParallelMemory stage_memory(const ModelParallelPlan& plan, const HardwareProfile& hw, double parameters, double expert_parameters,
                                 double peak_activations) {
  const bool mixed = mixed_precision(plan.precision);
  // FP8 adds each weight's 8-bit copy and its transpose, held as the working weights are.
  const double weight_bytes = (mixed ? 2 : 4) + (plan.precision == Precision::fp8 ? 2 : 0), gradient_bytes = 4, state_bytes = mixed ? 12 : 8;
  const double dense = parameters - expert_parameters;
  const double d = plan.dp(), de = static_cast<double>(plan.dp()) / plan.ep;
  // Parameters as sharded by `stage`: dense ones over dp, experts over dp / ep.
  const auto held = [&](int from_stage) { return plan.zero >= from_stage ? dense / d + expert_parameters / de : parameters; };
  ModelParallelMemory m;
  m.weights = weight_bytes * held(3);
  m.gradients = gradient_bytes * held(2);
  m.optimizer_state = state_bytes * held(1);
  m.activations = peak_activations;
  m.workspace = hw.device.reserved_bytes;
  m.fragmentation = plan.fragmentation * peak_activations;
  m.capacity = hw.device.memory_bytes;
  return m;
}

}  // namespace dnnperf
