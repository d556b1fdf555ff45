#include "models/compute/gpu/gpu_compute_model.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/common/integer_math.h"
#include "models/compute/gpu/gpu_winograd.h"

namespace dnnperf {
namespace {

int channel_alignment_bytes(const ConvShape& c, int element_bytes) {
  const std::int64_t groups = std::max<std::int64_t>(c.groups, 1);
  GemmShape channels;  // the alignment rule of a GEMM over the channels in and out
  channels.m = c.k / groups;
  channels.n = c.k / groups;
  channels.k = c.c / groups;
  return gemm_alignment_bytes(channels, element_bytes);
}

/// What a thin-group convolution streams: its three tensors once, but of the input only the
/// positions its windows touch (a 1x1 window at stride 2 reads a quarter of it), except where
/// backward data writes the whole of it.
double thin_group_stream_bytes(const Kernel& k) {
  const ConvShape& v = k.conv;
  const double groups = static_cast<double>(std::max<std::int64_t>(v.groups, 1));
  const double input = static_cast<double>(v.n * v.c * v.h * v.w);
  const double output = static_cast<double>(v.n * v.k * v.p * v.q);
  const double filter = static_cast<double>(v.k * v.r * v.s) * static_cast<double>(v.c) / groups;
  const auto reach = [](std::int64_t window, std::int64_t dilation, std::int64_t stride) {
    return stride > 0 ? std::min(1.0, static_cast<double>((window - 1) * dilation + 1) / static_cast<double>(stride)) : 1.0;
  };
  const double touched = k.phase == Phase::backward_data ? 1.0 : reach(v.r, v.dilation_h, v.stride_h) * reach(v.s, v.dilation_w, v.stride_w);
  return (input * touched + output + filter) * dtype_bytes(k.dtype);
}

/// The implicit GEMM cuDNN runs for a strided backward-data convolution: one sub-convolution per
/// phase of the stride (s_h x s_w of them), each over the ceil(R / s_h) x ceil(S / s_w) taps of the
/// window that reach its input positions, so the zeros a stride inserts are never multiplied.
/// A window narrower than its stride (1x1 at stride 2) has one tap per phase and is computed
/// over every input position, the untouched ones as zeros. (H200, PyTorch: priced as the plain
/// implicit GEMM, the networks' strided 3x3 backward-data convolutions came out 2.2x slow; their
/// 1x1 ones run at 170 TFLOP/s over all positions, 42 over the useful products.)
GemmShape backward_data_gemm(const Kernel& k) {
  GemmShape g = implicit_gemm(k);
  const ConvShape& v = k.conv;
  const std::int64_t sh = std::max<std::int64_t>(v.stride_h, 1), sw = std::max<std::int64_t>(v.stride_w, 1);
  g.k = (v.k / std::max<std::int64_t>(v.groups, 1)) * ceil_div(v.r, sh) * ceil_div(v.s, sw);
  return g;
}

}  // namespace

std::string_view gpu_pass_key(const Kernel& k) {
  if (k.cls == KernelClass::conv)
    return k.phase == Phase::forward ? "depthwise_conv" : k.phase == Phase::backward_data ? "depthwise_conv_backward_data" : "depthwise_conv_backward_filter";
  return k.pass;
}

GpuComputeModel::GpuComputeModel(const DeviceSpec& device) : device_(device), modes_(device) {
  if (!device.gpu.enabled) throw InputError("device '" + device.model + "' has no GPU kernel parameters (device.gpu)");
}

GpuMath GpuComputeModel::math(const Kernel& k, const ExecutionOptions& o) const {
  switch (modes_.mode(k, o)) {
    case MathMode::fp64:
    case MathMode::fp64_tensor: return GpuMath::fp64;
    case MathMode::tf32_tensor: return GpuMath::tf32;
    case MathMode::fp16:
    case MathMode::fp16_tensor:
    case MathMode::bf16:
    case MathMode::bf16_tensor: return GpuMath::half;
    case MathMode::fp8_tensor: return GpuMath::fp8;
    case MathMode::fp32: break;
  }
  return GpuMath::fp32;
}

GpuKernelCost GpuComputeModel::cost(const Kernel& k, const ExecutionOptions& o) const { return cost_with(device_.gpu, k, o); }

GpuKernelCost GpuComputeModel::cost_with(const GpuKernelParams& p, const Kernel& k, const ExecutionOptions& o) const {
  GpuKernelCost c;
  const bool matrix = k.cls == KernelClass::gemm || (k.cls == KernelClass::conv && !thin_group_conv(k.conv));
  const int element_bytes = dtype_bytes(k.dtype);
  if (matrix && k.flops > 0) {
    c.math = math(k, o);
    GpuMatrixWork work;
    work.math = c.math;
    work.peak_flops = device_.peak_flops.at(modes_.mode(k, o));
    work.element_bytes = element_bytes;
    const GpuConvParams* conv = nullptr;
    if (k.cls == KernelClass::conv) {
      conv = &p.conv[std::min(static_cast<int>(k.phase), 2)];
      work.loop = &p.convolution_math(c.math);
      work.loop_factor = conv->efficiency;
      work.tile_extra_s = conv->tile_fixed_s;
      work.least_s = conv->fixed_s;
      work.alignment_bytes = channel_alignment_bytes(k.conv, element_bytes);
      // cuDNN splits the reduction of a weight gradient (over N P Q), not of the other two
      // directions (over C R S and K R S): H200, PyTorch's convolutions of few output positions
      // and long reductions run their whole k-loop per tile.
      work.split_k = k.phase == Phase::backward_weight;
    } else {
      work.alignment_bytes = gemm_alignment_bytes(k.gemm, element_bytes);
      // cuBLAS's strided-batched kernels walk each product's whole k-loop (H200, PyTorch's bmm):
      // only a single product splits k.
      work.split_k = k.gemm.batch <= 1;
    }
    c.plan = gpu_gemm_plan(device_, p, k.cls == KernelClass::conv && k.phase == Phase::backward_data ? backward_data_gemm(k) : implicit_gemm(k), work);
    c.seconds = c.plan.seconds;
    // The implicit GEMM counts the window's re-reads as operand traffic; the tensors themselves
    // must still cross DRAM once.
    if (conv) c.seconds = std::max(c.seconds, conv->fixed_s + (k.bytes_read + k.bytes_written) / (device_.memory_bandwidth * p.dram_efficiency));
    // cuDNN, autotuned, runs the cheaper algorithm (gpu_winograd.h). From Ampere on, cuDNN runs
    // FP32 convolutions on TF32 tensor cores by default, whose implicit GEMM wins.
    if (conv && c.math == GpuMath::fp32 && !device_.peak_flops.contains(MathMode::tf32_tensor) && winograd_applies(k)) {
      const double winograd = winograd_seconds(device_, p, k, work, conv->fixed_s);
      if (winograd < c.seconds) c.seconds = winograd, c.winograd = true;
    }
    return c;
  }
  c.streamed = true;
  // A thin-group convolution's backward direction without its own entry (profiles fitted before
  // 2026-12-07) takes the forward's, "depthwise_conv".
  const std::string_view key = gpu_pass_key(k);
  const std::string_view fallback = k.cls == KernelClass::conv ? "depthwise_conv" : key;
  const auto of = [&](const std::map<std::string, double, std::less<>>& table) -> const double* {
    auto it = table.find(key);
    if (it == table.end()) it = table.find(fallback);
    return it == table.end() ? nullptr : &it->second;
  };
  const double* found_efficiency = of(p.pass_efficiency);
  const double* found_kernels = of(p.pass_kernels);
  const double efficiency = found_efficiency ? *found_efficiency : 1.0;
  const double kernels = found_kernels ? *found_kernels : 1.0;
  const double bytes = k.cls == KernelClass::conv ? thin_group_stream_bytes(k) : k.bytes_read + k.bytes_written;
  const double in_l2 = p.l2_bytes > 0 ? std::clamp(2 - bytes / p.l2_bytes, 0.0, 1.0) : 0.0;
  const double stream = bytes * (1 - in_l2 + in_l2 / p.l2_speedup) / (device_.memory_bandwidth * p.dram_efficiency * efficiency);
  double arithmetic = k.flops / (device_.peak_flops.at(MathMode::fp32) * p.math[static_cast<int>(GpuMath::fp32)].max_efficiency);
  if (k.cls == KernelClass::conv) {
    // A thin-group convolution's backward data sweeps the window at every input position, not
    // at every output one: a stride-2 depthwise layer's takes as long as a stride-1's (H200,
    // cuDNN 9: MobileNetV2's strided layers 230-600 us against 250 us unstrided).
    const ConvShape& v = k.conv;
    const double positions = k.phase == Phase::backward_data && v.p * v.q > 0 ? static_cast<double>(v.h * v.w) / static_cast<double>(v.p * v.q) : 1.0;
    arithmetic = k.flops * positions / (device_.peak_flops.at(MathMode::fp32) * p.conv[std::min(static_cast<int>(k.phase), 2)].thin_group_efficiency);
  }
  c.seconds = p.pass_min_s * kernels + std::max(stream, arithmetic);
  return c;
}

}  // namespace dnnperf
