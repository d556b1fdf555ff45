#include "models/compute/gpu/gpu_gemm.h"

#include <algorithm>
#include <array>
#include <limits>

#include "core/common/integer_math.h"

namespace dnnperf {
namespace {

// Tile shapes of the CUTLASS-style kernels cuBLAS and cuDNN ship per generation (CUTLASS's
// default threadblock shapes: 128x128 and 128x256 with k 32 on Volta and Ampere tensor cores,
// k 64 for 16-bit on Hopper's wgmma; SIMT fp32 with k 8), with the halves libraries fall back to
// for small outputs.
constexpr std::array<GpuTile, 4> kSimt{{{128, 128, 8}, {128, 64, 8}, {64, 128, 8}, {64, 64, 8}}};
constexpr std::array<GpuTile, 4> kFp64{{{128, 64, 16}, {64, 64, 16}, {64, 32, 16}, {32, 32, 16}}};
constexpr std::array<GpuTile, 5> kVoltaHalf{{{256, 128, 32}, {128, 128, 32}, {128, 64, 32}, {64, 64, 32}, {64, 32, 32}}};
constexpr std::array<GpuTile, 5> kAmpereHalf{{{256, 128, 32}, {128, 256, 32}, {128, 128, 32}, {128, 64, 32}, {64, 64, 32}}};
constexpr std::array<GpuTile, 5> kAmpereTf32{{{256, 128, 16}, {128, 128, 16}, {128, 64, 16}, {64, 64, 16}, {64, 32, 16}}};
constexpr std::array<GpuTile, 6> kHopperHalf{{{256, 128, 64}, {128, 256, 64}, {128, 128, 64}, {128, 64, 64}, {64, 128, 64}, {64, 64, 64}}};
constexpr std::array<GpuTile, 5> kHopperTf32{{{256, 128, 32}, {128, 256, 32}, {128, 128, 32}, {128, 64, 32}, {64, 64, 32}}};
// FP8 on Hopper: the 16-bit shapes, each k-step the same 128 bytes of operand rows (k 128).
constexpr std::array<GpuTile, 6> kHopperFp8{{{256, 128, 128}, {128, 256, 128}, {128, 128, 128}, {128, 64, 128}, {64, 128, 128}, {64, 64, 128}}};

constexpr std::array<std::int64_t, 6> kSplits{1, 2, 4, 8, 16, 32};

// Tiles smaller than 128 x 128 leave room on an SM for several at once (registers and shared
// memory per tile shrink with its area), up to four: their k-steps' latencies overlap.
constexpr std::int64_t kFullTileArea = 128 * 128;
constexpr std::int64_t kMaxTilesPerSm = 4;


int alignment_of(std::int64_t elements, int element_bytes) {
  const std::int64_t bytes = elements * element_bytes;
  int a = 16;
  while (a > 1 && bytes % a != 0) a /= 2;
  return a;
}

}  // namespace

std::span<const GpuTile> gpu_tile_candidates(GpuGeneration generation, GpuMath math) {
  switch (math) {
    case GpuMath::fp32: return kSimt;
    case GpuMath::fp64: return kFp64;
    case GpuMath::tf32: return generation == GpuGeneration::hopper ? std::span<const GpuTile>(kHopperTf32) : std::span<const GpuTile>(kAmpereTf32);
    case GpuMath::fp8: return kHopperFp8;
    case GpuMath::half:
      return generation == GpuGeneration::hopper   ? std::span<const GpuTile>(kHopperHalf)
             : generation == GpuGeneration::ampere ? std::span<const GpuTile>(kAmpereHalf)
                                                   : std::span<const GpuTile>(kVoltaHalf);
  }
  return kSimt;
}

int gemm_alignment_bytes(const GemmShape& g, int element_bytes) {
  const std::int64_t lda = g.trans_a ? g.m : g.k, ldb = g.trans_b ? g.k : g.n, ldc = g.n;
  return std::min({alignment_of(lda, element_bytes), alignment_of(ldb, element_bytes), alignment_of(ldc, element_bytes)});
}

GpuGemmPlan gpu_gemm_plan(const DeviceSpec& device, const GpuKernelParams& params, const GemmShape& g, const GpuMatrixWork& work) {
  const GpuMathParams& mp = work.loop ? *work.loop : params.math[static_cast<int>(work.math)];
  double rate = mp.max_efficiency * work.loop_factor;
  if (work.alignment_bytes < 16) rate *= mp.misaligned_efficiency[work.alignment_bytes >= 8 ? 0 : work.alignment_bytes >= 4 ? 1 : 2];
  const std::int64_t sms = std::max<std::int64_t>(device.multiprocessors, 1);
  const double sm_flops = work.peak_flops / static_cast<double>(sms) * rate;
  const double by = work.element_bytes;
  const double batch = static_cast<double>(std::max<std::int64_t>(g.batch, 1));
  const double m = static_cast<double>(g.m), n = static_cast<double>(g.n), k = static_cast<double>(g.k);
  const double dram = device.memory_bandwidth * params.dram_efficiency;
  const double least = work.least_s >= 0 ? work.least_s : params.kernel_min_s;
  const double tile_fixed = mp.tile_fixed_s + work.tile_extra_s;
  GpuGemmPlan best;
  best.dram_seconds = (m * k + k * n + m * n) * by * batch / dram;
  best.seconds = std::numeric_limits<double>::infinity();
  if (g.m <= 0 || g.n <= 0 || g.k <= 0) {
    best.seconds = least + best.dram_seconds;
    return best;
  }
  for (const GpuTile& t : gpu_tile_candidates(params.generation, work.math)) {
    const std::int64_t output_tiles = ceil_div(g.m, t.m) * ceil_div(g.n, t.n) * std::max<std::int64_t>(g.batch, 1);
    const std::int64_t per_sm = std::clamp<std::int64_t>(kFullTileArea / (t.m * t.n), 1, kMaxTilesPerSm);
    for (const std::int64_t split : kSplits) {
      if (split > 1 && (!work.split_k || g.k / split < 4 * t.k)) break;
      const std::int64_t tiles = output_tiles * split;
      const std::int64_t waves = ceil_div(tiles, sms * per_sm);
      // Tiles on one SM at once in a full wave: they share its arithmetic, not their latency.
      const std::int64_t resident = std::min(per_sm, ceil_div(tiles, sms));
      const double active = static_cast<double>(std::min(tiles, sms * per_sm));
      const double steps = static_cast<double>(ceil_div(ceil_div(g.k, split), t.k));
      const double arithmetic = 2.0 * static_cast<double>(t.m * t.n * t.k) * static_cast<double>(resident) / sm_flops;
      const double loads = static_cast<double>(t.m + t.n) * static_cast<double>(t.k) * by * active / mp.operand_bandwidth;
      const double loop = static_cast<double>(waves) * (tile_fixed + steps * std::max({arithmetic, loads, mp.k_step_min_s}));
      // Split-K's partial sums: written in fp32 and read back once.
      const double reduce = split > 1 ? 2.0 * static_cast<double>(split) * m * n * 4.0 * batch / dram : 0.0;
      const double seconds = least + std::max(loop, best.dram_seconds) + reduce;
      if (seconds < best.seconds) {
        best.tile = t;
        best.split_k = split;
        best.tiles = tiles;
        best.waves = waves;
        best.loop_seconds = loop;
        best.seconds = seconds;
      }
    }
  }
  return best;
}

}  // namespace dnnperf
