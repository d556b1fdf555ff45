#include "models/compute/analytic_model.h"

#include <algorithm>
#include <cmath>

#include "core/common/integer_math.h"
#include "core/common/error.h"
#include "models/compute/direct_conv.h"

namespace dnnperf {

std::int64_t short_run_elements(const Kernel& k) { return k.run_elements > 0 && k.run_elements < kShortRunElements ? k.elements : 0; }
namespace {

constexpr std::int64_t kMinSplitK = 256;


/// Efficiency of one tiling of the output (tm x tn tiles), with split-K when the tiles are too few.
double tiling_efficiency(const GemmShape& g, std::int64_t tm, std::int64_t tn, const MatrixEfficiency& e, std::int64_t sms) {
  const std::int64_t tiles_m = ceil_div(g.m, tm), tiles_n = ceil_div(g.n, tn);
  const double tile = static_cast<double>(g.m) * static_cast<double>(g.n) /
                      (static_cast<double>(tiles_m * tm) * static_cast<double>(tiles_n * tn));
  // A smaller tile reuses each operand fewer times: it reaches a fraction of the full tile's rate.
  const double tile_size = std::sqrt(static_cast<double>(tm * tn) / static_cast<double>(e.tile_m * e.tile_n));
  std::int64_t tiles = tiles_m * tiles_n * std::max<std::int64_t>(g.batch, 1);
  // Too few output tiles to fill the device: split the k dimension across blocks (split-K, as
  // cuBLAS and cuDNN do for weight gradients), keeping slices of at least kMinSplitK.
  std::int64_t split = 1;
  if (tiles < sms) split = std::min(ceil_div(sms, tiles), std::max<std::int64_t>(1, g.k / kMinSplitK));
  tiles *= split;
  const std::int64_t waves = ceil_div(tiles, sms);
  const double wave = static_cast<double>(tiles) / static_cast<double>(waves * sms);
  const double depth = static_cast<double>(g.k) / static_cast<double>(split);
  const double fill = depth / (depth + e.half_efficiency_k);
  return e.max_efficiency * tile * tile_size * wave * fill;
}

/// Libraries pick the tiling that runs fastest; so does the model, among the profile's tile and
/// its halves and quarters in each dimension.
double matrix_efficiency(const GemmShape& g, const MatrixEfficiency& e, std::int64_t sms) {
  double best = 0;
  for (std::int64_t tm = e.tile_m, i = 0; i < 3 && tm >= 8; tm /= 2, ++i)
    for (std::int64_t tn = e.tile_n, j = 0; j < 3 && tn >= 8; tn /= 2, ++j)
      best = std::max(best, tiling_efficiency(g, tm, tn, e, sms));
  return best;
}

}  // namespace

bool thin_group_conv(const ConvShape& c) { return c.groups > 1 && std::min(c.c / c.groups, c.k / c.groups) < 8; }

AnalyticComputeModel::AnalyticComputeModel(const DeviceSpec& device) : device_(device) {
  if (!device.peak_flops.count(MathMode::fp32)) throw InputError("device '" + device.model + "' has no fp32 peak");
}

MathMode AnalyticComputeModel::mode(const Kernel& k, const ExecutionOptions& o) const {
  const bool matrix = k.cls == KernelClass::gemm || (k.cls == KernelClass::conv && !thin_group_conv(k.conv));
  const auto has = [&](MathMode m) { return device_.peak_flops.count(m) > 0; };
  const auto pick = [&](MathMode tensor, MathMode plain) {
    if (matrix && has(tensor)) return tensor;
    if (has(plain)) return plain;
    if (has(tensor)) return tensor;
    throw InputError("device '" + device_.model + "' cannot compute in " + std::string(dtype_name(k.dtype)));
  };
  switch (k.dtype) {
    case DType::f64: return pick(MathMode::fp64_tensor, MathMode::fp64);
    case DType::f16: return pick(MathMode::fp16_tensor, MathMode::fp16);
    case DType::bf16: return pick(MathMode::bf16_tensor, MathMode::bf16);
    case DType::f8e4m3:
      if (!matrix || !has(MathMode::fp8_tensor)) throw InputError("device '" + device_.model + "' has no FP8 tensor cores (peak_flops.fp8_tensor)");
      return MathMode::fp8_tensor;
    default: {
      const bool tf32 = o.allow_tf32 || (k.cls == KernelClass::conv && device_.fp32_conv_math == MathMode::tf32_tensor);
      return matrix && tf32 && has(MathMode::tf32_tensor) ? MathMode::tf32_tensor : MathMode::fp32;
    }
  }
}

AnalyticCost AnalyticComputeModel::cost(const Kernel& k, const ExecutionOptions& o) const {
  AnalyticCost c;
  c.mode = mode(k, o);
  const double peak = device_.peak_flops.at(c.mode);
  c.launch_seconds = device_.launch_overhead_s;
  if (k.cls == KernelClass::gemm && device_.blocked_gemm.enabled() && k.dtype == device_.blocked_gemm.dtype && k.flops > 0) {
    // A CPU BLAS's time is a sum of blocks, clean-up, packing and the call: no max of two rates.
    const BlockedGemm& b = device_.blocked_gemm;
    double parts[2];
    c.seconds = blocked_gemm_seconds(b, implicit_gemm(k), dtype_bytes(k.dtype), parts);
    c.launch_seconds = b.call_overhead_s;
    c.compute_seconds = parts[0];
    c.memory_seconds = parts[1];
    c.compute_efficiency = k.flops / (c.compute_seconds * b.block_flops);
    c.memory_efficiency = 1.0;
    return c;
  }
  if (k.cls == KernelClass::conv && k.phase != Phase::update && k.flops > 0) {
    const DirectConv& d = device_.direct_conv[static_cast<int>(k.phase)];
    if (d.enabled() && k.dtype == d.dtype) {
      double parts[2];
      c.seconds = direct_conv_seconds(d, k.conv, k.phase, dtype_bytes(k.dtype), parts);
      c.launch_seconds = conv_call_seconds(d, k.conv, k.phase);
      if (const double saved = shared_call_seconds(d, k); saved > 0) c.seconds -= saved, c.launch_seconds = 0;  // its input gradient's call made it
      c.compute_seconds = parts[0];
      c.memory_seconds = parts[1];
      c.compute_efficiency = k.flops / (c.compute_seconds * d.rate[static_cast<int>(priced_conv_path(d, k.conv, k.phase))]);
      c.memory_efficiency = 1.0;
      return c;
    }
  }
  if (k.cls == KernelClass::gemm || k.cls == KernelClass::conv) {
    const MatrixEfficiency& e = k.cls == KernelClass::gemm ? device_.gemm : device_.conv;
    const bool thin = k.cls == KernelClass::conv && thin_group_conv(k.conv);  // no tiles: the plain units at the fitted efficiency
    c.compute_efficiency = k.flops <= 0 ? 1.0 : thin ? e.max_efficiency : matrix_efficiency(implicit_gemm(k), e, device_.multiprocessors);
    c.compute_seconds = k.flops > 0 ? k.flops / (peak * c.compute_efficiency) : 0.0;
  } else {
    c.compute_efficiency = 1.0;
    c.compute_seconds = k.flops / peak;
  }
  const double bytes = k.bytes_read + k.bytes_written;
  const MemoryEfficiency* memory = &device_.memory;
  if (!k.pass.empty())
    if (const auto it = device_.passes.find(k.pass); it != device_.passes.end()) {
      // A pass family's efficiency was fitted to the whole pass: it holds the arithmetic too.
      memory = &it->second;
      c.compute_seconds = 0;
    }
  const auto overflow = [&](double b) { return memory->dram_slowdown > 1 ? (memory->dram_slowdown - 1) * b / (b + memory->cache_bytes) : 0.0; };
  c.memory_efficiency = memory->max_efficiency * bytes / (bytes + memory->half_efficiency_bytes) / (1 + overflow(bytes));
  c.memory_seconds = bytes > 0 ? bytes / (device_.memory_bandwidth * c.memory_efficiency) : 0.0;
  // One part of a longer stream: its bytes come from as far as the stream's would, not from the
  // cache a pass swept again and again (as calibration times it) would leave them in.
  if (k.footprint_bytes > bytes && bytes > 0) {
    c.memory_seconds += bytes * (overflow(k.footprint_bytes) - overflow(bytes)) / (device_.memory_bandwidth * memory->max_efficiency);
    c.memory_efficiency = bytes / (device_.memory_bandwidth * c.memory_seconds);
  }
  c.seconds = c.launch_seconds + std::max(c.compute_seconds, c.memory_seconds);
  // Elements in runs too short for a vector go through scalar code (a family that prices them).
  if (const std::int64_t short_elements = short_run_elements(k); memory->short_run_element_s > 0 && short_elements > 0)
    c.seconds += static_cast<double>(short_elements) * memory->short_run_element_s;
  // Arithmetic that does not scale with the traffic (a pooling window's), where the family has a rate for it.
  if (memory->operation_s > 0 && k.flops > 0) c.seconds += k.flops * memory->operation_s;
  return c;
}

}  // namespace dnnperf
