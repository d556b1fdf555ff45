#include "core/graph/shape_inference.h"

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/graph/network_builder.h"

using namespace dnnperf;

TEST_CASE("Convolution output size follows the sliding-window formula", "[graph]") {
  NetworkBuilder b("t");
  const int x = b.input("x", {2, 3, 224, 224});
  CHECK(b.shape(b.conv2d(x, {.out = 64, .kernel = {7, 7}, .stride = {2, 2}, .padding = {3, 3}}, "c1")) == TensorShape{2, 64, 112, 112});
  CHECK(b.shape(b.conv2d(x, {.out = 8, .kernel = {3, 3}, .padding = {2, 2}, .dilation = {2, 2}}, "c2")) == TensorShape{2, 8, 224, 224});
  CHECK(b.shape(b.conv2d(x, {.out = 6, .kernel = {1, 7}, .padding = {0, 3}, .groups = 3}, "c3")) == TensorShape{2, 6, 224, 224});
}

TEST_CASE("Pooling honours PyTorch's ceil_mode rule", "[graph]") {
  CHECK(window_output_size(112, 3, 2, 1, 1, 1, false) == 56);
  CHECK(window_output_size(147, 3, 2, 0, 0, 1, false) == 73);
  CHECK(window_output_size(112, 3, 2, 0, 0, 1, true) == 56);  // floor would give 55
  // The last window would start in the trailing padding only: PyTorch drops it.
  CHECK(window_output_size(5, 2, 2, 1, 1, 1, true) == 3);
}

TEST_CASE("Broadcasting follows numpy", "[graph]") {
  CHECK(broadcast_shapes({8, 1, 5}, {4, 1}) == TensorShape{8, 4, 5});
  CHECK(broadcast_shapes({}, {3}) == TensorShape{3});
  CHECK_THROWS_WITH(broadcast_shapes({3}, {4}), Catch::Contains("do not broadcast"));
}

TEST_CASE("Inconsistent shapes are reported with the op's name", "[graph][errors]") {
  NetworkBuilder b("t");
  const int x = b.input("x", {2, 3, 8, 8});
  const int v = b.input("v", {2, 10});
  CHECK_THROWS_WITH(b.conv2d(x, {.out = 4, .kernel = {9, 9}}, "too_big"),
                    Catch::Contains("op 'too_big' (conv2d)") && Catch::Contains("does not fit"));
  CHECK_THROWS_WITH(b.conv2d(x, {.out = 4, .kernel = {3, 3}, .groups = 2}, "grouped"), Catch::Contains("groups=2"));
  CHECK_THROWS_WITH(b.reshape(v, {3, 7}, "r"), Catch::Contains("op 'r' (reshape)") && Catch::Contains("20 elements"));
  CHECK_THROWS_WITH(b.add(x, v, "sum"), Catch::Contains("op 'sum' (add)") && Catch::Contains("do not broadcast"));
  CHECK_THROWS_WITH(b.concat({x, v}, 1, "cat"), Catch::Contains("op 'cat' (concat)"));
  CHECK_THROWS_WITH(b.matmul(v, v, "mm"), Catch::Contains("inner dimensions differ"));
  CHECK_THROWS_WITH(b.transpose(v, {0, 0}, "t"), Catch::Contains("repeats axis"));
  CHECK_THROWS_WITH(b.dropout(v, 1.5, "d"), Catch::Contains("probability"));
  CHECK_THROWS_WITH(b.input("neg", {2, -1}), Catch::Contains("non-positive"));
  CHECK_THROWS_WITH(b.linear(v, 0, "fc"), Catch::Contains("out_features must be positive"));
  // A failed op leaves the graph as it was.
  const std::size_t ops = b.graph().ops().size();
  CHECK_THROWS(b.conv2d(x, {.out = 4, .kernel = {9, 9}}, "again"));
  CHECK(b.graph().ops().size() == ops);
}

TEST_CASE("Layout ops keep or rearrange elements", "[graph]") {
  NetworkBuilder b("t");
  const int x = b.input("x", {2, 3, 4, 5});
  CHECK(b.shape(b.flatten(x, 1, "f")) == TensorShape{2, 60});
  CHECK(b.shape(b.reshape(x, {0, -1, 5}, "r")) == TensorShape{2, 12, 5});
  CHECK(b.shape(b.transpose(x, {0, 2, 1, 3}, "t")) == TensorShape{2, 4, 3, 5});
  const auto parts = b.split(x, {1, 2}, 1, "s");
  REQUIRE(parts.size() == 2);
  CHECK(b.shape(parts[1]) == TensorShape{2, 2, 4, 5});
  CHECK(b.shape(b.concat({x, x}, -1, "c")) == TensorShape{2, 3, 4, 10});
  CHECK(b.shape(b.reduce_mean(x, {2, 3}, false, "m")) == TensorShape{2, 3});
}
