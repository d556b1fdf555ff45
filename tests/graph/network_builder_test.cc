#include "core/graph/network_builder.h"

#include <catch2/catch.hpp>

using namespace dnnperf;

TEST_CASE("Layers create PyTorch-shaped parameters and buffers", "[graph]") {
  NetworkBuilder b("t");
  int x = b.input("x", {4, 3, 32, 32});
  {
    auto s = b.scope("block");
    x = b.conv2d(x, {.out = 8, .kernel = {3, 3}, .bias = false}, "conv");
    x = b.batch_norm(x, "bn");
  }
  x = b.flatten(x, 1, "flat");
  x = b.linear(x, 10, "fc");
  const Graph g = std::move(b).finish();
  CHECK(g.op(0).name == "block.conv");
  CHECK(g.parameter_count() == 8 * 3 * 3 * 3 + 2 * 8 + (8 * 30 * 30 * 10 + 10));
  int buffers = 0;
  for (const Tensor& t : g.tensors()) buffers += t.role == TensorRole::buffer;
  CHECK(buffers == 2);  // running mean and variance
}

TEST_CASE("requires_grad flows from parameters, not from data", "[graph]") {
  NetworkBuilder b("t");
  const int x = b.input("x", {2, 4});
  const int doubled = b.add(x, x, "sum");  // no parameter upstream
  const int y = b.linear(doubled, 3, "fc");
  const Graph g = std::move(b).finish();
  CHECK_FALSE(g.tensor(doubled).requires_grad);
  CHECK(g.tensor(y).requires_grad);
}
