#include "microbench/shapes/shape_sets.h"

#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "predictor/common/error.h"

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

TEST_CASE("Bad shape-set specs are reported", "[shapes][errors]") {
  CHECK_THROWS_WITH(shape_set("imagenet"), Catch::Contains("unknown shape set 'imagenet'"));
  CHECK_THROWS_WITH(shape_set("sample:x"), Catch::Contains("the count must be a positive integer"));
  CHECK_THROWS_WITH(shape_set("zoo:resnet5"), Catch::Contains("unknown network"));
}
