// Convolutions a framework runs as per-image GEMMs, and the error families intervals are built on.
#include "models/compute/conv_as_gemm.h"

#include <catch2/catch.hpp>

#include "models/compute/error_family.h"
#include "models/compute/profile_model.h"
#include "core/lowering/lower.h"

using namespace dnnperf;

namespace {

Kernel conv(Phase phase, std::int64_t n, std::int64_t c, std::int64_t k, std::int64_t hw, std::int64_t r, std::int64_t stride = 1) {
  ConvShape s;
  s.n = n, s.c = c, s.h = s.w = hw, s.k = k, s.r = s.s = r, s.stride_h = s.stride_w = stride, s.pad_h = s.pad_w = r / 2;
  s.p = s.q = (hw + 2 * s.pad_h - r) / stride + 1;
  return conv_kernel(phase, s, DType::f32);
}

}  // namespace

TEST_CASE("Small-batch 1x1 convolutions become one GEMM per image where the profile says so", "[models]") {
  DeviceSpec d;
  CHECK_FALSE(per_image_gemm(conv(Phase::forward, 4, 256, 128, 16, 1), d));  // no rule: a convolution
  d.pointwise_conv_gemm_below_batch = 16;
  const auto f = per_image_gemm(conv(Phase::forward, 4, 256, 128, 16, 1), d);
  REQUIRE(f);
  CHECK(f->images == 4);
  CHECK((f->gemm.gemm.m == 128 && f->gemm.gemm.n == 256 && f->gemm.gemm.k == 256));  // k x pixels from k x c . c x pixels
  CHECK(f->gemm.flops * 4 == Approx(conv(Phase::forward, 4, 256, 128, 16, 1).flops));
  const auto dgrad = per_image_gemm(conv(Phase::backward_data, 4, 256, 128, 16, 1), d);
  REQUIRE(dgrad);
  CHECK((dgrad->gemm.gemm.m == 256 && dgrad->gemm.gemm.k == 128 && dgrad->gemm.gemm.trans_a));
  const auto wgrad = per_image_gemm(conv(Phase::backward_weight, 4, 256, 128, 16, 1), d);
  REQUIRE(wgrad);
  CHECK((wgrad->gemm.gemm.m == 128 && wgrad->gemm.gemm.n == 256 && wgrad->gemm.gemm.k == 256 && wgrad->gemm.gemm.trans_b));
  CHECK_FALSE(per_image_gemm(conv(Phase::forward, 16, 256, 128, 16, 1), d));     // batch 16: a convolution again
  CHECK_FALSE(per_image_gemm(conv(Phase::forward, 4, 256, 128, 16, 3), d));      // 3x3
  CHECK_FALSE(per_image_gemm(conv(Phase::forward, 4, 256, 128, 16, 1, 2), d));   // strided
}

TEST_CASE("A profile prices per-image GEMM convolutions as that many GEMMs", "[models]") {
  HardwareProfile hw = find_hardware_profile("cpu");
  const Kernel pointwise = conv(Phase::forward, 4, 256, 128, 16, 1);
  const double as_conv = ProfileComputeModel(hw).seconds(pointwise, {});
  hw.device.pointwise_conv_gemm_below_batch = 16;
  const ProfileComputeModel model(hw);
  const auto g = per_image_gemm(pointwise, hw.device);
  REQUIRE(g);
  CHECK(model.seconds(pointwise, {}) == Approx(4 * model.seconds(g->gemm, {})));
  CHECK(model.seconds(pointwise, {}) != Approx(as_conv));
  CHECK(model.priced_by(pointwise) == "GEMMs: analytic");
}

TEST_CASE("Error families separate code paths and sizes, not repetitions", "[models]") {
  const Kernel a = conv(Phase::forward, 4, 64, 64, 16, 3), b = conv(Phase::forward, 4, 64, 64, 16, 3);
  CHECK(error_family(a) == error_family(b));
  CHECK(error_family(a) != error_family(conv(Phase::forward, 4, 64, 64, 16, 1)));           // window
  CHECK(error_family(a) != error_family(conv(Phase::backward_data, 4, 64, 64, 16, 3)));     // phase
  CHECK(error_family(a) != error_family(conv(Phase::forward, 4, 64, 64, 16, 3, 2)));        // stride
  CHECK(error_family(a) != error_family(conv(Phase::forward, 64, 256, 256, 64, 3)));        // 1000x the work
  const Kernel skinny = gemm_kernel(Phase::forward, {4, 4096, 9216, 1, false, true}, DType::f32);
  CHECK(error_family(skinny).find("skinny") != std::string::npos);
}
