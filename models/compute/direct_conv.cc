#include "models/compute/direct_conv.h"

namespace dnnperf {

ConvPath conv_path(const ConvShape& c) {
  if (c.groups > 1) return ConvPath::depthwise;
  // PyTorch's CPU convolution leaves oneDNN for its own im2col-and-GEMM code (ATen's use_mkldnn
  // condition, one thread) when a 1x1 unstrided convolution has a batch under 16, or when one
  // image of at most 20,480 values meets a window no wider than 3 in both directions. On the dev
  // VM a [1, 256, 4, 4] 3x3 layer takes 0.90 ms that way, where four images take 0.60 ms in oneDNN.
  const bool pointwise = c.r == 1 && c.s == 1;
  const bool unstrided = c.stride_h == 1 && c.stride_w == 1 && c.dilation_h == 1 && c.dilation_w == 1;
  if (pointwise && unstrided && c.n < 16) return ConvPath::native;
  if (c.n == 1 && !(c.r > 3 && c.s > 3) && c.c * c.h * c.w <= kNativeConvMaxInput) return ConvPath::native;
  return pointwise ? ConvPath::pointwise : ConvPath::direct;
}

std::array<double, kDirectConvParameters> log_parameters(const DirectConv& m) {
  std::array<double, kDirectConvParameters> p{};
  for (int i = 0; i < kConvPaths; ++i) {
    p[i] = std::log(m.rate[i]);
    p[7 + i] = std::log(m.input_bandwidth[i]);
    p[12 + i] = std::log(m.output_bandwidth[i]);
    p[20 + i] = m.stride_exponent[i];
  }
  p[4] = m.input_fill_exponent;
  p[5] = m.output_fill_exponent;
  p[6] = m.window_exponent;
  p[11] = std::log(m.weight_bandwidth);
  p[16] = std::log(m.call_overhead_s);
  p[17] = std::log(m.large_bytes);
  p[18] = std::log(std::max(m.large_slowdown - 1, 1e-12));
  p[19] = m.narrow_input_fill_exponent;
  p[24] = std::log(m.large_weight_bytes);
  p[25] = std::log(std::max(m.large_weight_slowdown - 1, 1e-12));
  p[26] = m.depthwise_window_exponent;
  return p;
}

DirectConv with_log_parameters(DirectConv m, const double* p) {
  for (int i = 0; i < kConvPaths; ++i) {
    m.rate[i] = std::exp(p[i]);
    m.input_bandwidth[i] = std::exp(p[7 + i]);
    m.output_bandwidth[i] = std::exp(p[12 + i]);
    m.stride_exponent[i] = p[20 + i];
  }
  m.input_fill_exponent = p[4];
  m.output_fill_exponent = p[5];
  m.window_exponent = p[6];
  m.weight_bandwidth = std::exp(p[11]);
  m.call_overhead_s = std::exp(p[16]);
  m.large_bytes = std::exp(p[17]);
  m.large_slowdown = 1 + std::exp(p[18]);
  m.narrow_input_fill_exponent = p[19];
  m.large_weight_bytes = std::exp(p[24]);
  m.large_weight_slowdown = 1 + std::exp(p[25]);
  m.depthwise_window_exponent = p[26];
  return m;
}

double DirectConv::seconds(const ConvShape& c, double element_bytes, double* parts) const {
  const auto p = log_parameters(*this);
  return direct_conv_seconds(c, conv_path(c), lanes, element_bytes, p.data(), parts);
}

}  // namespace dnnperf
