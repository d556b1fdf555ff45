// ResNet-18/34/50/101/152 (He et al. 2016) as torchvision builds them (resnet.py): the stride of a
// bottleneck sits on its 3x3 convolution ("ResNet v1.5"), which is what torchvision counts.
#include "networks/zoo/zoo_builders.h"

namespace dnnperf::zoo {
namespace {

int conv_bn(NetworkBuilder& b, int x, const ConvSpec& spec, const std::string& conv, const std::string& bn) {
  return b.batch_norm(b.conv2d(x, spec, conv), bn);
}

int basic_block(NetworkBuilder& b, int x, std::int64_t planes, std::int64_t stride) {
  const std::int64_t in = b.shape(x)[1];
  int y = b.relu(conv_bn(b, x, {.out = planes, .kernel = {3, 3}, .stride = {stride, stride}, .padding = {1, 1}, .bias = false}, "conv1", "bn1"), "relu1");
  y = conv_bn(b, y, {.out = planes, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "conv2", "bn2");
  int shortcut = x;
  if (stride != 1 || in != planes)
    shortcut = conv_bn(b, x, {.out = planes, .stride = {stride, stride}, .bias = false}, "downsample.0", "downsample.1");
  return b.relu(b.add(y, shortcut, "add"), "relu2");
}

int bottleneck(NetworkBuilder& b, int x, std::int64_t planes, std::int64_t stride) {
  const std::int64_t in = b.shape(x)[1], out = planes * 4;
  int y = b.relu(conv_bn(b, x, {.out = planes, .bias = false}, "conv1", "bn1"), "relu1");
  y = b.relu(conv_bn(b, y, {.out = planes, .kernel = {3, 3}, .stride = {stride, stride}, .padding = {1, 1}, .bias = false}, "conv2", "bn2"), "relu2");
  y = conv_bn(b, y, {.out = out, .bias = false}, "conv3", "bn3");
  int shortcut = x;
  if (stride != 1 || in != out)
    shortcut = conv_bn(b, x, {.out = out, .stride = {stride, stride}, .bias = false}, "downsample.0", "downsample.1");
  return b.relu(b.add(y, shortcut, "add"), "relu3");
}

}  // namespace

Graph resnet(int depth, const NetworkOptions& o) {
  std::array<int, 4> blocks{};
  bool use_bottleneck = depth >= 50;
  switch (depth) {
    case 18: blocks = {2, 2, 2, 2}; break;
    case 34: case 50: blocks = {3, 4, 6, 3}; break;
    case 101: blocks = {3, 4, 23, 3}; break;
    default: blocks = {3, 8, 36, 3}; break;
  }
  NetworkBuilder b("resnet" + std::to_string(depth));
  const auto [h, w] = image_size(o, 224);
  int x = b.input("image", {o.batch, 3, h, w});
  x = b.relu(conv_bn(b, x, {.out = 64, .kernel = {7, 7}, .stride = {2, 2}, .padding = {3, 3}, .bias = false}, "conv1", "bn1"), "relu");
  x = b.max_pool(x, 3, 2, 1, "maxpool");
  for (int stage = 0; stage < 4; ++stage) {
    const std::int64_t planes = 64LL << stage;
    for (int i = 0; i < blocks[static_cast<std::size_t>(stage)]; ++i) {
      auto s = b.scope("layer" + std::to_string(stage + 1) + "." + std::to_string(i));
      const std::int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      x = use_bottleneck ? bottleneck(b, x, planes, stride) : basic_block(b, x, planes, stride);
    }
  }
  x = b.flatten(b.adaptive_avg_pool(x, 1, 1, "avgpool"), 1, "flatten");
  finish_classifier(b, b.linear(x, 1000, "fc"), o);
  return std::move(b).finish();
}

}  // namespace dnnperf::zoo
