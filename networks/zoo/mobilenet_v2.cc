// MobileNetV2 (Sandler et al. 2018) as torchvision builds it (mobilenetv2.py, width 1.0):
// 3,504,872 parameters.
#include "networks/zoo/zoo_builders.h"

namespace dnnperf::zoo {
namespace {

int conv_bn_relu6(NetworkBuilder& b, int x, const ConvSpec& spec, const std::string& name) {
  auto s = b.scope(name);
  x = b.batch_norm(b.conv2d(x, spec, "0"), "1");
  return b.unary(OpKind::relu6, x, "2");
}

int inverted_residual(NetworkBuilder& b, int x, std::int64_t out, std::int64_t stride, std::int64_t expand) {
  const std::int64_t in = b.shape(x)[1], hidden = in * expand;
  auto s = b.scope("conv");
  int y = x;
  int index = 0;
  if (expand != 1) y = conv_bn_relu6(b, y, {.out = hidden, .bias = false}, std::to_string(index++));
  y = conv_bn_relu6(b, y, {.out = hidden, .kernel = {3, 3}, .stride = {stride, stride}, .padding = {1, 1}, .groups = hidden, .bias = false},
                    std::to_string(index++));
  y = b.conv2d(y, {.out = out, .bias = false}, std::to_string(index++));
  y = b.batch_norm(y, std::to_string(index++));
  return stride == 1 && in == out ? b.add(x, y, "add") : y;
}

}  // namespace

Graph mobilenet_v2(const NetworkOptions& o) {
  // (expansion t, output channels c, repeats n, first stride s), Table 2 of the paper.
  static constexpr std::array<std::array<std::int64_t, 4>, 7> kSettings{{
      {1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}}};
  NetworkBuilder b("mobilenet_v2");
  const auto [h, w] = image_size(o, 224);
  int x = b.input("image", {o.batch, 3, h, w});
  int index = 0;
  {
    auto s = b.scope("features");
    x = conv_bn_relu6(b, x, {.out = 32, .kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}, .bias = false}, std::to_string(index++));
    for (const auto& [t, c, n, stride] : kSettings)
      for (std::int64_t i = 0; i < n; ++i) {
        auto block = b.scope(std::to_string(index++));
        x = inverted_residual(b, x, c, i == 0 ? stride : 1, t);
      }
    x = conv_bn_relu6(b, x, {.out = 1280, .bias = false}, std::to_string(index++));
  }
  x = b.flatten(b.adaptive_avg_pool(x, 1, 1, "avgpool"), 1, "flatten");
  x = b.dropout(x, 0.2, "classifier.0");
  finish_classifier(b, b.linear(x, 1000, "classifier.1"), o);
  return std::move(b).finish();
}

}  // namespace dnnperf::zoo
