#include "records/kernel_record.h"

#include "core/common/error.h"
#include "core/graph/shape_inference.h"
#include "core/graph/tensor_shape.h"
#include "core/lowering/lower.h"

namespace dnnperf {

namespace {

/// A shape parameter in [least, kMaxTensorElements].
std::int64_t dimension(const nlohmann::json& p, const char* name, std::int64_t least = 1) {
  const nlohmann::json& j = p.at(name);
  // Only an integer is a dimension: nlohmann converts a float such as 3.8e21 to int64 by a cast
  // that is undefined beyond its range.
  if (!j.is_number_integer())
    throw InputError(std::string("params field '") + name + "' must be an integer, is " + j.dump());
  const std::int64_t v = j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxTensorElements) ? kMaxTensorElements + 1 : j.get<std::int64_t>();
  if (v < least || v > kMaxTensorElements)
    throw InputError(std::string("params field '") + name + "' must be " + (least > 0 ? "positive" : "non-negative") + " (at most 2^48), is " + std::to_string(v));
  return v;
}

/// The product of `factors`, which must stay within one tensor's bound (kMaxTensorElements).
void check_elements(std::initializer_list<std::int64_t> factors, const char* what) {
  std::int64_t product = 1;
  for (std::int64_t f : factors)
    if (const auto next = bounded_product(product, f)) product = *next;
    else throw InputError(std::string("params: the ") + what + " would hold more than 2^48 elements");
}

}  // namespace

std::optional<Kernel> matrix_kernel_of(const std::string& op, const nlohmann::json& p, DType dtype) {
  if (op == "gemm") {
    const GemmShape g{dimension(p, "m"), dimension(p, "n"), dimension(p, "k"), dimension(p, "batch"), p.at("trans_a").get<bool>(), p.at("trans_b").get<bool>()};
    check_elements({g.batch, g.m, g.k}, "first operand");
    check_elements({g.batch, g.k, g.n}, "second operand");
    check_elements({g.batch, g.m, g.n}, "result");
    return gemm_kernel(Phase::forward, g, dtype);
  }
  if (op != "conv_forward" && op != "conv_backward_data" && op != "conv_backward_filter") return std::nullopt;
  const Phase phase = op == "conv_forward" ? Phase::forward : op == "conv_backward_data" ? Phase::backward_data : Phase::backward_weight;
  ConvShape c;
  c.n = dimension(p, "n");
  c.c = dimension(p, "c");
  c.h = dimension(p, "h");
  c.w = dimension(p, "w");
  c.k = dimension(p, "k");
  c.r = dimension(p, "r");
  c.s = dimension(p, "s");
  c.stride_h = dimension(p, "stride_h");
  c.stride_w = dimension(p, "stride_w");
  c.pad_h = dimension(p, "pad_h", 0);
  c.pad_w = dimension(p, "pad_w", 0);
  c.dilation_h = dimension(p, "dilation_h");
  c.dilation_w = dimension(p, "dilation_w");
  c.groups = dimension(p, "groups");
  if (c.c % c.groups != 0 || c.k % c.groups != 0)
    throw InputError("params: groups = " + std::to_string(c.groups) + " must divide c = " + std::to_string(c.c) + " and k = " + std::to_string(c.k));
  check_elements({c.n, c.c, c.h, c.w}, "input");
  check_elements({c.k, c.c / c.groups, c.r, c.s}, "filter");
  check_elements({c.h + 2 * c.pad_h, c.w + 2 * c.pad_w}, "padded input");
  check_elements({c.dilation_h, c.r}, "dilated filter");
  check_elements({c.dilation_w, c.s}, "dilated filter");
  c.p = window_output_size(c.h, c.r, c.stride_h, c.pad_h, c.pad_h, c.dilation_h, false);
  c.q = window_output_size(c.w, c.s, c.stride_w, c.pad_w, c.pad_w, c.dilation_w, false);
  if (c.p <= 0 || c.q <= 0) throw InputError("params: the filter (r, s, dilation) is larger than the padded input (h, w, pad)");
  check_elements({c.n, c.k, c.p, c.q}, "output");
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
