#include "predictor/lowering/kernel.h"

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

}  // namespace dnnperf
