#include "microbench/shapes/shape_sets.h"

#include <algorithm>
#include <map>
#include <string>
#include <set>

#include <catch2/catch.hpp>

#include "core/common/error.h"

using namespace dnnperf;
using namespace dnnperf::bench;

TEST_CASE("A network's shape set holds its GEMMs and convolutions in all phases, once each", "[shapes]") {
  const ShapeSet s = shape_set("zoo:resnet18", 16);
  CHECK(s.gemms.size() == 3);  // the classifier: forward, data and weight gradients
  std::set<int> phases;
  for (const ConvCase& c : s.convs) phases.insert(static_cast<int>(c.phase));
  CHECK(phases.size() == 3);
  CHECK(s.convs.size() < 3 * 20);  // ResNet-18's repeated layers appear once
  for (const ConvCase& c : s.convs) CHECK(c.shape.n == 16);
}

TEST_CASE("DeepBench-style and sampled sets are fixed by their spec", "[shapes]") {
  CHECK(shape_set("deepbench").gemms.size() >= 40);
  CHECK(shape_set("deepbench").convs.size() >= 60);
  const ShapeSet a = shape_set("sample:50:7"), b = shape_set("sample:50:7"), c = shape_set("sample:50:8");
  REQUIRE(a.gemms.size() == 50);
  CHECK(a.gemms[17].m == b.gemms[17].m);
  CHECK(a.convs[33].shape.c == b.convs[33].shape.c);
  bool differ = false;
  for (std::size_t i = 0; i < 50; ++i) differ = differ || a.gemms[i].k != c.gemms[i].k;
  CHECK(differ);
  // Free shapes span 16-8192 per dimension; fully connected layers' GEMMs have one dimension (the
  // batch rows) from 1, the others up to 16384, and stay under 2^34 multiply-adds.
  int skinny = 0;
  for (const GemmShape& g : a.gemms) {
    CHECK((g.m >= 1 && g.n >= 1 && g.k >= 1 && g.m <= 16384 && g.n <= 16384 && g.k <= 16384));
    CHECK(g.m * g.n * g.k <= (std::int64_t{1} << 34));
    skinny += std::min({g.m, g.n, g.k}) < 16;
  }
  CHECK(skinny > 0);
  for (const ConvCase& cv : a.convs) CHECK((cv.shape.p > 0 && cv.shape.q > 0 && cv.shape.c % cv.shape.groups == 0));
}

TEST_CASE("A GFLOP cap keeps every sampled kernel under it without losing any", "[shapes]") {
  const ShapeSet capped = shape_set("sample:200:3:2"), free = shape_set("sample:200:3");
  REQUIRE(capped.gemms.size() == 200);
  REQUIRE(capped.convs.size() == 200);
  CHECK(capped.name == "sample:200:3:2");
  const auto conv_flops = [](const ConvShape& s) { return 2.0 * double(s.n * s.k * (s.c / s.groups) * s.r * s.s) * double(s.p * s.q); };
  int over = 0, small_images = 0;
  for (const GemmShape& g : capped.gemms) CHECK(2.0 * double(g.m * g.n) * double(g.k * g.batch) <= 2e9);
  for (const ConvCase& c : capped.convs) {
    CHECK(conv_flops(c.shape) <= 2e9);
    CHECK(c.shape.n >= 1);
    small_images += c.shape.h < 7;
  }
  for (const ConvCase& c : free.convs) over += conv_flops(c.shape) > 2e9;
  CHECK(over > 0);          // without the cap the same draw holds kernels above it
  CHECK(small_images > 0);  // images below 7x7, as in CNNs' last stages at small inputs
  CHECK_THROWS_WITH(shape_set("sample:10:1:0"), Catch::Contains("the GFLOP cap must be a positive integer"));
}

TEST_CASE("The depthwise set draws only depthwise convolutions, all three directions, under its cap", "[shapes]") {
  const ShapeSet d = shape_set("depthwise:120:5:2");
  REQUIRE(d.convs.size() == 120);
  CHECK(d.gemms.empty());
  CHECK(d.name == "depthwise:120:5:2");
  int phases[3] = {0, 0, 0}, strided = 0;
  for (const ConvCase& c : d.convs) {
    CHECK((c.shape.groups == c.shape.c && c.shape.k == c.shape.c && c.shape.groups > 1));
    CHECK(2.0 * double(c.shape.n * c.shape.k * c.shape.r * c.shape.s) * double(c.shape.p * c.shape.q) <= 2e9);
    ++phases[static_cast<int>(c.phase)];
    strided += c.shape.stride_h == 2;
  }
  CHECK((phases[0] > 0 && phases[1] > 0 && phases[2] > 0));
  CHECK(strided > 0);
  CHECK(shape_set("depthwise:120:5:2").convs.front().shape.c == d.convs.front().shape.c);  // the same for the same seed
  CHECK_THROWS_WITH(shape_set("depthwise:0"), Catch::Contains("the count must be a positive integer"));
}

TEST_CASE("The CNN set draws dense layers whose channels and image sizes go together, under its cap", "[shapes]") {
  const ShapeSet s = shape_set("cnn:200:4:2");
  REQUIRE(s.convs.size() == 200);
  CHECK(s.gemms.empty());
  CHECK(s.name == "cnn:200:4:2");
  int phases[3] = {0, 0, 0}, small_deep = 0, large_shallow = 0;
  for (const ConvCase& c : s.convs) {
    const ConvShape& x = c.shape;
    CHECK(x.groups == 1);
    CHECK(2.0 * double(x.n * x.k * x.c * x.r * x.s) * double(x.p * x.q) <= 2e9);
    CHECK((4 * x.k >= x.c && x.k <= 4 * x.c));  // outputs a quarter to four times the inputs (at least 8)
    // An image's activations stay within 2K-800K values, but for the 2x2 floor of deep layers.
    CHECK(double(x.c * x.h * x.w) <= 1.1 * 800000);
    CHECK((double(x.c * x.h * x.w) >= 0.5 * 2048 || x.h == 2));
    ++phases[static_cast<int>(c.phase)];
    small_deep += x.h <= 4 && x.c >= 256;
    large_shallow += x.h >= 32 && x.c <= 64;
  }
  CHECK((phases[0] > 0 && phases[1] > 0 && phases[2] > 0));
  CHECK(small_deep > 0);  // late stages: small images, many channels
  CHECK(large_shallow > 0);
  CHECK(shape_set("cnn:200:4:2").convs.back().shape.h == s.convs.back().shape.h);  // the same for the same seed
  CHECK_THROWS_WITH(shape_set("cnn:-3"), Catch::Contains("the count must be a positive integer"));
}

TEST_CASE("The late-stage set draws small images under many channels, mostly 1x1, in every direction", "[shapes]") {
  const ShapeSet s = shape_set("late:60:1:2");
  REQUIRE(s.convs.size() == 60);
  CHECK(s.gemms.empty());
  CHECK(s.name == "late:60:1:2");
  int phases[3] = {0, 0, 0}, pointwise = 0, depthwise = 0, native_input_gradients = 0;
  for (const ConvCase& c : s.convs) {
    const ConvShape& x = c.shape;
    CHECK((x.h >= 2 && x.h <= 8 && x.w == x.h));
    CHECK(x.c >= 64);
    CHECK((x.p == x.h && x.q == x.w));  // "same" padding, stride 1
    CHECK(x.k % 8 == 0);
    CHECK(2.0 * double(x.n * x.k * (x.c / x.groups) * x.r * x.s) * double(x.p * x.q) <= 2e9);
    ++phases[static_cast<int>(c.phase)];
    const bool is_pointwise = x.r == 1 && x.groups == 1;
    pointwise += is_pointwise;
    depthwise += x.groups == x.c && x.k == x.c && x.r == 3;
    // What the set is for: 1x1 input gradients at batches PyTorch's CPU backend runs per image.
    native_input_gradients += is_pointwise && x.n < 16 && c.phase == Phase::backward_data;
  }
  CHECK((phases[0] > 0 && phases[1] > 0 && phases[2] > 0));
  CHECK(pointwise > 30);
  CHECK(depthwise > 0);
  CHECK(native_input_gradients >= 5);
  CHECK(shape_set("late:60:1:2").convs.back().shape.c == s.convs.back().shape.c);  // the same for the same seed
  CHECK(shape_set("late:60:2:2").convs.front().shape.c != s.convs.front().shape.c);
  CHECK_THROWS_WITH(shape_set("late:x"), Catch::Contains("the count must be a positive integer"));
}

TEST_CASE("The wide set draws GEMMs whose output is what they write", "[shapes]") {
  const ShapeSet s = shape_set("wide:24:3");
  REQUIRE(s.gemms.size() == 24);
  CHECK(s.convs.empty());
  CHECK(s.name == "wide:24:3");
  int transposed = 0;
  for (const GemmShape& g : s.gemms) {
    const double output_mb = 4e-6 * static_cast<double>(g.m * g.n);
    CHECK(output_mb >= 39);  // 1e7-1e8 f32 values, less n's rounding down
    CHECK(output_mb <= 400);
    CHECK((g.k >= 1 && g.k <= 16));
    transposed += g.trans_a;
  }
  CHECK(transposed > 8);  // weight gradients mostly
  CHECK(shape_set("wide:24:3").gemms.back().m == s.gemms.back().m);  // the same for the same seed
  CHECK(shape_set("wide:24:4").gemms.back().m != s.gemms.back().m);
  CHECK_THROWS_WITH(shape_set("wide:0"), Catch::Contains("the count must be a positive integer"));
}

TEST_CASE("The skinny set draws few rows against a large matrix, both ways a layer reads it", "[shapes]") {
  const ShapeSet s = shape_set("skinny:24:3");
  REQUIRE(s.gemms.size() == 24);
  CHECK(s.convs.empty());
  CHECK(s.name == "skinny:24:3");
  int transposed = 0, round_rows = 0;
  for (const GemmShape& g : s.gemms) {
    round_rows += (g.trans_b ? g.k : g.n) % 256 == 0;  // B's stored rows a whole number of KiB
    const double matrix_mb = 4e-6 * static_cast<double>(g.n * g.k);
    CHECK(matrix_mb >= 39);  // 1e7-1e8 f32 values, less k's rounding down
    CHECK(matrix_mb <= 400);
    CHECK((g.m >= 1 && g.m <= 16));
    CHECK_FALSE(g.trans_a);
    transposed += g.trans_b;
  }
  CHECK(transposed > 4);   // forward passes
  CHECK(transposed < 20);  // and input gradients
  CHECK(round_rows > 6);   // round widths, as real layers have
  CHECK(round_rows < 18);  // and random ones
  CHECK(shape_set("skinny:24:3").gemms.back().n == s.gemms.back().n);  // the same for the same seed
  CHECK_THROWS_WITH(shape_set("skinny:x"), Catch::Contains("the count must be a positive integer"));
}

TEST_CASE("Bad shape-set specs are reported", "[shapes][errors]") {
  CHECK_THROWS_WITH(shape_set("imagenet"), Catch::Contains("unknown shape set 'imagenet'"));
  CHECK_THROWS_WITH(shape_set("sample:x"), Catch::Contains("the count must be a positive integer"));
  CHECK_THROWS_WITH(shape_set("zoo:resnet5"), Catch::Contains("unknown network"));
}

TEST_CASE("The anchors are twenty distinct kernels of each class from the default calibration's sample", "[shapes]") {
  const ShapeSet a = shape_set("anchors:2"), sample = shape_set("sample:600:1:2");
  CHECK(a.name == "anchors:2");
  const nlohmann::json anchors = shape_set_json(a), all = shape_set_json(sample);
  REQUIRE(anchors.size() == 4 * kAnchorsPerClass);
  std::map<std::string, int> per_op;
  std::set<std::string> distinct;
  for (const auto& k : anchors) {
    ++per_op[k["op"].get<std::string>()];
    distinct.insert(k.dump());
    CHECK(std::find(all.begin(), all.end(), k) != all.end());  // a default calibration times them anyway
  }
  CHECK(distinct.size() == anchors.size());
  CHECK(per_op == std::map<std::string, int>{{"gemm", kAnchorsPerClass}, {"conv_forward", kAnchorsPerClass},
                                             {"conv_backward_data", kAnchorsPerClass}, {"conv_backward_filter", kAnchorsPerClass}});
  CHECK(shape_set_json(shape_set("anchors:200")) != anchors);  // a GPU's calibration draws under another cap
  CHECK_THROWS_WITH(shape_set("anchors:x"), Catch::Contains("the GFLOP cap must be a positive integer"));
}
