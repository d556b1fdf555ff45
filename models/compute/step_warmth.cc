#include "models/compute/step_warmth.h"

#include <algorithm>

#include "models/compute/direct_conv.h"

namespace dnnperf {

ConvOperandBytes conv_operand_bytes(const ConvShape& c, double element_bytes) {
  const double groups = static_cast<double>(std::max<std::int64_t>(c.groups, 1));
  return {static_cast<double>(c.n * c.c * c.h * c.w) * element_bytes,
          static_cast<double>(c.k) * (static_cast<double>(c.c) / groups) * static_cast<double>(c.r * c.s) * element_bytes,
          static_cast<double>(c.n * c.k * c.p * c.q) * element_bytes};
}

double warm_savings_seconds(const StepWarmth& warmth, const Kernel& k, const StepCacheState& state, double cold_seconds, bool inference) {
  if (!warmth.enabled() || k.phase == Phase::update || !(cold_seconds > 0)) return 0.0;
  if (k.cls != KernelClass::conv) return -(warmth.pass_far_read_s_per_byte * state.far_read_bytes + warmth.pass_far_written_s_per_byte * state.far_written_bytes);
  const ConvWarmSavings& s = warmth.conv[static_cast<std::size_t>(k.phase)];
  const ConvOperandBytes b = conv_operand_bytes(k.conv, dtype_bytes(k.dtype));
  const StepCacheState::ResidentShare& r = state.resident;
  const double call = s.native_call_s && conv_path(k.conv, k.phase) == ConvPath::native ? *s.native_call_s : s.call_s;
  const double fixed = s.call_tau_s > 0 ? call * cold_seconds / (cold_seconds + s.call_tau_s) : call;
  const double saved = (k.shares_call ? 0.0 : r.call * fixed) + r.input * s.input_s_per_byte * b.input + r.weight * s.weight_s_per_byte * b.weight +
                       r.output * s.output_s_per_byte * b.output;
  return std::clamp(warmth.share(inference) * saved, 0.0, warmth.most_saved * cold_seconds) - warmth.excess(inference) * cold_seconds -
         warmth.far(inference) * state.far_bytes;
}

}  // namespace dnnperf
