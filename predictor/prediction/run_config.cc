#include "predictor/prediction/run_config.h"

namespace dnnperf {

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view name) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::fp8})
    if (precision_name(p) == name) return p;
  return std::nullopt;
}

bool mixed_precision(Precision p) { return p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp8; }

LoweringOptions lowering_for(Precision p, bool training, Optimizer optimizer, bool fused_optimizer) {
  LoweringOptions o;
  o.training = training;
  o.optimizer = optimizer;
  o.fused_optimizer = fused_optimizer;
  if (p == Precision::fp16) o.compute_dtype = DType::f16;
  if (p == Precision::bf16 || p == Precision::fp8) o.compute_dtype = DType::bf16;
  o.fp8_gemms = p == Precision::fp8;
  return o;
}

std::optional<MathMode> required_tensor_math(Precision p) {
  if (p == Precision::tf32) return MathMode::tf32_tensor;
  if (p == Precision::fp8) return MathMode::fp8_tensor;
  return std::nullopt;
}

std::string_view optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::sgd: return "sgd";
    case Optimizer::momentum: return "momentum";
    case Optimizer::adam: return "adam";
    case Optimizer::lamb: return "lamb";
  }
  return "?";
}

std::optional<Optimizer> parse_optimizer(std::string_view name) {
  for (Optimizer o : {Optimizer::sgd, Optimizer::momentum, Optimizer::adam, Optimizer::lamb})
    if (optimizer_name(o) == name) return o;
  return std::nullopt;
}

std::string_view launch_name(Launch l) { return l == Launch::graph ? "graph" : "eager"; }

std::optional<Launch> parse_launch(std::string_view name) {
  for (Launch l : {Launch::eager, Launch::graph})
    if (launch_name(l) == name) return l;
  return std::nullopt;
}

}  // namespace dnnperf
