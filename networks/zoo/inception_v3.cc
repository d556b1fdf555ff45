// Inception-v3 (Szegedy et al. 2016) as torchvision builds it (inception.py): every convolution is a
// BasicConv2d (convolution without bias, BatchNorm with eps 0.001, ReLU). 27,161,264 parameters
// with the auxiliary classifier, 23,834,568 without.
#include "networks/zoo/zoo_builders.h"

namespace dnnperf::zoo {
namespace {

using Pair = std::array<std::int64_t, 2>;

int basic_conv(NetworkBuilder& b, int x, std::int64_t out, Pair kernel, const std::string& name,
               Pair stride = {1, 1}, Pair padding = {0, 0}) {
  auto s = b.scope(name);
  x = b.conv2d(x, {.out = out, .kernel = kernel, .stride = stride, .padding = padding, .bias = false}, "conv");
  return b.relu(b.batch_norm(x, "bn", 0.001), "relu");
}

int pool_branch(NetworkBuilder& b, int x, std::int64_t out) {
  return basic_conv(b, b.avg_pool(x, 3, 1, 1, "avg_pool"), out, {1, 1}, "branch_pool");
}

int inception_a(NetworkBuilder& b, int x, std::int64_t pool_features) {
  const int b1 = basic_conv(b, x, 64, {1, 1}, "branch1x1");
  int b5 = basic_conv(b, x, 48, {1, 1}, "branch5x5_1");
  b5 = basic_conv(b, b5, 64, {5, 5}, "branch5x5_2", {1, 1}, {2, 2});
  int b3 = basic_conv(b, x, 64, {1, 1}, "branch3x3dbl_1");
  b3 = basic_conv(b, b3, 96, {3, 3}, "branch3x3dbl_2", {1, 1}, {1, 1});
  b3 = basic_conv(b, b3, 96, {3, 3}, "branch3x3dbl_3", {1, 1}, {1, 1});
  return b.concat({b1, b5, b3, pool_branch(b, x, pool_features)}, 1, "concat");
}

int inception_b(NetworkBuilder& b, int x) {
  const int b3 = basic_conv(b, x, 384, {3, 3}, "branch3x3", {2, 2});
  int bd = basic_conv(b, x, 64, {1, 1}, "branch3x3dbl_1");
  bd = basic_conv(b, bd, 96, {3, 3}, "branch3x3dbl_2", {1, 1}, {1, 1});
  bd = basic_conv(b, bd, 96, {3, 3}, "branch3x3dbl_3", {2, 2});
  return b.concat({b3, bd, b.max_pool(x, 3, 2, 0, "max_pool")}, 1, "concat");
}

int inception_c(NetworkBuilder& b, int x, std::int64_t c7) {
  const int b1 = basic_conv(b, x, 192, {1, 1}, "branch1x1");
  int b7 = basic_conv(b, x, c7, {1, 1}, "branch7x7_1");
  b7 = basic_conv(b, b7, c7, {1, 7}, "branch7x7_2", {1, 1}, {0, 3});
  b7 = basic_conv(b, b7, 192, {7, 1}, "branch7x7_3", {1, 1}, {3, 0});
  int bd = basic_conv(b, x, c7, {1, 1}, "branch7x7dbl_1");
  bd = basic_conv(b, bd, c7, {7, 1}, "branch7x7dbl_2", {1, 1}, {3, 0});
  bd = basic_conv(b, bd, c7, {1, 7}, "branch7x7dbl_3", {1, 1}, {0, 3});
  bd = basic_conv(b, bd, c7, {7, 1}, "branch7x7dbl_4", {1, 1}, {3, 0});
  bd = basic_conv(b, bd, 192, {1, 7}, "branch7x7dbl_5", {1, 1}, {0, 3});
  return b.concat({b1, b7, bd, pool_branch(b, x, 192)}, 1, "concat");
}

int inception_d(NetworkBuilder& b, int x) {
  int b3 = basic_conv(b, x, 192, {1, 1}, "branch3x3_1");
  b3 = basic_conv(b, b3, 320, {3, 3}, "branch3x3_2", {2, 2});
  int b7 = basic_conv(b, x, 192, {1, 1}, "branch7x7x3_1");
  b7 = basic_conv(b, b7, 192, {1, 7}, "branch7x7x3_2", {1, 1}, {0, 3});
  b7 = basic_conv(b, b7, 192, {7, 1}, "branch7x7x3_3", {1, 1}, {3, 0});
  b7 = basic_conv(b, b7, 192, {3, 3}, "branch7x7x3_4", {2, 2});
  return b.concat({b3, b7, b.max_pool(x, 3, 2, 0, "max_pool")}, 1, "concat");
}

int inception_e(NetworkBuilder& b, int x) {
  const int b1 = basic_conv(b, x, 320, {1, 1}, "branch1x1");
  const int b3 = basic_conv(b, x, 384, {1, 1}, "branch3x3_1");
  const int b3a = basic_conv(b, b3, 384, {1, 3}, "branch3x3_2a", {1, 1}, {0, 1});
  const int b3b = basic_conv(b, b3, 384, {3, 1}, "branch3x3_2b", {1, 1}, {1, 0});
  const int b3cat = b.concat({b3a, b3b}, 1, "branch3x3_cat");
  int bd = basic_conv(b, x, 448, {1, 1}, "branch3x3dbl_1");
  bd = basic_conv(b, bd, 384, {3, 3}, "branch3x3dbl_2", {1, 1}, {1, 1});
  const int bda = basic_conv(b, bd, 384, {1, 3}, "branch3x3dbl_3a", {1, 1}, {0, 1});
  const int bdb = basic_conv(b, bd, 384, {3, 1}, "branch3x3dbl_3b", {1, 1}, {1, 0});
  const int bdcat = b.concat({bda, bdb}, 1, "branch3x3dbl_cat");
  return b.concat({b1, b3cat, bdcat, pool_branch(b, x, 192)}, 1, "concat");
}

int aux_logits(NetworkBuilder& b, int x) {
  auto s = b.scope("AuxLogits");
  x = b.avg_pool(x, 5, 3, 0, "avg_pool");
  x = basic_conv(b, x, 128, {1, 1}, "conv0");
  x = basic_conv(b, x, 768, {5, 5}, "conv1");
  x = b.flatten(b.adaptive_avg_pool(x, 1, 1, "adaptive_avg_pool"), 1, "flatten");
  return b.linear(x, 1000, "fc");
}

}  // namespace

Graph inception_v3(bool with_aux, const NetworkOptions& o) {
  NetworkBuilder b(with_aux ? "inception_v3" : "inception_v3_noaux");
  const auto [h, w] = image_size(o, 299);
  int x = b.input("image", {o.batch, 3, h, w});
  x = basic_conv(b, x, 32, {3, 3}, "Conv2d_1a_3x3", {2, 2});
  x = basic_conv(b, x, 32, {3, 3}, "Conv2d_2a_3x3");
  x = basic_conv(b, x, 64, {3, 3}, "Conv2d_2b_3x3", {1, 1}, {1, 1});
  x = b.max_pool(x, 3, 2, 0, "maxpool1");
  x = basic_conv(b, x, 80, {1, 1}, "Conv2d_3b_1x1");
  x = basic_conv(b, x, 192, {3, 3}, "Conv2d_4a_3x3");
  x = b.max_pool(x, 3, 2, 0, "maxpool2");
  const auto block = [&](const char* name, auto&& make) {
    auto s = b.scope(name);
    x = make();
  };
  block("Mixed_5b", [&] { return inception_a(b, x, 32); });
  block("Mixed_5c", [&] { return inception_a(b, x, 64); });
  block("Mixed_5d", [&] { return inception_a(b, x, 64); });
  block("Mixed_6a", [&] { return inception_b(b, x); });
  block("Mixed_6b", [&] { return inception_c(b, x, 128); });
  block("Mixed_6c", [&] { return inception_c(b, x, 160); });
  block("Mixed_6d", [&] { return inception_c(b, x, 160); });
  block("Mixed_6e", [&] { return inception_c(b, x, 192); });
  const int aux = with_aux ? aux_logits(b, x) : -1;
  block("Mixed_7a", [&] { return inception_d(b, x); });
  block("Mixed_7b", [&] { return inception_e(b, x); });
  block("Mixed_7c", [&] { return inception_e(b, x); });
  x = b.flatten(b.adaptive_avg_pool(x, 1, 1, "avgpool"), 1, "flatten");
  x = b.linear(b.dropout(x, 0.5, "dropout"), 1000, "fc");
  if (aux >= 0 && o.with_loss) {
    // torchvision trains with loss = main + 0.4 * aux; the weighting is free, the second loss is not.
    const int labels = b.input("aux_labels", {o.batch}, DType::i64);
    b.cross_entropy(aux, labels, "aux_loss");
  }
  finish_classifier(b, x, o);
  return std::move(b).finish();
}

}  // namespace dnnperf::zoo
