#include "core/analysis/step_residency.h"

#include <catch2/catch.hpp>

#include "core/graph/network_builder.h"
#include "core/lowering/lower.h"

using namespace dnnperf;

namespace {

/// A lowered kernel with what the step's cache replay left it (replay_step_cache), read as one.
struct Replayed : Kernel, StepCacheState {};

std::vector<Replayed> replay(const Graph& g, const std::vector<Kernel>& kernels, double cache_bytes, const ColdReach& reach = {}) {
  const std::vector<StepCacheState> states = replay_step_cache(g, kernels, cache_bytes, reach);
  REQUIRE(states.size() == kernels.size());
  std::vector<Replayed> out;
  for (std::size_t i = 0; i < kernels.size(); ++i) out.push_back({kernels[i], states[i]});
  return out;
}

/// Two 3x3 convolutions of 64 channels over 8x8 images: filters of 147 KB, activations of 16 KB.
Graph two_convs() {
  NetworkBuilder b("t");
  int x = b.input("x", {1, 64, 8, 8});
  x = b.conv2d(x, {.out = 64, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "c1");
  x = b.relu(x, "r");
  x = b.conv2d(x, {.out = 64, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "c2");
  return std::move(b).finish();
}

const Replayed& find(const std::vector<Replayed>& ks, const Graph& g, const std::string& op, Phase phase) {
  for (const Replayed& k : ks)
    if (k.cls == KernelClass::conv && g.op(k.op).name == op && k.phase == phase) return k;
  FAIL("no " << op << " kernel of that phase");
  return ks.front();
}

}  // namespace

TEST_CASE("A cache larger than the step keeps every operand a convolution reads", "[analysis]") {
  const Graph g = two_convs();
  const std::vector<Replayed> ks = replay(g, lower(g), 64e6);
  // The forward pass finds the filters the previous step's update wrote.
  const Replayed& f1 = find(ks, g, "c1", Phase::forward);
  CHECK(f1.resident.weight == 1.0);
  CHECK(f1.resident.input == 1.0);
  CHECK(f1.resident.call == 1.0);
  const Replayed& d2 = find(ks, g, "c2", Phase::backward_data);
  CHECK(d2.resident.weight == 1.0);
  CHECK(d2.resident.output == 1.0);
  CHECK(d2.resident.input == 0.0);  // written, not read
  const Replayed& w1 = find(ks, g, "c1", Phase::backward_weight);
  CHECK(w1.resident.input == 1.0);
  CHECK(w1.resident.weight == 0.0);  // the filter's gradient is written
}

TEST_CASE("A small cache keeps what was touched last and loses what a pass ago touched", "[analysis]") {
  const Graph g = two_convs();
  // 200 KB: a filter (147 KB) and a few activations, not both filters and their gradients.
  const std::vector<Replayed> ks = replay(g, lower(g), 200e3);
  // c2's backward comes right after its forward (only the loss between): its filter is there.
  CHECK(find(ks, g, "c2", Phase::backward_data).resident.weight > 0.5);
  // c1's filter was read a whole forward and most of a backward ago: gone.
  CHECK(find(ks, g, "c1", Phase::forward).resident.weight < 0.5);
  // The gradient c2's backward reads was written by the kernel just before.
  CHECK(find(ks, g, "c2", Phase::backward_weight).resident.output == 1.0);
}

TEST_CASE("No cache, no warmth", "[analysis]") {
  const Graph g = two_convs();
  const std::vector<Replayed> ks = replay(g, lower(g), 0);
  for (const Replayed& k : ks) {
    CHECK(k.resident.input == 0);
    CHECK(k.resident.weight == 0);
    CHECK(k.resident.output == 0);
    CHECK(k.resident.call == 0);
  }
}

TEST_CASE("Operands last touched beyond the cold timings' eviction are far, up to the whole last-level cache", "[analysis]") {
  const ColdReach reach{1e6, 3e6};
  CHECK(reach.enabled());
  CHECK(reach.far_share(0.5e6) == 0.0);
  CHECK(reach.far_share(2e6) == Approx(0.5));
  CHECK(reach.far_share(9e6) == 1.0);
  CHECK(reach.far_share(-1) == 0.0);  // never touched: the replay's first step
  // An eviction that covers the cache (an AMD EPYC's 32 MiB L3 against 64 MiB) left nothing cached.
  CHECK_FALSE((ColdReach{64e6, 32e6}).enabled());
  CHECK((ColdReach{64e6, 32e6}).far_share(1e9) == 0.0);
}

TEST_CASE("A training forward's kept output is far where its step spans the cold reach; an inference's is not", "[analysis]") {
  // Eight 64-channel 3x3 convolutions over 32x32 images at batch 8: 2 MiB activations, 147 KB
  // filters; one training step touches some 70 MB, an inference about 20.
  NetworkBuilder b("deep");
  int x = b.input("x", {8, 64, 32, 32});
  for (int i = 0; i < 8; ++i) x = b.conv2d(x, {.out = 64, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "c" + std::to_string(i));
  const Graph g = std::move(b).finish();
  const double output_bytes = 8.0 * 64 * 32 * 32 * 4;
  // A 1 MB eviction on a 16 MB cache: a kernel's repetitions (1 MB plus its own 4.3 MB) found
  // 29% of their operands beyond the reach already, a whole training step's distance all.
  const ColdReach reach{1e6, 16e6};
  const double calibrated = reach.far_share(1e6 + 2 * output_bytes + 147456);
  CHECK(calibrated == Approx(0.289).margin(0.002));
  const std::vector<Replayed> training = replay(g, lower(g), 1e6, reach);
  // The middle layers' forwards: the input was written by the kernel before (near); the output
  // lands where the previous step's copy was, the whole step ago (far); the filter too.
  const Replayed& f = find(training, g, "c4", Phase::forward);
  CHECK(f.far_bytes >= (1 - calibrated) * output_bytes * 0.999);
  CHECK(f.far_bytes <= (1 - calibrated) * (output_bytes + 147456) * 1.001);
  // The same forward in an inference: the output reuses a buffer freed a moment ago.
  const std::vector<Replayed> forward = replay(g, lower(g, LoweringOptions::inference()), 1e6, reach);
  CHECK(find(forward, g, "c4", Phase::forward).far_bytes < 0.1 * output_bytes);
  // The weight gradient reads the input saved a long way back.
  CHECK(find(training, g, "c1", Phase::backward_weight).far_bytes >= (1 - calibrated) * output_bytes * 0.5);
  // A reach the kernel's own operands span: the cold timing fetched them from memory too.
  const std::vector<Replayed> spanned = replay(g, lower(g), 1e6, ColdReach{1e6, 4e6});
  for (const Replayed& k : spanned) CHECK(k.far_bytes == 0);
  // Without a reach, no far bytes.
  const std::vector<Replayed> plain = replay(g, lower(g), 1e6);
  for (const Replayed& k : plain) CHECK(k.far_bytes == 0);
}

TEST_CASE("A training step's memory passes read what was written far back and write where the last step's copies were", "[analysis]") {
  // Eight blocks of a 64-channel 3x3 convolution and a ReLU over 32x32 images at batch 8: 2 MiB
  // activations; a training step touches some 100 MB, an inference some 30.
  NetworkBuilder b("deep");
  int x = b.input("x", {8, 64, 32, 32});
  for (int i = 0; i < 8; ++i) {
    x = b.conv2d(x, {.out = 64, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "c" + std::to_string(i));
    x = b.relu(x, "r" + std::to_string(i));
  }
  const Graph g = std::move(b).finish();
  const double activation = 8.0 * 64 * 32 * 32 * 4;
  const ColdReach reach{1e6, 16e6};
  const auto pass = [&](const std::vector<Replayed>& ks, const std::string& op, Phase phase) -> const Replayed& {
    for (const Replayed& k : ks)
      if (k.cls != KernelClass::conv && g.op(k.op).name == op && k.phase == phase) return k;
    FAIL("no " << op << " pass of that phase");
    return ks.front();
  };
  const std::vector<Replayed> training = replay(g, lower(g), 1e6, reach);
  // The forward ReLU reads what the convolution just wrote (near), and writes where the previous
  // step's copy was, a whole step ago (far, less what its own repetitions left beyond the reach:
  // its 4 MiB of operands put 20% of them there).
  const Replayed& f = pass(training, "r4", Phase::forward);
  CHECK(f.far_read_bytes == 0);
  const double own = reach.far_share(2 * activation);
  CHECK(f.far_written_bytes == Approx((1 - own) * activation).epsilon(0.01));
  // Its backward reads its forward's output, written most of a step ago, and the gradient just
  // made; it writes its input's gradient where the previous step's was, a step ago.
  const Replayed& d = pass(training, "r1", Phase::backward_data);
  CHECK(d.far_read_bytes > 0.5 * activation);
  CHECK(d.far_read_bytes <= (1 - own) * 2 * activation * 1.001);
  CHECK(d.far_written_bytes == Approx((1 - reach.far_share(3 * activation)) * activation).epsilon(0.01));
  // Convolutions keep their own far bytes; passes take none of them.
  for (const Replayed& k : training) {
    if (k.cls == KernelClass::conv) CHECK(k.far_read_bytes + k.far_written_bytes == 0);
    if (k.cls != KernelClass::conv) CHECK(k.far_bytes == 0);
  }
  // An inference's ReLU: its input was just written, its output lands in memory freed a moment ago.
  const std::vector<Replayed> inference = replay(g, lower(g, LoweringOptions::inference()), 1e6, reach);
  CHECK(pass(inference, "r4", Phase::forward).far_read_bytes == 0);
  CHECK(pass(inference, "r4", Phase::forward).far_written_bytes == 0);
  // Without a reach, nothing is far.
  const std::vector<Replayed> plain = replay(g, lower(g), 1e6);
  for (const Replayed& k : plain) CHECK(k.far_read_bytes + k.far_written_bytes == 0);
}
