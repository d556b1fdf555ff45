#pragma once
// Convolutions a framework runs as GEMMs, one per image.
//
// A library need not run every convolution with a convolution kernel: PyTorch's CPU backend on one
// thread sends 1x1 unstrided convolutions with batches under 16 to its own code, which multiplies
// each image's channels-by-pixels matrix by the weights (ATen's use_mkldnn condition; no im2col is
// needed for a 1x1 window). Timed on the 2-core VM (2026-11-30, cold caches), such a convolution
// takes what its batch of plain GEMMs takes, within 5% (ResNet-50's 1x1 layers at batch 4: 0.34 to
// 2.2 ms), and about twice what a convolution model fitted on the rest predicts. A profile names
// the rule (DeviceSpec::pointwise_conv_gemm_below_batch) and those convolutions are priced as
// their GEMMs, by whatever prices GEMMs.
#include <cstdint>
#include <optional>

#include "profile/hardware_profile.h"
#include "core/lowering/kernel.h"

namespace dnnperf {

struct PerImageGemm {
  Kernel gemm;              // one image's GEMM, in the convolution's phase and element type
  std::int64_t images = 0;  // how many run, one after another
};

/// The per-image GEMMs `conv` runs as on `device`, or nothing when it runs as a convolution:
///   forward          output[k x pixels] = weights[k x c] . image[c x pixels]
///   backward data    d image[c x pixels] = weights^T[c x k] . d output[k x pixels]
///   backward filter  d weights[k x c] += d output[k x pixels] . image^T[pixels x c]
std::optional<PerImageGemm> per_image_gemm(const Kernel& conv, const DeviceSpec& device);

}  // namespace dnnperf
