#pragma once
// DirectConv: how a CPU DNN library (oneDNN, under PyTorch's CPU backend) spends a convolution's
// time, for the analytic family; one model per direction (forward, backward data, backward filter).
//
// A CPU convolution is arithmetic on vector lanes plus memory traffic the library adds around it
// (reordering activations and weights into its blocked layouts and back), and the two add up:
//
//   t = call_overhead
//     + FLOPs * (R S)^window_exponent[direct or depthwise] * (stride_h stride_w)^stride_exponent[path]
//         / (rate[path] * fill(C / groups)^input_fill_exponent * fill(K / groups)^output_fill_exponent)
//       (with narrow_input_fill_exponent for fewer input channels than lanes)
//     + (input_bytes / input_bandwidth[path] + weight_bytes * large_weights(weight_bytes) / weight_bandwidth
//        + output_bytes / output_bandwidth[path]) * large(input_bytes + output_bytes)
//
// where input and output are the forward's activations (N C H W and N K P Q) in every direction,
// fill(c) = c / (lanes * ceil(c / lanes)) is the share of vector lanes a channel count fills
// (oneDNN blocks channels by 16 floats on AVX-512; inputs narrower than a vector, as an RGB
// image, go to kernels that vectorise over output channels instead: 3-channel 7x7 convolutions
// reach 100-200 GFLOP/s on the VM, so they get an exponent of their own); the stride term lets a
// path's work follow the input's pixels rather than the output's (a depthwise 3x3 weight gradient
// at stride 2 takes as long as at stride 1 on the VM: 4x the time per FLOP); the depthwise path has
// its own window exponent (oneDNN streams a depthwise 3x3 at the memory's pace while 5x5 and 7x7
// cost their arithmetic: fitted 1.3-1.6 on the VM, against ~0 for dense kernels, whose exponent
// priced depthwise 3x3 weight gradients 3x slow); and large(B) = 1 + (large_slowdown - 1) r^4 /
// (1 + r^4), r = B / large_bytes, the slowdown of tensors far beyond the caches; large_weights(W)
// the same edge for the filter alone, at large_weight_bytes: a backward pass writes a filter-sized
// tensor afresh (the weight gradient; backward data, the filter reordered for the transposed
// product), and a layer of tens of MB of weights over a small image is that write — on the dev VM a
// 2048x2048x3x3 weight gradient (151 MB) at batch 6 takes 215 ms, 5x what its traffic at the rate
// of a 9 MB filter would. Without the term a fit lowers weight_bandwidth for those few and prices
// the many layers of 1-10 MB filters 20-30% slow (ResNet-18's at 64x64). Each direction
// takes one of four code paths with rates and traffic of its own: direct (the general kernel),
// pointwise (1x1, groups 1), native (PyTorch's CPU backend runs 1x1 unstrided at batches under 16,
// and single small images, as im2col and GEMM, not through oneDNN) and depthwise (groups > 1).
//
// Why a sum and not a power law of the sizes (the regression family): on the dev VM a fit of this
// form predicts held-out convolutions with 24-27% MAPE against the regression's 30-40%, and the
// networks' own convolutions with 20-36% against 33-53% (docs/fitting.md).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "predictor/lowering/kernel.h"

namespace dnnperf {

/// The code path a CPU library takes for a convolution: depthwise (groups > 1), native (PyTorch's
/// own im2col and GEMM instead of oneDNN: 1x1 unstrided at batches under 16, and one small image
/// under a window of at most 3; "small-batch pointwise", its first case, in older notes),
/// pointwise (other 1x1), direct (the rest).
enum class ConvPath : std::uint8_t { direct = 0, pointwise = 1, native = 2, depthwise = 3 };
/// The most input values (N C H W) of one image that PyTorch convolves natively (ATen's
/// use_mkldnn: "for some case, native is faster").
constexpr std::int64_t kNativeConvMaxInput = 20480;
constexpr int kConvPaths = 4;
ConvPath conv_path(const ConvShape& c);

struct DirectConv {
  /// Channels per vector register (the fill's unit); 0: no direct model for this direction.
  std::int64_t lanes = 0;
  std::array<double, kConvPaths> rate{};              // FLOP/s at full lanes, per path
  double input_fill_exponent = 0, output_fill_exponent = 0;
  double narrow_input_fill_exponent = 0;  // where C / groups < lanes
  std::array<double, kConvPaths> stride_exponent{};
  double window_exponent = 0;
  double depthwise_window_exponent = 0;  // the depthwise path's own (its kernels are per window size)
  std::array<double, kConvPaths> input_bandwidth{};   // bytes/s, per path
  double weight_bandwidth = 0;
  std::array<double, kConvPaths> output_bandwidth{};  // bytes/s, per path
  double call_overhead_s = 0;
  double large_bytes = 1e12;
  double large_slowdown = 1;
  double large_weight_bytes = 1e12;  // filter size halfway to large_weight_slowdown
  double large_weight_slowdown = 1;  // >= 1; 1: no such edge (profiles fitted before it had one)
  DType dtype = DType::f32;  // the element type it was fitted on

  bool enabled() const { return lanes > 0; }
  /// The time of one convolution of this direction; `parts`, if given, receives its arithmetic
  /// and its memory terms.
  double seconds(const ConvShape& c, double element_bytes, double* parts = nullptr) const;
};

/// The call a kernel does not pay because its input gradient's call computed it
/// (Kernel::shares_call): the direction's call overhead where a direct model prices that
/// direction, else 0 (a GPU library's directions are launches of their own).
inline double shared_call_seconds(const DirectConv& direction, const Kernel& k) {
  return k.shares_call && k.cls == KernelClass::conv && direction.enabled() ? direction.call_overhead_s : 0.0;
}

/// The continuous parameters in log form, as Ceres fits them: p[0..3] log rate, p[4], p[5] the
/// fill exponents, p[6] the window exponent, p[7..10] log input_bandwidth, p[11] log
/// weight_bandwidth, p[12..15] log output_bandwidth, p[16] log call_overhead_s, p[17] log
/// large_bytes, p[18] log(large_slowdown - 1), p[19] the narrow inputs' fill exponent, p[20..23]
/// the stride exponents, p[24] log large_weight_bytes, p[25] log(large_weight_slowdown - 1),
/// p[26] the depthwise path's window exponent.
constexpr int kDirectConvParameters = 27;
std::array<double, kDirectConvParameters> log_parameters(const DirectConv& model);
DirectConv with_log_parameters(DirectConv model, const double* p);

/// The formula with those parameters, for a convolution taking `path` (conv_path(c), given so that
/// a fit computes it once per measurement).
template <typename T>
T direct_conv_seconds(const ConvShape& c, ConvPath path_taken, std::int64_t lanes, double element_bytes, const T* p, T* parts = nullptr) {
  using std::exp;
  using std::pow;
  const int path = static_cast<int>(path_taken);
  const double groups = static_cast<double>(std::max<std::int64_t>(c.groups, 1));
  const auto fill = [&](double channels) {
    const double l = static_cast<double>(lanes);
    return channels / (l * std::ceil(channels / l));
  };
  const double n = static_cast<double>(c.n), window = static_cast<double>(c.r * c.s);
  const double per_group_in = static_cast<double>(c.c) / groups, per_group_out = static_cast<double>(c.k) / groups;
  const double flops = 2 * n * static_cast<double>(c.k) * static_cast<double>(c.p * c.q) * per_group_in * window;
  const double input = n * static_cast<double>(c.c * c.h * c.w) * element_bytes;
  const double weights = static_cast<double>(c.k) * per_group_in * window * element_bytes;
  const double output = n * static_cast<double>(c.k * c.p * c.q) * element_bytes;
  const bool narrow = per_group_in < static_cast<double>(lanes);
  const double strides = static_cast<double>(c.stride_h * c.stride_w);
  const T window_exponent = path_taken == ConvPath::depthwise ? p[26] : p[6];
  const T arithmetic = flops * exp(window_exponent * std::log(window) + p[20 + path] * std::log(strides) - p[path]) /
                       (pow(T(fill(per_group_in)), narrow ? p[19] : p[4]) * pow(T(fill(per_group_out)), p[5]));
  const T r = pow(T(input + output) * exp(-p[17]), 4.0);
  const T rw = pow(T(weights) * exp(-p[24]), 4.0);
  const T memory = (input * exp(-p[7 + path]) + weights * (T(1) + exp(p[25]) * rw / (T(1) + rw)) * exp(-p[11]) + output * exp(-p[12 + path])) *
                   (T(1) + exp(p[18]) * r / (T(1) + r));
  if (parts) parts[0] = arithmetic, parts[1] = memory;
  return arithmetic + memory + exp(p[16]);
}

}  // namespace dnnperf
