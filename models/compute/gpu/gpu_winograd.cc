#include "models/compute/gpu/gpu_winograd.h"

#include <algorithm>

#include "core/common/integer_math.h"

namespace dnnperf {
namespace {

constexpr std::int64_t kOutputTile = 4;  // F(4x4, 3x3): 4x4 outputs per tile
constexpr std::int64_t kPoints = 36;     // (4 + 3 - 1)^2 points of the transformed domain


}  // namespace

bool winograd_applies(const Kernel& k) {
  const ConvShape& c = k.conv;
  return k.cls == KernelClass::conv && c.r == 3 && c.s == 3 && c.stride_h == 1 && c.stride_w == 1 && c.dilation_h == 1 &&
         c.dilation_w == 1 && c.groups == 1 && c.p > 0 && c.q > 0;
}

double winograd_seconds(const DeviceSpec& device, const GpuKernelParams& params, const Kernel& k, GpuMatrixWork work, double call_s) {
  const ConvShape& c = k.conv;
  const std::int64_t tiles = c.n * ceil_div(c.p, kOutputTile) * ceil_div(c.q, kOutputTile);
  GemmShape g;
  g.batch = kPoints;
  switch (k.phase) {
    case Phase::backward_data: g.m = tiles, g.n = c.c, g.k = c.k; break;
    case Phase::backward_weight: g.m = c.c, g.n = c.k, g.k = tiles; break;
    default: g.m = tiles, g.n = c.k, g.k = c.c; break;
  }
  // The GEMMs are plain batched GEMMs: no convolution window, the GEMM's own rates.
  work.loop = nullptr;
  work.loop_factor = 1;
  work.tile_extra_s = 0;
  work.least_s = -1;
  const double gemm = gpu_gemm_plan(device, params, g, work).seconds;
  // The transforms stream the convolution's own tensors once and write (input side) or read
  // (output side) the transformed tiles, 36 values per tile and channel in and out: 36 tiles
  // (C + K) in every direction (backward filter transforms both of its inputs, and its product,
  // 36 C K, is small). The GEMMs' own reads and writes of them are the GEMM model's.
  const double transformed = static_cast<double>(kPoints) * static_cast<double>(tiles) * static_cast<double>(c.c + c.k) * work.element_bytes;
  const double bytes = k.bytes_read + k.bytes_written + transformed;
  const double dram = device.memory_bandwidth * params.dram_efficiency;
  // Three transform kernels (input, filter, output) beside the GEMMs', the call never shorter than a
  // convolution's least (`call_s`).
  return std::max(call_s, gemm + 3 * params.pass_min_s + bytes / dram);
}

}  // namespace dnnperf
