#include "models/compute/conv_as_gemm.h"

#include "core/lowering/lower.h"

namespace dnnperf {

std::optional<PerImageGemm> per_image_gemm(const Kernel& k, const DeviceSpec& device) {
  if (k.cls != KernelClass::conv || device.pointwise_conv_gemm_below_batch <= 0) return std::nullopt;
  const ConvShape& c = k.conv;
  const bool pointwise = c.r == 1 && c.s == 1 && c.stride_h == 1 && c.stride_w == 1 && c.pad_h == 0 && c.pad_w == 0 &&
                         c.dilation_h == 1 && c.dilation_w == 1 && c.groups == 1;
  if (!pointwise || c.n >= device.pointwise_conv_gemm_below_batch) return std::nullopt;
  const std::int64_t pixels = c.p * c.q;
  GemmShape g{c.k, pixels, c.c, 1, false, false};
  if (k.phase == Phase::backward_data) g = {c.c, pixels, c.k, 1, true, false};
  else if (k.phase != Phase::forward) g = {c.k, c.c, pixels, 1, false, true};
  return PerImageGemm{gemm_kernel(k.phase, g, k.dtype), c.n};
}

}  // namespace dnnperf
