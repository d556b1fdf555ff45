#include "core/analysis/network_summary.h"
#include "core/analysis/saved_activations.h"

#include <numeric>

#include <catch2/catch.hpp>

#include "core/graph/network_builder.h"
#include "core/lowering/lower.h"

using namespace dnnperf;

TEST_CASE("Activation memory counts each saved tensor once", "[analysis]") {
  NetworkBuilder b("t");
  int x = b.input("x", {2, 3, 8, 8});
  x = b.conv2d(x, {.out = 4, .kernel = {3, 3}, .padding = {1, 1}}, "conv");  // saves x
  x = b.batch_norm(x, "bn");                                                 // saves conv out + stats
  x = b.relu(x, "relu");                                                      // saves its output
  x = b.max_pool(x, 2, 2, 0, "pool");                                         // relu out (held) + indices
  const Graph g = std::move(b).finish();
  const NetworkSummary s = summarize(g, lower(g));
  const std::int64_t image = 2 * 3 * 8 * 8 * 4, map = 2 * 4 * 8 * 8 * 4;
  CHECK(s.layers[0].activation_bytes == image);
  CHECK(s.layers[1].activation_bytes == map + 8 * 4);
  CHECK(s.layers[2].activation_bytes == map);
  CHECK(s.layers[3].activation_bytes == 8 * (2 * 4 * 4 * 4));
  CHECK(s.totals.activation_bytes == image + 2 * map + 32 + 8 * 128);
}

TEST_CASE("Totals are the sums of the layers", "[analysis]") {
  NetworkBuilder b("t");
  int x = b.input("x", {4, 32});
  x = b.relu(b.linear(x, 64, "fc1"), "r");
  x = b.linear(x, 8, "fc2");
  const Graph g = std::move(b).finish();
  const NetworkSummary s = summarize(g, lower(g));
  double forward = 0, backward = 0;
  std::int64_t params = 0;
  for (const LayerCounts& l : s.layers) {
    forward += l.phase(Phase::forward).flops;
    backward += l.backward_flops();
    params += l.params;
  }
  CHECK(s.totals.phase(Phase::forward).flops == Approx(forward));
  CHECK(s.totals.backward_flops() == Approx(backward));
  CHECK(params == g.parameter_count());
  CHECK(s.totals.forward_macs == Approx(4 * 32 * 64 + 4 * 64 * 8));
}

TEST_CASE("Under FP8 a layer keeps the 8-bit copy of its input, beside the 16-bit one another op keeps", "[analysis]") {
  NetworkBuilder b("t");
  int x = b.input("x", {4, 16, 64});
  x = b.linear(x, 64, "fc1");                        // saves the network's input for its weight gradient
  const int h = b.unary(OpKind::gelu, x, "gelu");  // saves fc1's output, 16-bit
  b.linear(h, 32, "fc2");                          // saves gelu's output: 8-bit under FP8
  b.linear(x, 32, "fc3");                          // saves fc1's output too: 8-bit under FP8, beside gelu's 16-bit one
  const Graph g = std::move(b).finish();
  const auto total = [&](bool fp8) {
    const auto saved = saved_activation_bytes(g, DType::bf16, fp8);
    return std::accumulate(saved.begin(), saved.end(), std::int64_t{0});
  };
  const std::int64_t act = 4 * 16 * 64;  // elements of fc1's and gelu's outputs
  // 16-bit: fc1's input (the network's, saved for fc1's weight gradient), fc1's output once, gelu's output.
  CHECK(total(false) == 2 * act * 3);
  // FP8: fc1's input in 8 bits, fc1's output in 16 (gelu) and in 8 (fc3), gelu's output in 8.
  CHECK(total(true) == act + 2 * act + act + act);
}
