#include "records/kernel_record.h"

#include "core/graph/shape_inference.h"
#include "core/lowering/lower.h"

namespace dnnperf {

std::optional<Kernel> matrix_kernel_of(const std::string& op, const nlohmann::json& p, DType dtype) {
  if (op == "gemm") {
    const GemmShape g{p.at("m").get<std::int64_t>(), p.at("n").get<std::int64_t>(), p.at("k").get<std::int64_t>(),
                      p.at("batch").get<std::int64_t>(), p.at("trans_a").get<bool>(), p.at("trans_b").get<bool>()};
    return gemm_kernel(Phase::forward, g, dtype);
  }
  if (op != "conv_forward" && op != "conv_backward_data" && op != "conv_backward_filter") return std::nullopt;
  const Phase phase = op == "conv_forward" ? Phase::forward : op == "conv_backward_data" ? Phase::backward_data : Phase::backward_weight;
  ConvShape c;
  c.n = p.at("n");
  c.c = p.at("c");
  c.h = p.at("h");
  c.w = p.at("w");
  c.k = p.at("k");
  c.r = p.at("r");
  c.s = p.at("s");
  c.stride_h = p.at("stride_h");
  c.stride_w = p.at("stride_w");
  c.pad_h = p.at("pad_h");
  c.pad_w = p.at("pad_w");
  c.dilation_h = p.at("dilation_h");
  c.dilation_w = p.at("dilation_w");
  c.groups = p.at("groups");
  c.p = window_output_size(c.h, c.r, c.stride_h, c.pad_h, c.pad_h, c.dilation_h, false);
  c.q = window_output_size(c.w, c.s, c.stride_w, c.pad_w, c.pad_w, c.dilation_w, false);
  return conv_kernel(phase, c, dtype);
}

std::pair<std::string, nlohmann::json> matrix_kernel_record(const Kernel& k) {
  if (k.cls == KernelClass::gemm) {
    const GemmShape& g = k.gemm;
    return {"gemm", {{"m", g.m}, {"n", g.n}, {"k", g.k}, {"batch", g.batch}, {"trans_a", g.trans_a}, {"trans_b", g.trans_b}}};
  }
  const ConvShape& c = k.conv;
  const std::string op = k.phase == Phase::forward ? "conv_forward" : k.phase == Phase::backward_data ? "conv_backward_data" : "conv_backward_filter";
  return {op, {{"n", c.n}, {"c", c.c}, {"h", c.h}, {"w", c.w}, {"k", c.k}, {"r", c.r}, {"s", c.s}, {"stride_h", c.stride_h},
               {"stride_w", c.stride_w}, {"pad_h", c.pad_h}, {"pad_w", c.pad_w}, {"dilation_h", c.dilation_h}, {"dilation_w", c.dilation_w},
               {"groups", c.groups}}};
}

MatrixKernelKey matrix_kernel_key(const Kernel& k) {
  const GemmShape& g = k.gemm;
  const ConvShape& c = k.conv;
  const bool gemm = k.cls == KernelClass::gemm;
  return {static_cast<std::int64_t>(k.cls), gemm ? 0 : static_cast<std::int64_t>(k.phase), static_cast<std::int64_t>(k.dtype),
          gemm ? g.m : c.n, gemm ? g.n : c.c, gemm ? g.k : c.h, gemm ? g.batch : c.w, gemm ? g.trans_a * 2 + g.trans_b : c.k,
          gemm ? 0 : c.r, gemm ? 0 : c.s, gemm ? 0 : c.stride_h, gemm ? 0 : c.stride_w, gemm ? 0 : c.pad_h, gemm ? 0 : c.pad_w,
          gemm ? 0 : c.dilation_h, gemm ? 0 : c.dilation_w, gemm ? 0 : c.groups, gemm ? 0 : c.p, gemm ? 0 : c.q};
}

}  // namespace dnnperf
