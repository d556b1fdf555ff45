#include "predictor/analysis/step_residency.h"

#include <catch2/catch.hpp>

#include "predictor/graph/network_builder.h"
#include "predictor/lowering/lower.h"

using namespace dnnperf;

namespace {

/// Two 3x3 convolutions of 64 channels over 8x8 images: filters of 147 KB, activations of 16 KB.
Graph two_convs() {
  NetworkBuilder b("t");
  int x = b.input("x", {1, 64, 8, 8});
  x = b.conv2d(x, {.out = 64, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "c1");
  x = b.relu(x, "r");
  x = b.conv2d(x, {.out = 64, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "c2");
  return std::move(b).finish();
}

const Kernel& find(const std::vector<Kernel>& ks, const Graph& g, const std::string& op, Phase phase) {
  for (const Kernel& k : ks)
    if (k.cls == KernelClass::conv && g.op(k.op).name == op && k.phase == phase) return k;
  FAIL("no " << op << " kernel of that phase");
  return ks.front();
}

}  // namespace

TEST_CASE("A cache larger than the step keeps every operand a convolution reads", "[analysis]") {
  const Graph g = two_convs();
  std::vector<Kernel> ks = lower(g);
  mark_resident_operands(g, ks, 64e6);
  // The forward pass finds the filters the previous step's update wrote.
  const Kernel& f1 = find(ks, g, "c1", Phase::forward);
  CHECK(f1.resident.weight == 1.0);
  CHECK(f1.resident.input == 1.0);
  CHECK(f1.resident.call == 1.0);
  const Kernel& d2 = find(ks, g, "c2", Phase::backward_data);
  CHECK(d2.resident.weight == 1.0);
  CHECK(d2.resident.output == 1.0);
  CHECK(d2.resident.input == 0.0);  // written, not read
  const Kernel& w1 = find(ks, g, "c1", Phase::backward_weight);
  CHECK(w1.resident.input == 1.0);
  CHECK(w1.resident.weight == 0.0);  // the filter's gradient is written
}

TEST_CASE("A small cache keeps what was touched last and loses what a pass ago touched", "[analysis]") {
  const Graph g = two_convs();
  std::vector<Kernel> ks = lower(g);
  // 200 KB: a filter (147 KB) and a few activations, not both filters and their gradients.
  mark_resident_operands(g, ks, 200e3);
  // c2's backward comes right after its forward (only the loss between): its filter is there.
  CHECK(find(ks, g, "c2", Phase::backward_data).resident.weight > 0.5);
  // c1's filter was read a whole forward and most of a backward ago: gone.
  CHECK(find(ks, g, "c1", Phase::forward).resident.weight < 0.5);
  // The gradient c2's backward reads was written by the kernel just before.
  CHECK(find(ks, g, "c2", Phase::backward_weight).resident.output == 1.0);
}

TEST_CASE("No cache, no warmth", "[analysis]") {
  const Graph g = two_convs();
  std::vector<Kernel> ks = lower(g);
  mark_resident_operands(g, ks, 0);
  for (const Kernel& k : ks) {
    CHECK(k.resident.input == 0);
    CHECK(k.resident.weight == 0);
    CHECK(k.resident.output == 0);
    CHECK(k.resident.call == 0);
  }
}
