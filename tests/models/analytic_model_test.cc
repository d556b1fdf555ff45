#include "models/compute/analytic_model.h"

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "models/compute/direct_conv.h"
#include "profile/hardware_profile.h"
#include "core/lowering/lower.h"

using namespace dnnperf;

namespace {

Kernel gemm(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype = DType::f32) {
  Kernel g;
  g.cls = KernelClass::gemm;
  g.dtype = dtype;
  g.gemm = {m, n, k, 1, false, false};
  g.flops = 2.0 * m * n * k;
  const double es = dtype_bytes(dtype);
  g.bytes_read = es * (m * k + k * n);
  g.bytes_written = es * m * n;
  return g;
}

Kernel stream(double bytes) {
  Kernel k;
  k.cls = KernelClass::elementwise;
  k.elements = static_cast<std::int64_t>(bytes / 8);
  k.flops = static_cast<double>(k.elements);
  k.bytes_read = bytes / 2;
  k.bytes_written = bytes / 2;
  return k;
}

}  // namespace

TEST_CASE("Large GEMMs approach the fitted fraction of peak", "[models][analytic]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  const AnalyticComputeModel m(hw.device);
  const AnalyticCost c = m.cost(gemm(8192, 8192, 8192), {});
  CHECK(c.mode == MathMode::fp32);
  CHECK(c.compute_efficiency > 0.7 * hw.device.gemm.max_efficiency);
  CHECK(c.compute_efficiency <= hw.device.gemm.max_efficiency);
  CHECK(c.compute_seconds > c.memory_seconds);
  // Tensor cores: bf16 and TF32 run on their own, faster peaks.
  CHECK(m.cost(gemm(8192, 8192, 8192, DType::bf16), {}).mode == MathMode::bf16_tensor);
  CHECK(m.seconds(gemm(8192, 8192, 8192, DType::bf16), {}) < m.seconds(gemm(8192, 8192, 8192), {}) / 10);
  ExecutionOptions tf32;
  tf32.allow_tf32 = true;
  CHECK(m.cost(gemm(8192, 8192, 8192), tf32).mode == MathMode::tf32_tensor);
}

TEST_CASE("Tile and wave quantisation make a slightly larger GEMM disproportionately slower", "[models][analytic]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  const AnalyticComputeModel m(hw.device);
  const double t128 = m.seconds(gemm(128 * 108, 128, 4096), {});  // exactly one wave of full tiles
  const double t129 = m.seconds(gemm(128 * 108 + 1, 128, 4096), {});
  CHECK(t129 > 1.5 * t128);
  // More work never costs less.
  double previous = 0;
  for (std::int64_t n = 64; n <= 8192; n *= 2) {
    const double t = m.seconds(gemm(n, n, n), {});
    CHECK(t >= previous);
    previous = t;
  }
}

TEST_CASE("Memory-bound kernels cost launch plus bytes over effective bandwidth", "[models][analytic]") {
  const HardwareProfile hw = find_hardware_profile("h100");
  const AnalyticComputeModel m(hw.device);
  const double bytes = 1e9;
  const AnalyticCost c = m.cost(stream(bytes), {});
  const double eff = hw.device.memory.max_efficiency * bytes / (bytes + hw.device.memory.half_efficiency_bytes);
  CHECK(c.seconds == Approx(hw.device.launch_overhead_s + bytes / (hw.device.memory_bandwidth * eff)));
  // Tiny kernels cost the launch and the memory ramp's fixed latency.
  const double fixed = hw.device.launch_overhead_s + hw.device.memory.half_efficiency_bytes / (hw.device.memory_bandwidth * hw.device.memory.max_efficiency);
  CHECK(m.seconds(stream(64), {}) == Approx(fixed).epsilon(0.001));
}

TEST_CASE("Passes that overflow the cache slow down, and pass families use their own efficiency", "[models][analytic]") {
  DeviceSpec d = find_hardware_profile("cpu").device;
  d.memory = {.max_efficiency = 1.0, .half_efficiency_bytes = 0, .cache_bytes = 8e6, .dram_slowdown = 4};
  d.launch_overhead_s = 0;
  const AnalyticComputeModel m(d);
  // Far inside the cache: the cache-resident bandwidth; far beyond it: four times slower.
  CHECK(m.seconds(stream(1e3), {}) == Approx(1e3 / d.memory_bandwidth).epsilon(0.01));
  CHECK(m.seconds(stream(1e12), {}) == Approx(4e12 / d.memory_bandwidth).epsilon(0.01));
  CHECK(m.seconds(stream(8e6), {}) == Approx(2.5 * 8e6 / d.memory_bandwidth));  // halfway at the cache's size
  Kernel pool = stream(1e6);
  pool.pass = "max_pool";
  CHECK(m.seconds(pool, {}) == Approx(m.seconds(stream(1e6), {})));  // no family in the profile: a plain pass
  d.passes["max_pool"] = {.max_efficiency = 0.01, .half_efficiency_bytes = 0, .cache_bytes = 8e6, .dram_slowdown = 4};
  const AnalyticComputeModel with_family(d);
  CHECK(with_family.seconds(pool, {}) == Approx(100 * m.seconds(stream(1e6), {})));
  CHECK(with_family.seconds(stream(1e6), {}) == Approx(m.seconds(stream(1e6), {})));
}

TEST_CASE("A device calibrated with TF32 convolutions prices fp32 convolutions, not GEMMs, on TF32 tensor cores", "[models][analytic]") {
  DeviceSpec d = find_hardware_profile("h200").device;
  ConvShape c;
  c.n = 32, c.c = 256, c.h = c.w = 28, c.k = 256, c.r = c.s = 3, c.pad_h = c.pad_w = 1, c.p = c.q = 28;
  const Kernel conv = conv_kernel(Phase::forward, c, DType::f32);
  const double plain = AnalyticComputeModel(d).seconds(conv, {});
  CHECK(AnalyticComputeModel(d).cost(conv, {}).mode == MathMode::fp32);
  d.fp32_conv_math = MathMode::tf32_tensor;
  const AnalyticComputeModel model(d);
  CHECK(model.cost(conv, {}).mode == MathMode::tf32_tensor);
  CHECK(model.seconds(conv, {}) < plain / 3);  // 495 against 67 TFLOP/s, the same efficiency
  CHECK(model.cost(gemm(8192, 8192, 8192), {}).mode == MathMode::fp32);
  CHECK(model.cost(conv_kernel(Phase::forward, c, DType::bf16), {}).mode == MathMode::bf16_tensor);
}

TEST_CASE("Depthwise and thin grouped convolutions run on the plain units, without tiles", "[models][analytic]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  const AnalyticComputeModel m(hw.device);
  ConvShape c;
  c.n = 32, c.c = c.k = 96, c.groups = 96, c.h = c.w = 56, c.r = c.s = 3, c.pad_h = c.pad_w = 1, c.p = c.q = 56;
  const AnalyticCost depthwise = m.cost(conv_kernel(Phase::forward, c, DType::f16), {});
  CHECK(depthwise.mode == MathMode::fp16);  // not fp16_tensor
  CHECK(depthwise.compute_efficiency == Approx(hw.device.conv.max_efficiency));
  CHECK(depthwise.compute_seconds == Approx(2.0 * 32 * 96 * 56 * 56 * 9 / (hw.device.peak_flops.at(MathMode::fp16) * hw.device.conv.max_efficiency)));
  // Eight channels per group: tiles again.
  c.groups = 12;
  CHECK(m.cost(conv_kernel(Phase::forward, c, DType::f16), {}).mode == MathMode::fp16_tensor);
}

TEST_CASE("A device without an arithmetic type says so", "[models][analytic][errors]") {
  const HardwareProfile v100 = find_hardware_profile("v100");
  const AnalyticComputeModel m(v100.device);
  CHECK_THROWS_WITH(m.seconds(gemm(64, 64, 64, DType::bf16), {}), Catch::Contains("cannot compute in bf16"));
  ExecutionOptions tf32;
  tf32.allow_tf32 = true;
  CHECK(m.cost(gemm(1024, 1024, 1024), tf32).mode == MathMode::fp32);  // no TF32 on Volta: plain fp32
}

TEST_CASE("A blocked GEMM model prices GEMMs of its type as blocks, clean-up, packing and call", "[models][compute]") {
  DeviceSpec d = find_hardware_profile("cpu").device;
  const double tiled = AnalyticComputeModel(d).seconds(gemm(96, 96, 96), {});
  BlockedGemm& b = d.blocked_gemm;
  b.block = 48, b.vector_width = 4, b.block_flops = 50e9;
  b.partial_efficiency = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
  b.misaligned_slowdown = {1, 3, 3};
  b.operand_bandwidth = 8e9, b.output_bandwidth = 10e9, b.call_overhead_s = 10e-6;
  const AnalyticComputeModel model(d);
  // Whole blocks only: 2 * 96^3 FLOPs at the block rate, 2 * 96^2 floats packed, 96^2 written.
  const double whole = 2.0 * 96 * 96 * 96 / 50e9 + 2 * 96 * 96 * 4 / 8e9 + 96 * 96 * 4 / 10e9 + 10e-6;
  CHECK(model.seconds(gemm(96, 96, 96), {}) == Approx(whole));
  CHECK(model.seconds(gemm(96, 96, 96), {}) != Approx(tiled));
  const AnalyticCost parts = model.cost(gemm(96, 96, 96), {});
  CHECK(parts.compute_seconds + parts.memory_seconds + parts.launch_seconds == Approx(parts.seconds));
  // k = 100 leaves 4 (aligned) in clean-up at half rate; k = 99 leaves 3, misaligned: 3x slower.
  const double flops_rest = 2.0 * 96 * 96;
  CHECK(model.seconds(gemm(96, 96, 100), {}) - model.seconds(gemm(96, 96, 96), {}) ==
        Approx(4 * flops_rest / 25e9 + (96 * 4 + 4 * 96) * 4 / 8e9));
  CHECK(model.seconds(gemm(96, 96, 99), {}) - model.seconds(gemm(96, 96, 96), {}) ==
        Approx(3 * flops_rest * 3 / 25e9 + (96 * 3 + 3 * 96) * 4 / 8e9));
  // A clean-up width of 6 along k: a leftover of 6 (k = 102) runs vectorised, one of 7 does not.
  DeviceSpec d6 = d;
  d6.blocked_gemm.cleanup_width = {0, 0, 6};
  const AnalyticComputeModel with_cleanup(d6);
  CHECK(with_cleanup.seconds(gemm(96, 96, 102), {}) - with_cleanup.seconds(gemm(96, 96, 96), {}) ==
        Approx(6 * flops_rest / 25e9 + (96 * 6 + 6 * 96) * 4 / 8e9));
  CHECK(with_cleanup.seconds(gemm(96, 96, 103), {}) - with_cleanup.seconds(gemm(96, 96, 96), {}) ==
        Approx(7 * flops_rest * 3 / 25e9 + (96 * 7 + 7 * 96) * 4 / 8e9));
  CHECK(model.seconds(gemm(96, 96, 102), {}) > with_cleanup.seconds(gemm(96, 96, 102), {}));
  // Other element types and convolutions keep the tiled roofline.
  DeviceSpec plain = d;
  plain.blocked_gemm = BlockedGemm{};
  CHECK(model.seconds(gemm(96, 96, 96, DType::f64), {}) == AnalyticComputeModel(plain).seconds(gemm(96, 96, 96, DType::f64), {}));
}

TEST_CASE("A direct convolution model prices each direction as arithmetic on lanes plus traffic", "[models][compute]") {
  DeviceSpec d = find_hardware_profile("cpu").device;
  ConvShape c;
  c.n = 4, c.c = 24, c.h = c.w = 16, c.k = 64, c.r = c.s = 3, c.pad_h = c.pad_w = 1, c.p = c.q = 16;
  const Kernel fwd = conv_kernel(Phase::forward, c, DType::f32);
  const Kernel wgrad = conv_kernel(Phase::backward_weight, c, DType::f32);
  const double tiled_wgrad = AnalyticComputeModel(d).seconds(wgrad, {});
  DirectConv& m = d.direct_conv[static_cast<int>(Phase::forward)];
  m.lanes = 16, m.rate = {40e9, 30e9, 20e9, 5e9}, m.input_fill_exponent = 1, m.output_fill_exponent = 0, m.window_exponent = 0;
  m.input_bandwidth = {10e9, 10e9, 10e9, 10e9}, m.weight_bandwidth = 20e9, m.output_bandwidth = {5e9, 5e9, 5e9, 5e9};
  m.call_overhead_s = 2e-6;
  const AnalyticComputeModel model(d);
  // 24 input channels fill 24 of 32 lanes: the direct path at 3/4 of 40 GFLOP/s.
  const double flops = 2.0 * 4 * 64 * 16 * 16 * 24 * 9;
  const double traffic = 4.0 * 24 * 16 * 16 * 4 / 10e9 + 64.0 * 24 * 9 * 4 / 20e9 + 4.0 * 64 * 16 * 16 * 4 / 5e9;
  CHECK(model.seconds(fwd, {}) == Approx(flops / 30e9 + traffic + 2e-6));
  const AnalyticCost parts = model.cost(fwd, {});
  CHECK(parts.compute_seconds == Approx(flops / 30e9));
  CHECK(parts.memory_seconds == Approx(traffic));
  // Only its own direction: the weight gradient keeps the tiles.
  CHECK(model.seconds(wgrad, {}) == tiled_wgrad);
  // A depthwise convolution takes its own path.
  ConvShape dw = c;
  dw.k = dw.c = dw.groups = 32;
  CHECK(conv_path(dw, Phase::forward) == ConvPath::depthwise);
  ConvShape pw = c;
  pw.r = pw.s = 1, pw.pad_h = pw.pad_w = 0;
  CHECK(conv_path(pw, Phase::forward) == ConvPath::native);
  pw.n = 16;
  CHECK(conv_path(pw, Phase::forward) == ConvPath::pointwise);
  CHECK(conv_path(c, Phase::forward) == ConvPath::direct);
  // One image of at most 20,480 values under a window of at most 3: PyTorch's own code too
  // (ATen's use_mkldnn); one value more, a second image or a 5x5 window, and oneDNN runs it.
  ConvShape one = c;
  one.n = 1, one.c = 80, one.h = one.w = 16;  // 80 x 16 x 16 = 20,480
  CHECK(conv_path(one, Phase::forward) == ConvPath::native);
  one.stride_h = one.stride_w = 2;
  CHECK(conv_path(one, Phase::forward) == ConvPath::native);  // strided too
  one.c = 81;
  CHECK(conv_path(one, Phase::forward) == ConvPath::direct);
  one.c = 80, one.n = 2;
  CHECK(conv_path(one, Phase::forward) == ConvPath::direct);
  one.n = 1, one.r = one.s = 5;
  CHECK(conv_path(one, Phase::forward) == ConvPath::direct);
}

TEST_CASE("Convolutions no JIT kernel takes go to im2col and GEMM, priced per image and group", "[models][compute]") {
  const auto shape = [](std::int64_t n, std::int64_t c, std::int64_t k, std::int64_t hw, std::int64_t window, std::int64_t stride, std::int64_t groups) {
    ConvShape s;
    s.n = n, s.c = c, s.k = k, s.h = s.w = hw, s.r = s.s = window, s.stride_h = s.stride_w = stride, s.groups = groups;
    s.pad_h = s.pad_w = window / 2;
    s.p = s.q = (hw + 2 * s.pad_h - window) / stride + 1;
    return s;
  };
  struct Case {
    std::int64_t n, c, k, hw, window, stride, groups;
    Phase direction;
    ConvPath path;
  };
  const Case cases[] = {
      // A depthwise weight gradient: 3x3 takes the depthwise kernel, 5x5 does not (other
      // directions do), nor a 3x3 with no output row clear of the padding, nor a strided 1x1.
      {4, 64, 64, 16, 3, 1, 64, Phase::backward_weight, ConvPath::depthwise},
      {4, 64, 64, 16, 5, 1, 64, Phase::backward_weight, ConvPath::gemm},
      {4, 64, 64, 16, 5, 1, 64, Phase::forward, ConvPath::depthwise},
      {4, 64, 64, 16, 5, 1, 64, Phase::backward_data, ConvPath::depthwise},
      {4, 64, 64, 2, 3, 1, 64, Phase::backward_weight, ConvPath::gemm},
      {4, 64, 64, 3, 3, 1, 64, Phase::backward_weight, ConvPath::depthwise},
      {4, 64, 64, 3, 3, 2, 64, Phase::backward_weight, ConvPath::gemm},       // both outputs read padding
      {4, 64, 64, 4, 3, 2, 64, Phase::backward_weight, ConvPath::depthwise},  // the second does not
      {4, 64, 64, 16, 1, 2, 64, Phase::backward_weight, ConvPath::gemm},
      // Forward: more padding than output columns (7x7 padded by 3 over 2x2), dense or not.
      {4, 64, 128, 2, 7, 1, 1, Phase::forward, ConvPath::gemm},
      {4, 64, 128, 3, 7, 1, 1, Phase::forward, ConvPath::direct},
      {4, 64, 128, 2, 7, 1, 1, Phase::backward_weight, ConvPath::direct},
      // Strided 1x1: a 1x1 on the subsampled input where the stride divides the image, else direct.
      {16, 64, 128, 8, 1, 2, 1, Phase::forward, ConvPath::pointwise},
      {16, 64, 128, 9, 1, 2, 1, Phase::forward, ConvPath::direct},
      // PyTorch's own path takes an unstrided depthwise 1x1 at a small batch too.
      {4, 64, 64, 8, 1, 1, 64, Phase::forward, ConvPath::native},
  };
  for (const Case& t : cases) {
    INFO("n " << t.n << " c " << t.c << " k " << t.k << " image " << t.hw << " window " << t.window << " stride " << t.stride << " groups " << t.groups
              << " " << phase_name(t.direction));
    CHECK(conv_path(shape(t.n, t.c, t.k, t.hw, t.window, t.stride, t.groups), t.direction) == t.path);
  }

  DirectConv m;
  m.lanes = 16, m.rate = {40e9, 30e9, 20e9, 5e9, 2e9}, m.input_fill_exponent = 1, m.output_fill_exponent = 1;
  m.input_bandwidth = {10e9, 10e9, 10e9, 10e9, 8e9}, m.weight_bandwidth = 20e9, m.output_bandwidth = {5e9, 5e9, 5e9, 5e9, 4e9};
  m.stride_exponent = {0, 0, 0, 0, 0}, m.call_overhead_s = 2e-6, m.image_call_s = 1e-7, m.gemm_path = true;
  const ConvShape dw7 = shape(4, 64, 64, 16, 7, 1, 64);
  double parts[2];
  const double t = direct_conv_seconds(m, dw7, Phase::backward_weight, 4, parts);
  // One output channel per group fills 1 of 16 lanes; 4 images x 64 groups of GEMM calls.
  const double flops = 2.0 * 4 * 64 * 16 * 16 * 49;
  CHECK(parts[0] == Approx(flops / 2e9 * 16 + 4 * 64 * 1e-7));
  const double traffic = 4.0 * 64 * 16 * 16 * 4 / 8e9 + 64.0 * 49 * 4 / 20e9 + 4.0 * 64 * 16 * 16 * 4 / 4e9;
  CHECK(parts[1] == Approx(traffic));
  CHECK(t == Approx(parts[0] + parts[1] + 2e-6));
  // Without a fitted gemm path (older profiles, too few such measurements) it prices the shape
  // as before: on the depthwise path, with no per-image calls.
  DirectConv old = m;
  old.gemm_path = false;
  CHECK(priced_conv_path(old, dw7, Phase::backward_weight) == ConvPath::depthwise);
  CHECK(direct_conv_seconds(old, dw7, Phase::backward_weight, 4) == Approx(direct_conv_seconds(m, dw7, Phase::forward, 4)));
}

TEST_CASE("A weight gradient sharing its input gradient's call pays no call; short runs go at the scalar rate", "[models][compute]") {
  DeviceSpec d = find_hardware_profile("cpu").device;
  DirectConv& m = d.direct_conv[static_cast<int>(Phase::backward_weight)];
  m.lanes = 16, m.rate = {40e9, 30e9, 20e9, 5e9}, m.input_fill_exponent = 1, m.output_fill_exponent = 0;
  m.input_bandwidth = {10e9, 10e9, 10e9, 10e9}, m.weight_bandwidth = 20e9, m.output_bandwidth = {5e9, 5e9, 5e9, 5e9};
  m.call_overhead_s = 1e-4;
  ConvShape c;
  c.n = 4, c.c = c.k = 64, c.h = c.w = 8, c.r = c.s = 3, c.pad_h = c.pad_w = 1, c.p = c.q = 8;
  Kernel wgrad = conv_kernel(Phase::backward_weight, c, DType::f32);
  const AnalyticComputeModel model(d);
  const double alone = model.seconds(wgrad, {});
  wgrad.shares_call = true;
  CHECK(model.seconds(wgrad, {}) == Approx(alone - 1e-4));
  // Batch norm's backward over runs shorter than a vector: each of their elements at the family's scalar rate.
  Kernel bn = stream(32768);
  bn.pass = "batch_norm_backward";
  d.passes["batch_norm_backward"] = {.max_efficiency = 0.5, .half_efficiency_bytes = 1e5, .cache_bytes = 8e6, .dram_slowdown = 2};
  const double vectorised = AnalyticComputeModel(d).seconds(bn, {});
  d.passes["batch_norm_backward"].short_run_element_s = 1.5e-8;
  bn.run_elements = 4;  // shorter than a vector: every element (4,096 here) in scalar code
  CHECK(AnalyticComputeModel(d).seconds(bn, {}) == Approx(vectorised + 4096 * 1.5e-8));
  bn.run_elements = 8;  // a vector's length: none
  CHECK(AnalyticComputeModel(d).seconds(bn, {}) == Approx(vectorised));
  // A pooling window's operations at the family's rate per operation, beside its traffic.
  Kernel pool = stream(32768);
  pool.pass = "max_pool";
  pool.flops = 9.0 * 32768 / 4;
  d.passes["max_pool"] = {.max_efficiency = 0.5, .half_efficiency_bytes = 1e5, .cache_bytes = 8e6, .dram_slowdown = 2};
  const double traffic = AnalyticComputeModel(d).seconds(pool, {});
  d.passes["max_pool"].operation_s = 2e-9;
  CHECK(AnalyticComputeModel(d).seconds(pool, {}) == Approx(traffic + pool.flops * 2e-9));
  // Passes of other families keep their traffic's time.
  CHECK(AnalyticComputeModel(d).seconds(bn, {}) == Approx(vectorised));
}
