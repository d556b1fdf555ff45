// DenseNet-121 (Huang et al. 2017) as torchvision builds it (densenet.py): growth rate 32, blocks
// of 6, 12, 24 and 16 layers, bottleneck width 4 x growth, compression 0.5; 7,978,856 parameters.
// Each dense layer concatenates all earlier feature maps, as torchvision's forward does, so the
// concatenation traffic that dominates DenseNet's memory time is priced.
#include "networks/zoo/zoo_builders.h"

namespace dnnperf::zoo {

Graph densenet121(const NetworkOptions& o) {
  constexpr std::int64_t kGrowth = 32, kBottleneck = 4;
  constexpr std::array<int, 4> kBlocks{6, 12, 24, 16};
  NetworkBuilder b("densenet121");
  const auto [h, w] = image_size(o, 224);
  int x = b.input("image", {o.batch, 3, h, w});
  auto features = b.scope("features");
  x = b.conv2d(x, {.out = 64, .kernel = {7, 7}, .stride = {2, 2}, .padding = {3, 3}, .bias = false}, "conv0");
  x = b.relu(b.batch_norm(x, "norm0"), "relu0");
  x = b.max_pool(x, 3, 2, 1, "pool0");
  for (std::size_t block = 0; block < kBlocks.size(); ++block) {
    std::vector<int> maps{x};
    {
      auto s = b.scope("denseblock" + std::to_string(block + 1));
      for (int layer = 0; layer < kBlocks[block]; ++layer) {
        auto l = b.scope("denselayer" + std::to_string(layer + 1));
        int y = maps.size() == 1 ? maps[0] : b.concat(maps, 1, "cat");
        y = b.relu(b.batch_norm(y, "norm1"), "relu1");
        y = b.conv2d(y, {.out = kBottleneck * kGrowth, .bias = false}, "conv1");
        y = b.relu(b.batch_norm(y, "norm2"), "relu2");
        y = b.conv2d(y, {.out = kGrowth, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "conv2");
        maps.push_back(y);
      }
      x = b.concat(maps, 1, "cat");
    }
    if (block + 1 == kBlocks.size()) break;
    auto t = b.scope("transition" + std::to_string(block + 1));
    x = b.relu(b.batch_norm(x, "norm"), "relu");
    x = b.conv2d(x, {.out = b.shape(x)[1] / 2, .bias = false}, "conv");
    x = b.avg_pool(x, 2, 2, 0, "pool");
  }
  x = b.relu(b.batch_norm(x, "norm5"), "relu5");
  x = b.flatten(b.adaptive_avg_pool(x, 1, 1, "avgpool"), 1, "flatten");
  finish_classifier(b, b.linear(x, 1000, "classifier"), o);
  return std::move(b).finish();
}

}  // namespace dnnperf::zoo
