#pragma once
// DirectConv: how a CPU DNN library (oneDNN, under PyTorch's CPU backend) spends a convolution's
// time, for the analytic family; one model per direction (forward, backward data, backward filter).
//
// A CPU convolution is arithmetic on vector lanes plus memory traffic the library adds around it
// (reordering activations and weights into its blocked layouts and back), and the two add up:
//
//   t = call_overhead (native_call_overhead on PyTorch's native path)
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
// the same edge for the filter alone, at large_weight_bytes (not on the gemm path, which multiplies
// the filter as it lies, read once: 411 and 822 MB filters stream there at 8-14 GB/s on the dev
// VM, where the edge charged 3.8x; forward held-out 20.0 -> 19.4%): a backward pass writes a filter-sized
// tensor afresh (the weight gradient; backward data, the filter reordered for the transposed
// product), and a layer of tens of MB of weights over a small image is that write — on the dev VM a
// 2048x2048x3x3 weight gradient (151 MB) at batch 6 takes 215 ms, 5x what its traffic at the rate
// of a 9 MB filter would. Without the term a fit lowers weight_bandwidth for those few and prices
// the many layers of 1-10 MB filters 20-30% slow (ResNet-18's at 64x64). Each direction
// takes one of five code paths with rates and traffic of its own (conv_path): direct (the general
// kernel), pointwise (1x1), native (PyTorch's CPU backend runs 1x1 unstrided at batches under 16,
// and single small images, as im2col and GEMM, not through oneDNN), depthwise, and gemm: oneDNN's
// own im2col and GEMM, which it falls back to where no JIT kernel takes the shape. The two
// im2col paths (native and gemm) run one GEMM per image and group, and pay for each call:
//
//   + N groups image_call           (native and gemm paths)
//
// and oneDNN's JIT weight gradients (direct, pointwise paths) accumulate a batch an image at a time
// into the whole filter's gradient, so one that does not stay in a core's cache is streamed once
// per image (the backward_weight direction's model only; the others' data showed no such term):
//
//   + N weight_bytes spill(weight_bytes) / image_weight_bandwidth     (direct and pointwise paths)
//
// with spill(W) = w^4 / (1 + w^4), w = W / weight_cache_bytes. On the Intel VM (2 MiB of L2,
// 2026-12-03) a 512x512 3x3 weight gradient (9 MB) over 2x2 images takes 2.3 ms at batch 2 and
// 0.38 ms more per image, ~24 GB/s of filter per image, where its arithmetic alone is 0.13 ms;
// without the term the late stages' weight gradients of ResNet-50 at batch 16 were priced 35-65%
// fast (docs/models/cpu-evidence.md: cpu-vm-2core-2026-12-03-intel). Profiles fitted before it have none.
//
// The native path's GEMM has the image's output pixels as its columns (its reduction, for weight
// gradients), and a BLAS runs them in whole blocks and a leftover: where the profile names the
// BLAS's block B and vector v (native_column_block, native_column_vector: those of the fitted
// cache-blocked GEMM model, the same library), its arithmetic is scaled by
//
//   whole / cols + (left + native_leftover_columns) / cols * (left mod v != 0 ? native_misaligned_slowdown : 1)
//
// with cols = P Q, whole = B floor(cols / B), left = cols - whole: a leftover of L columns runs at
// L / (L + h) of the block rate, scalar where it is not whole vectors (nor of the clean-up width,
// as blocked_gemm.h's `misaligned`). On the dev VM a 1x1 layer of
// 2048x2048 channels at batch 3 runs at 11 GFLOP/s over 2x2 images (4 columns) and a 1024x4096 one
// at 5.6 over 3x3 (9), 29-42 at 7x7, 15-19 at 9x9 (48 + 33) and 44-46 at 10x10 (96 + 4): the
// leftover, not the filter's size, sets the rate (docs/models/cpu-evidence.md: cpu-vm-2core-2026-12-01-native).
//
// and the gemm path has no window exponent and no input lanes to fill (its GEMM's rows are the
// output channels of a group: a depthwise one fills one lane of a vector). The depthwise path's
// vectors run across channels, a group to a lane: fill(C)^input_fill_exponent stands for both
// per-group fills there (24 channels fill 24 of 32 lanes).
// A depthwise 5x5 or 7x7 weight gradient goes that way (oneDNN's depthwise kernel for weight
// gradients takes windows of at most 3): on the dev VM 0.1 us per image and channel plus 0.6 ns
// per unfolded element, where the depthwise path priced them a quarter fast (40% MAPE). PyTorch's
// native path also loops over groups: a depthwise 1x1 at a small batch is one call per channel
// and image (2 us each on the dev VM, in every direction), which no lane fill describes.
//
// Why a sum and not a power law of the sizes (the regression family): on the dev VM a fit of this
// form predicts held-out convolutions with 24-27% MAPE against the regression's 30-40%, and the
// networks' own convolutions with 20-36% against 33-53% (docs/models/fitting-notes.md).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "models/compute/blocked_gemm.h"
#include "core/lowering/kernel.h"
#include "profile/cpu_library_models.h"

namespace dnnperf {

/// The most input values (N C H W) of one image that PyTorch convolves natively (ATen's
/// use_mkldnn: "for some case, native is faster").
constexpr std::int64_t kNativeConvMaxInput = 20480;
/// The path a convolution of this direction (forward, backward_data or backward_weight) takes.
ConvPath conv_path(const ConvShape& c, Phase direction);

/// The path `model` prices `c` on: conv_path, or the one before the gemm path where the model
/// has none.
ConvPath priced_conv_path(const DirectConv& model, const ConvShape& c, Phase direction);
/// The time of one convolution in `model`'s direction (`direction`: the one it was fitted for,
/// which decides the path); `parts`, if given, receives its arithmetic and its memory terms.
double direct_conv_seconds(const DirectConv& model, const ConvShape& c, Phase direction, double element_bytes, double* parts = nullptr);
/// The fixed cost of one call of `c` in `model`'s direction (part of direct_conv_seconds).
inline double conv_call_seconds(const DirectConv& model, const ConvShape& c, Phase direction) {
  return priced_conv_path(model, c, direction) == ConvPath::native && model.native_call_overhead_s > 0 ? model.native_call_overhead_s : model.call_overhead_s;
}

/// The call a kernel does not pay because its input gradient's call computed it
/// (Kernel::shares_call): the direction's call overhead where a direct model prices that
/// direction, else 0 (a GPU library's directions are launches of their own).
inline double shared_call_seconds(const DirectConv& direction, const Kernel& k) {
  return k.shares_call && k.cls == KernelClass::conv && direction.enabled() ? conv_call_seconds(direction, k.conv, k.phase) : 0.0;
}

/// Where each continuous parameter sits in the log form Ceres fits (log_parameters); the
/// per-path ones take kConvPaths places from their index, in ConvPath's order. Rates, bandwidths,
/// times and sizes are logarithms; exponents are themselves; slowdowns s are log(s - 1).
struct DirectConvIndex {
  static constexpr int rate = 0;  // per path
  static constexpr int input_fill_exponent = rate + kConvPaths, output_fill_exponent = input_fill_exponent + 1;
  static constexpr int window_exponent = output_fill_exponent + 1;
  static constexpr int input_bandwidth = window_exponent + 1;  // per path
  static constexpr int weight_bandwidth = input_bandwidth + kConvPaths;
  static constexpr int output_bandwidth = weight_bandwidth + 1;  // per path
  static constexpr int call_overhead = output_bandwidth + kConvPaths;
  static constexpr int large_bytes = call_overhead + 1, large_slowdown = large_bytes + 1;
  static constexpr int narrow_input_fill_exponent = large_slowdown + 1;
  static constexpr int stride_exponent = narrow_input_fill_exponent + 1;  // per path
  static constexpr int large_weight_bytes = stride_exponent + kConvPaths, large_weight_slowdown = large_weight_bytes + 1;
  static constexpr int depthwise_window_exponent = large_weight_slowdown + 1;
  static constexpr int image_call = depthwise_window_exponent + 1;
  static constexpr int native_leftover_columns = image_call + 1, native_misaligned = native_leftover_columns + 1;
  static constexpr int native_call_overhead = native_misaligned + 1;
  static constexpr int image_weight_bandwidth = native_call_overhead + 1, weight_cache_bytes = image_weight_bandwidth + 1;
  static constexpr int count = weight_cache_bytes + 1;
};
constexpr int kDirectConvParameters = DirectConvIndex::count;
/// Those every fit has: the native path's column and call terms are optional.
constexpr int kDirectConvRequiredParameters = DirectConvIndex::native_leftover_columns;
std::array<double, kDirectConvParameters> log_parameters(const DirectConv& model);
DirectConv with_log_parameters(DirectConv model, const double* p);

/// The discrete choices the formula needs beside its continuous parameters.
struct DirectConvLayout {
  std::int64_t lanes = 0;
  std::int64_t native_column_block = 0, native_column_vector = 0, native_column_cleanup = 0;
  bool native_call = false;  // the native path has a call overhead of its own
};
inline DirectConvLayout layout_of(const DirectConv& m) {
  return {m.lanes, m.native_column_block, m.native_column_vector, m.native_column_cleanup, m.native_call_overhead_s > 0};
}

/// The formula with those parameters, for a convolution taking `path` (priced_conv_path,
/// given so that a fit computes it once per measurement).
template <typename T>
T direct_conv_seconds(const ConvShape& c, ConvPath path_taken, const DirectConvLayout& layout, double element_bytes, const T* p, T* parts = nullptr) {
  using std::exp;
  using std::pow;
  using I = DirectConvIndex;
  const int path = static_cast<int>(path_taken);
  const double groups = static_cast<double>(std::max<std::int64_t>(c.groups, 1));
  const std::int64_t lanes = layout.lanes;
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
  T arithmetic;
  if (path_taken == ConvPath::native && groups > 1) {
    // One group at a time: a depthwise layer is a one-row GEMM per channel, priced by its calls.
    arithmetic = flops * exp(p[I::stride_exponent + path] * std::log(strides) - p[I::rate + path]);
  } else if (path_taken == ConvPath::gemm) {
    arithmetic = flops * exp(p[I::stride_exponent + path] * std::log(strides) - p[I::rate + path]) / pow(T(fill(per_group_out)), p[I::output_fill_exponent]);
  } else if (path_taken == ConvPath::depthwise) {
    // Its vectors run across the channels, a group to a lane: the channel count fills them.
    arithmetic = flops * exp(p[I::depthwise_window_exponent] * std::log(window) + p[I::stride_exponent + path] * std::log(strides) - p[I::rate + path]) /
                 pow(T(fill(static_cast<double>(c.c))), p[I::input_fill_exponent]);
  } else {
    arithmetic = flops * exp(p[I::window_exponent] * std::log(window) + p[I::stride_exponent + path] * std::log(strides) - p[I::rate + path]) /
                 (pow(T(fill(per_group_in)), narrow ? p[I::narrow_input_fill_exponent] : p[I::input_fill_exponent]) *
                  pow(T(fill(per_group_out)), p[I::output_fill_exponent]));
    if (path_taken == ConvPath::native && layout.native_column_block > 0) {
      const std::int64_t columns = c.p * c.q, block = layout.native_column_block;
      const std::int64_t left = columns % block;
      if (left > 0) {
        const bool slow = misaligned(left, layout.native_column_vector, layout.native_column_cleanup);
        const double whole = static_cast<double>(columns - left), cols = static_cast<double>(columns);
        arithmetic = arithmetic * (whole / cols + (T(static_cast<double>(left)) + exp(p[I::native_leftover_columns])) / cols *
                                                      (slow ? exp(p[I::native_misaligned]) : T(1)));
      }
    }
  }
  if (path_taken == ConvPath::gemm || path_taken == ConvPath::native) arithmetic += n * groups * exp(p[I::image_call]);
  const T r = pow(T(input + output) * exp(-p[I::large_bytes]), 4.0);
  // oneDNN's im2col path multiplies the filter as it lies, read once: no blocked copy of it to
  // write, so no large-filter edge (its 411 and 822 MB filters over 2x2 images stream at 8-14 GB/s).
  const T rw = path_taken == ConvPath::gemm ? T(0) : pow(T(weights) * exp(-p[I::large_weight_bytes]), 4.0);
  const T memory = (input * exp(-p[I::input_bandwidth + path]) +
                    weights * (T(1) + exp(p[I::large_weight_slowdown]) * rw / (T(1) + rw)) * exp(-p[I::weight_bandwidth]) +
                    output * exp(-p[I::output_bandwidth + path])) *
                   (T(1) + exp(p[I::large_slowdown]) * r / (T(1) + r));
  T streamed = T(0);
  if (path_taken == ConvPath::direct || path_taken == ConvPath::pointwise) {
    const T w = pow(T(weights) * exp(-p[I::weight_cache_bytes]), 4.0);
    streamed = n * weights * w / (T(1) + w) * exp(-p[I::image_weight_bandwidth]);
  }
  if (parts) parts[0] = arithmetic, parts[1] = memory + streamed;
  return arithmetic + memory + streamed + exp(p[path_taken == ConvPath::native && layout.native_call ? I::native_call_overhead : I::call_overhead]);
}

}  // namespace dnnperf
