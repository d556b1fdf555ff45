#include "predictor/prediction/run_config.h"

namespace dnnperf {

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view name) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16})
    if (precision_name(p) == name) return p;
  return std::nullopt;
}

std::string_view optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::sgd: return "sgd";
    case Optimizer::momentum: return "momentum";
    case Optimizer::adam: return "adam";
  }
  return "?";
}

std::optional<Optimizer> parse_optimizer(std::string_view name) {
  for (Optimizer o : {Optimizer::sgd, Optimizer::momentum, Optimizer::adam})
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
