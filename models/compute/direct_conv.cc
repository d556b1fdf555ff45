#include "models/compute/direct_conv.h"

namespace dnnperf {

namespace {

/// How many of `out` outputs along one dimension read no padding: those past the rows the
/// leading padding reaches and before those the trailing padding does.
std::int64_t unpadded_outputs(std::int64_t in, std::int64_t pad, std::int64_t window, std::int64_t stride, std::int64_t out) {
  const std::int64_t trailing = std::max<std::int64_t>(0, (out - 1) * stride + window - in - pad);
  const auto reached = [stride](std::int64_t padding) { return (padding + stride - 1) / stride; };
  return out - reached(pad) - reached(trailing);
}

}  // namespace

ConvPath conv_path(const ConvShape& c, Phase direction) {
  const bool pointwise = c.r == 1 && c.s == 1;
  const bool strided = c.stride_h > 1 || c.stride_w > 1;
  const bool dilated = c.dilation_h > 1 || c.dilation_w > 1;
  // PyTorch's CPU convolution leaves oneDNN for its own im2col-and-GEMM code (ATen's use_mkldnn
  // condition, one thread) when a 1x1 unstrided convolution has a batch under 16, or when one
  // image of at most 20,480 values meets a window no wider than 3 in both directions. On the dev
  // VM a [1, 256, 4, 4] 3x3 layer takes 0.90 ms that way, where four images take 0.60 ms in oneDNN.
  if (pointwise && !strided && !dilated && c.n < 16) return ConvPath::native;
  if (c.groups <= 1 && c.n == 1 && !(c.r > 3 && c.s > 3) && c.c * c.h * c.w <= kNativeConvMaxInput) return ConvPath::native;
  // oneDNN's JIT forward kernels take at most one output row's worth of left padding (a 7x7
  // window padded by 3 over a 2x2 image goes to im2col and GEMM; over 3x3 it does not).
  if (direction == Phase::forward && (c.pad_w > c.q || c.pad_h > c.p)) return ConvPath::gemm;
  if (c.groups > 1) {
    // The depthwise weight-gradient kernel takes windows of at most 3, without gaps between
    // them, and wants an output row and column whose window touches no padding.
    const bool depthwise_kernel = c.r <= 3 && c.s <= 3 && c.stride_h <= c.r && c.stride_w <= c.s &&
                                  unpadded_outputs(c.h, c.pad_h, c.r, c.stride_h, c.p) >= 1 && unpadded_outputs(c.w, c.pad_w, c.s, c.stride_w, c.q) >= 1;
    if (direction == Phase::backward_weight && !depthwise_kernel) return ConvPath::gemm;
    return ConvPath::depthwise;
  }
  if (!pointwise) return ConvPath::direct;
  // A strided 1x1 runs as a 1x1 on a subsampled input where the strides divide the input.
  const bool exact = c.p * c.stride_h == c.h && c.q * c.stride_w == c.w;
  return exact ? ConvPath::pointwise : ConvPath::direct;
}

std::array<double, kDirectConvParameters> log_parameters(const DirectConv& m) {
  using I = DirectConvIndex;
  std::array<double, kDirectConvParameters> p{};
  for (int i = 0; i < kConvPaths; ++i) {
    // A path the model does not price keeps a finite placeholder, so that a fit can start from it.
    p[I::rate + i] = std::log(m.rate[i] > 0 ? m.rate[i] : 1e10);
    p[I::input_bandwidth + i] = std::log(m.input_bandwidth[i] > 0 ? m.input_bandwidth[i] : 1e10);
    p[I::output_bandwidth + i] = std::log(m.output_bandwidth[i] > 0 ? m.output_bandwidth[i] : 1e10);
    p[I::stride_exponent + i] = m.stride_exponent[i];
  }
  p[I::input_fill_exponent] = m.input_fill_exponent;
  p[I::output_fill_exponent] = m.output_fill_exponent;
  p[I::window_exponent] = m.window_exponent;
  p[I::weight_bandwidth] = std::log(m.weight_bandwidth);
  p[I::call_overhead] = std::log(m.call_overhead_s);
  p[I::native_call_overhead] = std::log(m.native_call_overhead_s > 0 ? m.native_call_overhead_s : m.call_overhead_s);
  p[I::large_bytes] = std::log(m.large_bytes);
  p[I::large_slowdown] = std::log(std::max(m.large_slowdown - 1, 1e-12));
  p[I::narrow_input_fill_exponent] = m.narrow_input_fill_exponent;
  p[I::large_weight_bytes] = std::log(m.large_weight_bytes);
  p[I::large_weight_slowdown] = std::log(std::max(m.large_weight_slowdown - 1, 1e-12));
  p[I::depthwise_window_exponent] = m.depthwise_window_exponent;
  p[I::image_call] = std::log(std::max(m.image_call_s, 1e-30));  // 0 in older profiles: 1e-30 s, nothing
  p[I::native_leftover_columns] = std::log(std::max(m.native_leftover_columns, 1e-30));
  p[I::native_misaligned] = std::log(std::max(m.native_misaligned_slowdown, 1.0));
  // Without the term (0 in older profiles and other directions): a filter streamed past 1 GB at
  // 1e14 bytes/s, nothing to speak of, and within the bounds a fit holds it at.
  p[I::image_weight_bandwidth] = std::log(m.image_weight_bandwidth > 0 ? m.image_weight_bandwidth : 1e14);
  p[I::weight_cache_bytes] = std::log(m.weight_cache_bytes > 0 ? m.weight_cache_bytes : 1e9);
  return p;
}

DirectConv with_log_parameters(DirectConv m, const double* p) {
  using I = DirectConvIndex;
  for (int i = 0; i < kConvPaths; ++i) {
    m.rate[i] = std::exp(p[I::rate + i]);
    m.input_bandwidth[i] = std::exp(p[I::input_bandwidth + i]);
    m.output_bandwidth[i] = std::exp(p[I::output_bandwidth + i]);
    m.stride_exponent[i] = p[I::stride_exponent + i];
  }
  m.input_fill_exponent = p[I::input_fill_exponent];
  m.output_fill_exponent = p[I::output_fill_exponent];
  m.window_exponent = p[I::window_exponent];
  m.weight_bandwidth = std::exp(p[I::weight_bandwidth]);
  m.call_overhead_s = std::exp(p[I::call_overhead]);
  if (m.native_call_overhead_s > 0) m.native_call_overhead_s = std::exp(p[I::native_call_overhead]);
  m.large_bytes = std::exp(p[I::large_bytes]);
  m.large_slowdown = 1 + std::exp(p[I::large_slowdown]);
  m.narrow_input_fill_exponent = p[I::narrow_input_fill_exponent];
  m.large_weight_bytes = std::exp(p[I::large_weight_bytes]);
  m.large_weight_slowdown = 1 + std::exp(p[I::large_weight_slowdown]);
  m.depthwise_window_exponent = p[I::depthwise_window_exponent];
  m.image_call_s = std::exp(p[I::image_call]);
  if (m.image_weight_bandwidth > 0) {
    m.image_weight_bandwidth = std::exp(p[I::image_weight_bandwidth]);
    m.weight_cache_bytes = std::exp(p[I::weight_cache_bytes]);
  }
  if (m.native_column_block > 0) {
    m.native_leftover_columns = std::exp(p[I::native_leftover_columns]);
    m.native_misaligned_slowdown = std::exp(p[I::native_misaligned]);
  }
  if (!m.gemm_path) {
    const int g = static_cast<int>(ConvPath::gemm);
    m.rate[g] = m.input_bandwidth[g] = m.output_bandwidth[g] = m.stride_exponent[g] = 0;
  }
  return m;
}

ConvPath priced_conv_path(const DirectConv& model, const ConvShape& c, Phase direction) {
  const ConvPath path = conv_path(c, direction);
  if (path != ConvPath::gemm || model.gemm_path) return path;
  return c.groups > 1 ? ConvPath::depthwise : ConvPath::direct;
}

double direct_conv_seconds(const DirectConv& model, const ConvShape& c, Phase direction, double element_bytes, double* parts) {
  const auto p = log_parameters(model);
  return direct_conv_seconds(c, priced_conv_path(model, c, direction), layout_of(model), element_bytes, p.data(), parts);
}

}  // namespace dnnperf
