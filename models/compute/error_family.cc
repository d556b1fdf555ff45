#include "models/compute/error_family.h"

#include <algorithm>
#include <cmath>

namespace dnnperf {
namespace {

std::string decade(double v) { return std::to_string(static_cast<int>(std::floor(std::log10(std::max(v, 1.0))))); }

}  // namespace

std::string error_family(const Kernel& k) {
  if (k.cls == KernelClass::gemm) {
    const std::int64_t least = std::min({k.gemm.m, k.gemm.n, k.gemm.k});
    return std::string("gemm/") + (k.gemm.trans_a ? "t" : "n") + (k.gemm.trans_b ? "t" : "n") + (least < 16 ? "/skinny" : least < 128 ? "/narrow" : "") +
           "/1e" + decade(k.flops);
  }
  if (k.cls == KernelClass::conv) {
    const ConvShape& c = k.conv;
    return "conv/" + std::string(phase_name(k.phase)) + "/" + std::to_string(c.r) + "x" + std::to_string(c.s) +
           (c.stride_h * c.stride_w > 1 ? "/strided" : "") + (c.groups > 1 ? "/grouped" : "") + (c.n < 16 ? "/small_batch" : "") +
           "/1e" + decade(k.flops);
  }
  return (k.pass.empty() ? std::string("memory") : "pass:" + std::string(k.pass)) + "/1e" + decade(k.bytes_read + k.bytes_written);
}

}  // namespace dnnperf
