#include "core/lowering/kernel.h"

namespace dnnperf {

std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::forward: return "forward";
    case Phase::backward_data: return "backward_data";
    case Phase::backward_weight: return "backward_weight";
    case Phase::update: return "update";
  }
  return "?";
}

std::string_view kernel_class_name(KernelClass cls) {
  switch (cls) {
    case KernelClass::gemm: return "gemm";
    case KernelClass::conv: return "conv";
    case KernelClass::elementwise: return "elementwise";
    case KernelClass::reduction: return "reduction";
    case KernelClass::gather: return "gather";
    case KernelClass::copy: return "copy";
  }
  return "?";
}

GemmShape implicit_gemm(const Kernel& k) {
  if (k.cls != KernelClass::conv) return k.gemm;
  const ConvShape& c = k.conv;
  const std::int64_t cg = c.c / c.groups, kg = c.k / c.groups;
  switch (k.phase) {
    case Phase::forward: return {c.n * c.p * c.q, kg, cg * c.r * c.s, c.groups, false, false};
    case Phase::backward_data: return {c.n * c.h * c.w, cg, kg * c.r * c.s, c.groups, false, false};
    default: return {kg, cg * c.r * c.s, c.n * c.p * c.q, c.groups, false, false};
  }
}

std::string calibration_class(const Kernel& k) {
  if (k.cls == KernelClass::gemm) return "gemm";
  if (k.cls == KernelClass::conv)
    return k.phase == Phase::forward ? "conv_forward" : k.phase == Phase::backward_data ? "conv_backward_data" : "conv_backward_filter";
  return k.pass.empty() ? "memory" : "pass:" + std::string(k.pass);
}

const std::vector<std::string_view>& op_pass_names() {
  static const std::vector<std::string_view> names = {"max_pool", "max_pool_backward", "avg_pool", "batch_norm", "batch_norm_backward",
                                                      "batch_norm_inference", "softmax", "embedding", "sgd", "momentum", "adam", "dropout", "relu6"};
  return names;
}

}  // namespace dnnperf
