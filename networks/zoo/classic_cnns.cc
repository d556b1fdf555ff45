// LeNet-5, AlexNet and VGG, as torchvision defines the latter two (torchvision/models/alexnet.py,
// vgg.py), so that parameter counts match torchvision exactly.
#include "networks/zoo/zoo_builders.h"

namespace dnnperf::zoo {

Graph lenet5(const NetworkOptions& o) {
  // LeCun et al. 1998: 32x32 grey input, tanh units, 2x2 subsampling; 61,706 parameters.
  NetworkBuilder b("lenet5");
  const auto [h, w] = image_size(o, 32);
  int x = b.input("image", {o.batch, 1, h, w});
  x = b.conv2d(x, {.out = 6, .kernel = {5, 5}}, "conv1");
  x = b.unary(OpKind::tanh, x, "tanh1");
  x = b.avg_pool(x, 2, 2, 0, "pool1");
  x = b.conv2d(x, {.out = 16, .kernel = {5, 5}}, "conv2");
  x = b.unary(OpKind::tanh, x, "tanh2");
  x = b.avg_pool(x, 2, 2, 0, "pool2");
  x = b.flatten(x, 1, "flatten");
  x = b.unary(OpKind::tanh, b.linear(x, 120, "fc1"), "tanh3");
  x = b.unary(OpKind::tanh, b.linear(x, 84, "fc2"), "tanh4");
  finish_classifier(b, b.linear(x, 10, "fc3"), o);
  return std::move(b).finish();
}

Graph alexnet(const NetworkOptions& o) {
  NetworkBuilder b("alexnet");
  const auto [h, w] = image_size(o, 224);
  int x = b.input("image", {o.batch, 3, h, w});
  {
    auto s = b.scope("features");
    x = b.relu(b.conv2d(x, {.out = 64, .kernel = {11, 11}, .stride = {4, 4}, .padding = {2, 2}}, "0"), "1");
    x = b.max_pool(x, 3, 2, 0, "2");
    x = b.relu(b.conv2d(x, {.out = 192, .kernel = {5, 5}, .padding = {2, 2}}, "3"), "4");
    x = b.max_pool(x, 3, 2, 0, "5");
    x = b.relu(b.conv2d(x, {.out = 384, .kernel = {3, 3}, .padding = {1, 1}}, "6"), "7");
    x = b.relu(b.conv2d(x, {.out = 256, .kernel = {3, 3}, .padding = {1, 1}}, "8"), "9");
    x = b.relu(b.conv2d(x, {.out = 256, .kernel = {3, 3}, .padding = {1, 1}}, "10"), "11");
    x = b.max_pool(x, 3, 2, 0, "12");
  }
  x = b.flatten(b.adaptive_avg_pool(x, 6, 6, "avgpool"), 1, "flatten");
  auto s = b.scope("classifier");
  x = b.dropout(x, 0.5, "0");
  x = b.relu(b.linear(x, 4096, "1"), "2");
  x = b.dropout(x, 0.5, "3");
  x = b.relu(b.linear(x, 4096, "4"), "5");
  finish_classifier(b, b.linear(x, 1000, "6"), o);
  return std::move(b).finish();
}

Graph vgg(int depth, const NetworkOptions& o) {
  // Simonyan & Zisserman 2015, configurations A (11), D (16) and E (19); 0 marks a max-pool.
  static const std::vector<int> kA = {64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0};
  static const std::vector<int> kD = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
  static const std::vector<int> kE = {64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0,
                                      512, 512, 512, 512, 0, 512, 512, 512, 512, 0};
  const std::vector<int>& cfg = depth == 11 ? kA : depth == 16 ? kD : kE;
  NetworkBuilder b("vgg" + std::to_string(depth));
  const auto [h, w] = image_size(o, 224);
  int x = b.input("image", {o.batch, 3, h, w});
  {
    auto s = b.scope("features");
    int index = 0;
    for (int channels : cfg) {
      if (channels == 0) {
        x = b.max_pool(x, 2, 2, 0, std::to_string(index++));
        continue;
      }
      x = b.conv2d(x, {.out = channels, .kernel = {3, 3}, .padding = {1, 1}}, std::to_string(index++));
      x = b.relu(x, std::to_string(index++));
    }
  }
  x = b.flatten(b.adaptive_avg_pool(x, 7, 7, "avgpool"), 1, "flatten");
  auto s = b.scope("classifier");
  x = b.dropout(b.relu(b.linear(x, 4096, "0"), "1"), 0.5, "2");
  x = b.dropout(b.relu(b.linear(x, 4096, "3"), "4"), 0.5, "5");
  finish_classifier(b, b.linear(x, 1000, "6"), o);
  return std::move(b).finish();
}

}  // namespace dnnperf::zoo
