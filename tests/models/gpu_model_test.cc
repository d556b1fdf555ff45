#include "models/compute/gpu/gpu_compute_model.h"

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/lowering/lower.h"
#include "profile/gpu_section.h"
#include "profile/hardware_profile.h"

using namespace dnnperf;

namespace {

DeviceSpec h200_with_gpu_family() {
  DeviceSpec d = find_hardware_profile("h200").device;
  d.gpu.enabled = true;
  d.gpu.generation = GpuGeneration::hopper;
  d.gpu.math[static_cast<int>(GpuMath::half)].misaligned_efficiency = {0.8, 0.5, 0.3};
  return d;
}

GpuMatrixWork half_work(const DeviceSpec& d) {
  GpuMatrixWork w;
  w.math = GpuMath::half;
  w.peak_flops = d.peak_flops.at(MathMode::bf16_tensor);
  w.element_bytes = 2;
  return w;
}

}  // namespace

TEST_CASE("leading dimensions set a GEMM's alignment, row-major as frameworks call it") {
  CHECK(gemm_alignment_bytes({4096, 4096, 4096, 1, false, false}, 2) == 16);
  // lda = k: an odd k leaves A's rows 2-byte aligned in bf16, 4-byte in fp32.
  CHECK(gemm_alignment_bytes({4096, 4096, 4097, 1, false, false}, 2) == 2);
  CHECK(gemm_alignment_bytes({4096, 4096, 4097, 1, false, false}, 4) == 4);
  // m is no leading dimension unless A is transposed.
  CHECK(gemm_alignment_bytes({4097, 4096, 4096, 1, false, false}, 2) == 16);
  CHECK(gemm_alignment_bytes({4097, 4096, 4096, 1, true, false}, 2) == 2);
  // n leads B and C.
  CHECK(gemm_alignment_bytes({4096, 4100, 4096, 1, false, false}, 2) == 8);
}

TEST_CASE("GPU GEMMs pay for the last wave, split k where tiles are few, and never beat DRAM") {
  const DeviceSpec d = h200_with_gpu_family();
  const GpuMatrixWork w = half_work(d);
  // 132 SMs: 12 x 11 tiles of 128 x 128 fill one wave; one more row of tiles starts a second.
  const GpuGemmPlan one = gpu_gemm_plan(d, d.gpu, {12 * 256, 11 * 128, 4096, 1, false, false}, w);
  const GpuGemmPlan more = gpu_gemm_plan(d, d.gpu, {12 * 256 + 8, 11 * 128, 4096, 1, false, false}, w);
  CHECK(more.seconds > one.seconds * 1.2);
  // A small output over a deep k: split-K.
  const GpuGemmPlan deep = gpu_gemm_plan(d, d.gpu, {128, 128, 1 << 16, 1, false, false}, w);
  CHECK(deep.split_k > 1);
  CHECK(deep.tiles == deep.split_k * (128 / deep.tile.m) * (128 / deep.tile.n));
  // A matrix-vector product streams its matrix from DRAM.
  const GpuGemmPlan gemv = gpu_gemm_plan(d, d.gpu, {8192, 1, 8192, 1, false, false}, w);
  CHECK(gemv.seconds >= 8192.0 * 8192 * 2 / (d.memory_bandwidth * d.gpu.dram_efficiency));
  // Misaligned operands run at the fitted fraction.
  GpuMatrixWork misaligned = w;
  misaligned.alignment_bytes = 2;
  CHECK(gpu_gemm_plan(d, d.gpu, {8192, 8192, 8192, 1, false, false}, misaligned).seconds >
        2 * gpu_gemm_plan(d, d.gpu, {8192, 8192, 8192, 1, false, false}, w).seconds);
}

TEST_CASE("an FP32 GEMM of a classifier's few rows runs in tiles at least 64 wide, the rest of each tile idle") {
  const DeviceSpec d = h200_with_gpu_family();
  GpuMatrixWork w;
  w.peak_flops = d.peak_flops.at(MathMode::fp32);
  // AlexNet's first classifier layer at batch 32: 32 x 4096 outputs over k = 9216. cuBLAS's SIMT
  // kernels run 64-row tiles at the least (the networks' GEMMs on the H200: 21.9% MAPE with 32-wide
  // tiles, 15.0% without).
  const GpuGemmPlan skinny = gpu_gemm_plan(d, d.gpu, {32, 4096, 9216, 1, false, false}, w);
  CHECK(skinny.tile.m >= 64);
  CHECK(skinny.tile.n >= 64);
  // Twice the rows fill those tiles: much less than twice the time.
  CHECK(gpu_gemm_plan(d, d.gpu, {64, 4096, 9216, 1, false, false}, w).seconds < 1.3 * skinny.seconds);
}

TEST_CASE("the GPU family prices each math at its own peak and memory passes as streams") {
  const DeviceSpec d = h200_with_gpu_family();
  const GpuComputeModel model(d);
  const Kernel f32 = gemm_kernel(Phase::forward, {8192, 8192, 8192, 1, false, false}, DType::f32);
  const Kernel bf16 = gemm_kernel(Phase::forward, {8192, 8192, 8192, 1, false, false}, DType::bf16);
  CHECK(model.math(f32, {}) == GpuMath::fp32);
  CHECK(model.math(f32, {true}) == GpuMath::tf32);
  CHECK(model.math(bf16, {}) == GpuMath::half);
  const double fp32 = model.seconds(f32, {}), tf32 = model.seconds(f32, {true}), half = model.seconds(bf16, {});
  CHECK(fp32 > 4 * tf32);
  CHECK(tf32 > 1.5 * half);
  // A large bf16 GEMM lands between the k-loop's rate and the datasheet's peak.
  CHECK(bf16.flops / half < d.peak_flops.at(MathMode::bf16_tensor));
  CHECK(bf16.flops / half > 0.3 * d.peak_flops.at(MathMode::bf16_tensor));
  Kernel copy;
  copy.cls = KernelClass::copy;
  copy.bytes_read = copy.bytes_written = 1 << 28;
  const double t = model.seconds(copy, {});
  CHECK(t == Approx(d.gpu.pass_min_s + 2.0 * (1 << 28) / (d.memory_bandwidth * d.gpu.dram_efficiency)));
}

TEST_CASE("a memory pass streams from the L2 what fits it, and a family's op pays each kernel's least time") {
  DeviceSpec d = h200_with_gpu_family();
  d.gpu.l2_bytes = 50e6;
  d.gpu.l2_speedup = 2;
  d.gpu.pass_kernels["adam"] = 7;
  d.gpu.pass_efficiency["adam"] = 0.5;  // the shipped profile's own figure would do; a round one reads plainer
  const GpuComputeModel model(d);
  const auto pass = [](double bytes, std::string family = "") {
    Kernel k;
    k.cls = KernelClass::elementwise;
    k.bytes_read = k.bytes_written = bytes / 2;
    k.pass = std::move(family);
    return k;
  };
  const double dram = d.memory_bandwidth * d.gpu.dram_efficiency;
  // Within the L2: at twice DRAM's rate; beyond two L2s: at DRAM's; between, a linear share.
  CHECK(model.seconds(pass(40e6), {}) == Approx(d.gpu.pass_min_s + 40e6 / (2 * dram)));
  CHECK(model.seconds(pass(200e6), {}) == Approx(d.gpu.pass_min_s + 200e6 / dram));
  CHECK(model.seconds(pass(75e6), {}) == Approx(d.gpu.pass_min_s + 75e6 * (0.5 + 0.5 / 2) / dram));
  // Per byte, a pass that outgrows the L2 is slower.
  CHECK(model.seconds(pass(100e6), {}) / 100e6 > model.seconds(pass(50e6), {}) / 50e6);
  CHECK(model.seconds(pass(4096, "adam"), {}) == Approx(7 * d.gpu.pass_min_s + 4096 / (2 * dram * 0.5)));
}

TEST_CASE("the GPU section reads back what it writes and names bad fields") {
  GpuKernelParams p;
  p.enabled = true;
  p.generation = GpuGeneration::ampere;
  p.kernel_min_s = 4.5e-6;
  p.math[static_cast<int>(GpuMath::tf32)].max_efficiency = 0.61;
  p.math[static_cast<int>(GpuMath::half)].misaligned_efficiency = {0.9, 0.4, 0.2};
  p.conv[1].efficiency = 0.7;
  p.conv[2].thin_group_efficiency = 0.02;
  p.pass_efficiency["softmax"] = 0.5;
  p.pass_kernels["adam"] = 6.5;
  p.l2_speedup = 1.7;
  p.residual_sigma["gemm"] = 0.1;
  p.shared_sigma["gemm"] = 0.02;
  const GpuKernelParams q = read_gpu_section(gpu_section(p), "test");
  CHECK(q.enabled);
  CHECK(q.generation == GpuGeneration::ampere);
  CHECK(q.kernel_min_s == p.kernel_min_s);
  CHECK(q.math[static_cast<int>(GpuMath::tf32)].max_efficiency == 0.61);
  CHECK(q.math[static_cast<int>(GpuMath::half)].misaligned_efficiency == p.math[static_cast<int>(GpuMath::half)].misaligned_efficiency);
  CHECK(q.conv[1].efficiency == 0.7);
  CHECK(q.conv[2].thin_group_efficiency == 0.02);
  CHECK(q.pass_efficiency.at("softmax") == 0.5);
  CHECK(q.shared_sigma.at("gemm") == 0.02);
  CHECK(q.pass_kernels.at("adam") == 6.5);
  CHECK(q.l2_speedup == 1.7);
  nlohmann::json bad = gpu_section(p);
  bad["l2_speedup"] = 0.5;
  CHECK_THROWS_WITH(read_gpu_section(bad, "f.json"), Catch::Contains("l2_speedup") && Catch::Contains("[1, 8]"));
  bad = gpu_section(p);
  bad["pass_kernels"]["adam"] = 0.5;
  CHECK_THROWS_WITH(read_gpu_section(bad, "f.json"), Catch::Contains("pass_kernels.adam"));
  bad = gpu_section(p);
  bad["generation"] = "pascal";
  CHECK_THROWS_WITH(read_gpu_section(bad, "f.json: device.efficiency.gpu"), Catch::Contains("generation") && Catch::Contains("f.json"));
  bad = gpu_section(p);
  bad["math"]["half"]["max_efficiency"] = 1.5;
  CHECK_THROWS_WITH(read_gpu_section(bad, "f.json"), Catch::Contains("math.half") && Catch::Contains("max_efficiency"));
  bad = gpu_section(p);
  bad["shared_sigma"]["gemm"] = 0.5;
  CHECK_THROWS_AS(read_gpu_section(bad, "f.json"), InputError);
  bad = gpu_section(p);
  bad["conv"]["backward_weight"]["thin_group_efficiency"] = 0;
  CHECK_THROWS_WITH(read_gpu_section(bad, "f.json"), Catch::Contains("conv.backward_weight") && Catch::Contains("thin_group_efficiency"));
  bad = gpu_section(p);
  bad["tiles"] = 3;
  CHECK_THROWS_WITH(read_gpu_section(bad, "f.json"), Catch::Contains("tiles"));
  // Convolutions' own k-loop: written only where there is one, its missing fields its math's.
  CHECK_FALSE(gpu_section(p).contains("conv_loop"));
  nlohmann::json own = gpu_section(p);
  own["conv_loop"]["tf32"] = {{"max_efficiency", 0.4}};
  const GpuKernelParams r = read_gpu_section(own, "test");
  REQUIRE(r.conv_loop[static_cast<int>(GpuMath::tf32)]);
  CHECK(r.conv_loop[static_cast<int>(GpuMath::tf32)]->max_efficiency == 0.4);
  CHECK(r.conv_loop[static_cast<int>(GpuMath::tf32)]->tile_fixed_s == r.math[static_cast<int>(GpuMath::tf32)].tile_fixed_s);
  CHECK_FALSE(r.conv_loop[static_cast<int>(GpuMath::half)]);
  CHECK(read_gpu_section(gpu_section(r), "test").conv_loop[static_cast<int>(GpuMath::tf32)]->max_efficiency == 0.4);
  own["conv_loop"]["tf32"]["max_efficiency"] = 0;
  CHECK_THROWS_WITH(read_gpu_section(own, "f.json"), Catch::Contains("conv_loop.tf32") && Catch::Contains("max_efficiency"));
  own["conv_loop"] = {{"int8", {{"max_efficiency", 0.5}}}};
  CHECK_THROWS_WITH(read_gpu_section(own, "f.json"), Catch::Contains("int8"));
}

TEST_CASE("convolutions run the k-loop fitted for their math's convolutions where there is one, GEMMs the math's") {
  DeviceSpec d = h200_with_gpu_family();
  d.gpu.conv_loop = {};  // the datasheet's carries the one PyTorch's TF32 convolutions fitted
  const ConvShape c{32, 256, 28, 28, 256, 3, 3, 28, 28, 1, 1, 1, 1, 1, 1, 1};
  const Kernel conv = conv_kernel(Phase::forward, c, DType::f32);
  const Kernel gemm = gemm_kernel(Phase::forward, {8192, 4096, 1024, 1, false, false}, DType::f32);
  const ExecutionOptions tf32{true};
  const double conv_shared = GpuComputeModel(d).seconds(conv, tf32), gemm_shared = GpuComputeModel(d).seconds(gemm, tf32);
  GpuMathParams slower = d.gpu.math[static_cast<int>(GpuMath::tf32)];
  slower.max_efficiency /= 2;
  d.gpu.conv_loop[static_cast<int>(GpuMath::tf32)] = slower;
  const GpuComputeModel own(d);
  CHECK(own.seconds(conv, tf32) > conv_shared);
  CHECK(own.seconds(gemm, tf32) == gemm_shared);
  // Priced as it would be were that the math's k-loop.
  DeviceSpec as_math = h200_with_gpu_family();
  as_math.gpu.conv_loop = {};
  as_math.gpu.math[static_cast<int>(GpuMath::tf32)] = slower;
  CHECK(own.seconds(conv, tf32) == GpuComputeModel(as_math).seconds(conv, tf32));
  CHECK(GpuComputeModel(as_math).seconds(gemm, tf32) > gemm_shared);
  // Another math's convolutions keep sharing their math's.
  const Kernel half = conv_kernel(Phase::forward, c, DType::bf16);
  DeviceSpec shared = h200_with_gpu_family();
  shared.gpu.conv_loop = {};
  CHECK(own.seconds(half, {}) == GpuComputeModel(shared).seconds(half, {}));
}

TEST_CASE("FP32 3x3 convolutions before Ampere cost the cheaper of Winograd and their implicit GEMM") {
  const DeviceSpec v100 = find_hardware_profile("v100").device;
  const GpuComputeModel model(v100);
  // VGG-16's conv3_2 at batch 64: 64x256x56x56, 3x3, pad 1.
  ConvShape c{64, 256, 56, 56, 256, 3, 3, 56, 56, 1, 1, 1, 1, 1, 1, 1};
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    const Kernel k = conv_kernel(phase, c, DType::f32);
    const GpuKernelCost cost = model.cost(k, {});
    CHECK(cost.winograd);
    // Four times fewer products: faster than the FP32 units' peak would do the direct arithmetic,
    // never faster than a quarter of it.
    CHECK(k.flops / cost.seconds > v100.peak_flops.at(MathMode::fp32));
    CHECK(k.flops / cost.seconds < 4 * v100.peak_flops.at(MathMode::fp32));
  }
  // Not for a strided, a 1x1 or a half-precision convolution (tensor cores: the implicit GEMM).
  ConvShape strided = c;
  strided.stride_h = strided.stride_w = 2, strided.p = strided.q = 28;
  CHECK_FALSE(model.cost(conv_kernel(Phase::forward, strided, DType::f32), {}).winograd);
  ConvShape pointwise = c;
  pointwise.r = pointwise.s = 1, pointwise.pad_h = pointwise.pad_w = 0;
  CHECK_FALSE(model.cost(conv_kernel(Phase::forward, pointwise, DType::f32), {}).winograd);
  CHECK_FALSE(model.cost(conv_kernel(Phase::forward, c, DType::f16), {}).winograd);
  // A GPU with TF32 tensor cores runs the FP32 convolution on them, as cuDNN does by default.
  const DeviceSpec a100 = find_hardware_profile("a100").device;
  CHECK_FALSE(GpuComputeModel(a100).cost(conv_kernel(Phase::forward, c, DType::f32), {}).winograd);
  // A small image with few channels: the transforms outweigh the saving.
  ConvShape thin{1, 3, 8, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1};
  CHECK_FALSE(model.cost(conv_kernel(Phase::forward, thin, DType::f32), {}).winograd);
}

TEST_CASE("cuDNN splits the reduction of a weight gradient over tiles, not of a forward or backward-data convolution") {
  const DeviceSpec d = h200_with_gpu_family();
  const GpuComputeModel model(d);
  // Few output positions, a long reduction over C R S: 200 x 48 outputs, k = 2304.
  const ConvShape c{2, 256, 10, 10, 48, 3, 3, 10, 10, 1, 1, 1, 1, 1, 1, 1};
  const GpuKernelCost forward = model.cost(conv_kernel(Phase::forward, c, DType::f16), {});
  const GpuKernelCost data = model.cost(conv_kernel(Phase::backward_data, c, DType::f16), {});
  CHECK(forward.plan.split_k == 1);
  CHECK(data.plan.split_k == 1);
  // The weight gradient's reduction is over N P Q: a large batch of a small filter splits.
  const ConvShape wide{256, 64, 56, 56, 64, 1, 1, 56, 56, 1, 1, 0, 0, 1, 1, 1};
  CHECK(model.cost(conv_kernel(Phase::backward_weight, wide, DType::f16), {}).plan.split_k > 1);
  // Unsplit, its few tiles walk the whole k-loop: slower than the same GEMM with split-K.
  GpuMatrixWork w = half_work(d);
  const GemmShape g{200, 48, 2304, 1, false, false};
  const double split = gpu_gemm_plan(d, d.gpu, g, w).seconds;
  w.split_k = false;
  CHECK(gpu_gemm_plan(d, d.gpu, g, w).seconds > split);
  // cuBLAS's strided-batched GEMMs do not split k either (H200, PyTorch's bmm of 84 x 55 x 4602,
  // three batches: 174 us, a whole k-loop per tile); a single one does.
  const Kernel batched = gemm_kernel(Phase::forward, {84, 55, 4602, 3, false, true}, DType::f32);
  const Kernel single = gemm_kernel(Phase::forward, {84, 55, 4602, 1, false, true}, DType::f32);
  CHECK(model.cost(batched, {}).plan.split_k == 1);
  CHECK(model.cost(single, {}).plan.split_k > 1);
}

TEST_CASE("a depthwise convolution streams the input its windows touch and sweeps its windows at its direction's rate") {
  DeviceSpec d = h200_with_gpu_family();
  for (GpuConvParams& c : d.gpu.conv) c.thin_group_efficiency = 0.03;
  for (const char* pass : {"depthwise_conv", "depthwise_conv_backward_data", "depthwise_conv_backward_filter"}) {
    d.gpu.pass_efficiency[pass] = 1;  // its stream at DRAM's rate: the arithmetic decides
    d.gpu.pass_kernels[pass] = 1;
  }
  const GpuComputeModel model(d);
  // MobileNetV2's 3x3 depthwise layer at 112x112, unstrided and strided.
  const ConvShape one{32, 96, 112, 112, 96, 3, 3, 112, 112, 1, 1, 1, 1, 1, 1, 96};
  ConvShape two = one;
  two.stride_h = two.stride_w = 2, two.p = two.q = 56;
  const auto seconds = [&](Phase phase, const ConvShape& c) { return model.cost(conv_kernel(phase, c, DType::f32), {}).seconds; };
  // Forward sweeps a window per output: a quarter of the outputs, about a quarter of the time.
  CHECK(seconds(Phase::forward, two) < 0.4 * seconds(Phase::forward, one));
  // Backward data sweeps a window per input position: strided costs what unstrided does.
  CHECK(seconds(Phase::backward_data, two) == Approx(seconds(Phase::backward_data, one)).epsilon(0.05));
  // A 1x1 window at stride 2 reads a quarter of the input: cheaper than the whole of it.
  ConvShape pointwise = two;
  pointwise.r = pointwise.s = 1, pointwise.pad_h = pointwise.pad_w = 0;
  d.gpu.conv[0].thin_group_efficiency = 1;  // streaming, not arithmetic, decides
  const GpuComputeModel streaming(d);
  const Kernel k = conv_kernel(Phase::forward, pointwise, DType::f32);
  const double whole = d.gpu.pass_min_s + (k.bytes_read + k.bytes_written) / (d.memory_bandwidth * d.gpu.dram_efficiency);
  CHECK(streaming.cost(k, {}).seconds < 0.6 * whole);
}

TEST_CASE("a strided backward-data convolution multiplies only the window taps that reach each input position") {
  const DeviceSpec d = h200_with_gpu_family();
  const GpuComputeModel model(d);
  // ResNet-50's strided 3x3 layer: 64 -> 64 channels at 56x56, stride 2.
  const ConvShape strided{32, 128, 56, 56, 128, 3, 3, 28, 28, 2, 2, 1, 1, 1, 1, 1};
  ConvShape plain = strided;
  plain.stride_h = plain.stride_w = 1, plain.p = plain.q = 56;
  const Kernel data = conv_kernel(Phase::backward_data, strided, DType::f16);
  // Four phases of the stride, each over 2 x 2 of the 9 taps: the reduction is 128 x 4, not 128 x 9.
  // (Each tile's fixed costs stay: less than the taps' 4/9 saving.)
  CHECK(model.cost(data, {}).seconds < 0.75 * model.cost(conv_kernel(Phase::backward_data, plain, DType::f16), {}).seconds);
  CHECK(model.cost(data, {}).seconds > 0.3 * model.cost(conv_kernel(Phase::backward_data, plain, DType::f16), {}).seconds);
  // A 1x1 window at stride 2 is computed over every input position, the untouched ones as zeros:
  // it costs what the unstrided one does.
  ConvShape one = strided;
  one.r = one.s = 1, one.pad_h = one.pad_w = 0;
  ConvShape one_plain = one;
  one_plain.stride_h = one_plain.stride_w = 1, one_plain.p = one_plain.q = 56;
  CHECK(model.cost(conv_kernel(Phase::backward_data, one, DType::f16), {}).seconds ==
        Approx(model.cost(conv_kernel(Phase::backward_data, one_plain, DType::f16), {}).seconds).epsilon(0.02));
}

TEST_CASE("each direction of a depthwise convolution streams at its own pass efficiency, else at the forward's") {
  DeviceSpec d = h200_with_gpu_family();
  d.gpu.pass_efficiency = {{"depthwise_conv", 0.2}};
  d.gpu.pass_kernels.clear();
  for (GpuConvParams& conv : d.gpu.conv) conv.thin_group_efficiency = 1;  // the stream, not the arithmetic, decides
  const ConvShape c{32, 96, 112, 112, 96, 3, 3, 112, 112, 1, 1, 1, 1, 1, 1, 96};
  const Kernel data = conv_kernel(Phase::backward_data, c, DType::f32);
  const double shared = GpuComputeModel(d).cost(data, {}).seconds;
  d.gpu.pass_efficiency["depthwise_conv_backward_data"] = 0.4;  // twice the rate: the stream takes half
  const double own = GpuComputeModel(d).cost(data, {}).seconds;
  CHECK(own < 0.6 * shared);
  CHECK(gpu_pass_key(data) == "depthwise_conv_backward_data");
  CHECK(gpu_pass_key(conv_kernel(Phase::forward, c, DType::f32)) == "depthwise_conv");
}

TEST_CASE("an FP8 GEMM runs on FP8 tensor cores where the device has them, and nowhere else") {
  const DeviceSpec h100 = find_hardware_profile("h100").device;
  const GpuComputeModel model(h100);
  const Kernel half = gemm_kernel(Phase::forward, {8192, 8192, 8192, 1, false, true}, DType::bf16);
  const Kernel eight = gemm_kernel(Phase::forward, {8192, 8192, 8192, 1, false, true}, DType::f8e4m3);
  const GpuKernelCost c = model.cost(eight, {});
  CHECK(c.math == GpuMath::fp8);
  // A large one: faster than 16-bit, never past the FP8 peak, nor past the published ceiling the
  // datasheet profile carries (73.4% on an H200, 70.9% on an H100).
  CHECK(c.seconds < model.seconds(half, {}));
  CHECK(eight.flops / c.seconds < 0.71 * h100.peak_flops.at(MathMode::fp8_tensor));
  CHECK(eight.flops / c.seconds > 0.5 * h100.peak_flops.at(MathMode::fp8_tensor));
  // Its tiles step k by 128: FP8's candidates are its own.
  CHECK(c.plan.tile.k == 128);
  CHECK_THROWS_WITH(GpuComputeModel(find_hardware_profile("a100").device).seconds(eight, {}), Catch::Contains("FP8"));
}
