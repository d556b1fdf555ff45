#include "models/compute/regression_model.h"

#include "models/compute/direct_conv.h"

#include <algorithm>
#include <cmath>

#include "core/common/dtype.h"
#include "core/common/error.h"

namespace dnnperf {
namespace {

double lg(double v) { return std::log(std::max(v, 1.0)); }

// The fraction of 16-wide vector lanes (AVX-512 fp32; a tensor-core fragment's 16 on GPUs) that a
// dimension of x fills in its last block, in log: 0 for multiples of 16, log(3/16) for 3 channels.
double lane_fill(std::int64_t x) {
  const double blocks = std::ceil(static_cast<double>(x) / 16.0);
  return std::log(static_cast<double>(std::max<std::int64_t>(x, 1)) / (16.0 * std::max(blocks, 1.0)));
}

// The share of x outside whole blocks of `block` (0 for multiples, 1 below one block).
double block_remainder(std::int64_t x, std::int64_t block) {
  if (block <= 0 || x <= 0) return 0.0;
  return static_cast<double>(x % block) / static_cast<double>(x);
}

// Whether rows of x elements end off a 16-byte boundary: vector loads of such operands split.
double misaligned(std::int64_t x, DType dtype) {
  const std::int64_t per_16_bytes = std::max(1, 16 / std::max(1, dtype_bytes(dtype)));
  return x % per_16_bytes != 0 ? 1.0 : 0.0;
}

}  // namespace

double regression_feature(const Kernel& k, std::string_view name, std::int64_t blocking) {
  const GemmShape g = implicit_gemm(k);
  const double bytes = k.bytes_read + k.bytes_written;
  if (name == "one") return 1.0;
  if (name == "log_flops") return lg(k.flops);
  if (name == "log_bytes") return lg(bytes);
  if (name == "log_m") return lg(static_cast<double>(g.m));
  if (name == "log_n") return lg(static_cast<double>(g.n));
  if (name == "log_k") return lg(static_cast<double>(g.k));
  if (name == "log_min_dim") return lg(static_cast<double>(std::min({g.m, g.n, g.k})));
  if (name == "log_flops_squared") return lg(k.flops) * lg(k.flops) / 10.0;
  if (name == "log_intensity") return std::log(std::max(k.flops, 1.0) / std::max(bytes, 1.0));
  if (name == "log_batch") return lg(static_cast<double>(g.batch));
  if (name == "log_window") return k.cls == KernelClass::conv ? lg(static_cast<double>(k.conv.r * k.conv.s)) : 0.0;
  if (name == "log_stride") return k.cls == KernelClass::conv ? lg(static_cast<double>(k.conv.stride_h * k.conv.stride_w)) : 0.0;
  if (name == "trans_a") return g.trans_a ? 1.0 : 0.0;
  if (name == "trans_b") return g.trans_b ? 1.0 : 0.0;
  // Each output tile loops over k: short loops waste their pipeline fill (as the analytic model's
  // half_efficiency_k says), in log form.
  if (name == "k_fill") return std::log(static_cast<double>(g.k) / (static_cast<double>(g.k) + 64.0));
  // Libraries run 1x1 unstrided convolutions as plain GEMMs and depthwise ones with kernels of
  // their own (PyTorch's CPU backend sends small-batch 1x1 convolutions down a different path
  // altogether): each a family with its own efficiency, which no power law of the sizes expresses.
  if (name == "pointwise") return k.cls == KernelClass::conv && k.conv.r == 1 && k.conv.s == 1 && k.conv.stride_h == 1 && k.conv.stride_w == 1 ? 1.0 : 0.0;
  if (name == "depthwise") return k.cls == KernelClass::conv && k.conv.groups > 1 ? 1.0 : 0.0;
  // PyTorch's own path (models/compute/direct_conv.h: ConvPath::native; named for its first case,
  // small-batch 1x1): half the rate of the rest on the 2-core VM, a population no size feature
  // separates from pointwise convolutions of larger batches, which oneDNN runs.
  if (name == "small_batch_pointwise") return k.cls == KernelClass::conv && conv_path(k.conv, k.phase) == ConvPath::native ? 1.0 : 0.0;
  // oneDNN's own im2col and GEMM, where none of its JIT kernels takes the shape (a depthwise 7x7
  // weight gradient): one GEMM call per image and group.
  if (name == "im2col_gemm") return k.cls == KernelClass::conv && conv_path(k.conv, k.phase) == ConvPath::gemm ? 1.0 : 0.0;
  // Those code paths also scale differently with the work, not only start elsewhere.
  if (name == "depthwise_log_flops") return regression_feature(k, "depthwise") * lg(k.flops);
  if (name == "small_batch_pointwise_log_flops") return regression_feature(k, "small_batch_pointwise") * lg(k.flops);
  // Direct convolutions vectorise over blocks of input and output channels (GEMMs over k and n):
  // 3 input channels leave 13 of 16 lanes idle, which FLOPs and sizes alone do not say.
  if (name == "in_lane_fill") return lane_fill(k.cls == KernelClass::conv ? k.conv.c / k.conv.groups : g.k);
  if (name == "out_lane_fill") return lane_fill(k.cls == KernelClass::conv ? k.conv.k / k.conv.groups : g.n);
  // Per-image output pixels: GEMM-based convolutions (im2col, PyTorch's small-batch 1x1 path) run
  // one GEMM per image, whose efficiency follows the image, not the batch times the image.
  if (name == "log_image") return k.cls == KernelClass::conv ? lg(static_cast<double>(k.conv.p * k.conv.q)) : 0.0;
  // Efficiency is not a power law of each dimension: it ramps and saturates, which a second-order
  // surface in the logs follows (scaled as log_flops_squared, for the solver's conditioning).
  const double lm = lg(static_cast<double>(g.m)), ln = lg(static_cast<double>(g.n)), lk = lg(static_cast<double>(g.k));
  if (name == "log_m_squared") return lm * lm / 10.0;
  if (name == "log_n_squared") return ln * ln / 10.0;
  if (name == "log_k_squared") return lk * lk / 10.0;
  if (name == "log_m_log_n") return lm * ln / 10.0;
  if (name == "log_m_log_k") return lm * lk / 10.0;
  if (name == "log_n_log_k") return ln * lk / 10.0;
  if (name == "m_misaligned") return misaligned(g.m, k.dtype);
  if (name == "n_misaligned") return misaligned(g.n, k.dtype);
  if (name == "k_misaligned") return misaligned(g.k, k.dtype);
  if (name == "m_block_remainder") return block_remainder(g.m, blocking);
  if (name == "n_block_remainder") return block_remainder(g.n, blocking);
  if (name == "k_block_remainder") return block_remainder(g.k, blocking);
  if (name == "nk_block_remainder") return block_remainder(g.n, blocking) * block_remainder(g.k, blocking);
  throw InputError("unknown regression feature '" + std::string(name) + "'");
}

std::string regression_class(const Kernel& k) {
  return k.cls == KernelClass::gemm || k.cls == KernelClass::conv ? calibration_class(k) : "";
}

std::vector<double> regression_features(const RegressionModel& m, const Kernel& k) {
  std::vector<double> v;
  v.reserve(m.features.size());
  for (const std::string& f : m.features) v.push_back(regression_feature(k, f, m.blocking));
  return v;
}

double regression_seconds(const RegressionModel& m, const Kernel& k) {
  return std::exp(regression_log_seconds(m.weights.data(), regression_features(m, k)));
}

std::pair<double, double> regression_interval(const RegressionModel& m, const Kernel& k) {
  const std::vector<double> v = regression_features(m, k);
  const double center = regression_log_seconds(m.weights.data(), v);
  double variance = m.residual_sigma * m.residual_sigma;
  const std::size_t n = v.size();
  if (m.covariance.size() == n * n)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) variance += v[i] * m.covariance[i * n + j] * v[j];
  const double spread = 1.96 * std::sqrt(std::max(variance, 0.0));
  return {std::exp(center - spread), std::exp(center + spread)};
}

}  // namespace dnnperf
