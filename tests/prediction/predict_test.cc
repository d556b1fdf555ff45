#include <set>
#include "predictor/prediction/predict.h"

#include <cmath>

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "models/comm/fitted_comm_model.h"
#include "core/graph/network_builder.h"
#include "predictor/prediction/scaling.h"
#include "predictor/prediction/step_limit.h"
#include "networks/zoo/zoo.h"

using namespace dnnperf;

namespace {

Graph network(const std::string& name, std::int64_t batch) {
  NetworkOptions o;
  o.batch = batch;
  return build_zoo_network(name, o);
}

RunConfig on(int nodes, int per_node, GradientSync sync = GradientSync::bucketed) {
  RunConfig c;
  c.plan.nodes = nodes;
  c.plan.devices_per_node = per_node;
  c.plan.sync = sync;
  return c;
}

}  // namespace

TEST_CASE("Overlap is never slower than blocking but for what it costs the kernels, and never faster than its parts", "[prediction]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  for (const std::string name : {"resnet18", "vgg11", "transformer_encoder"}) {
    for (int nodes : {1, 4, 32}) {
      INFO(name << " on " << nodes << " nodes");
      const Graph g = network(name, 16);
      const Prediction bucketed = predict(g, hw, on(nodes, 8));
      const Prediction end = predict(g, hw, on(nodes, 8, GradientSync::at_end));
      const Prediction layer = predict(g, hw, on(nodes, 8, GradientSync::per_layer));
      // DDP's buckets also pay their copies (in and out), which the blocking all-reduce does not.
      double copies = 0;
      for (const AllReduceCall& c : bucketed.allreduces) copies += c.copy_seconds;
      CHECK(copies > 0);
      // Overlap hides communication but slows the kernels beside it: never worse than blocking by
      // more than that slowdown.
      CHECK(bucketed.iteration_s <= (end.iteration_s + copies + bucketed.overlap_cost_s) * (1 + 1e-12));
      CHECK(bucketed.iteration_s >= std::max(bucketed.compute_s, bucketed.comm_s) * (1 - 1e-12));
      // Blocking at the end: compute, then one all-reduce, nothing hidden.
      CHECK(end.iteration_s == Approx(end.compute_s + end.comm_s));
      CHECK(end.allreduces.size() == 1);
      CHECK(layer.iteration_s == Approx(layer.compute_s + layer.comm_s));
      // The kernels are the same but for what overlapping the buckets cost them; blocking
      // all-reduces overlap nothing.
      CHECK(end.overlap_cost_s == 0);
      CHECK(layer.overlap_cost_s == 0);
      CHECK(bucketed.overlap_cost_s >= 0);
      CHECK(bucketed.compute_s - bucketed.overlap_cost_s == Approx(end.compute_s));
    }
  }
}

TEST_CASE("On CPUs gradient all-reduces overlap no computation, while on GPUs DDP buckets hide some", "[prediction]") {
  const Graph g = network("resnet18", 16);
  const Prediction cpu = predict(g, find_hardware_profile("cpu"), on(1, 2));
  REQUIRE(cpu.comm_s > 0);
  CHECK(cpu.allreduces.size() > 1);  // still DDP's buckets
  CHECK(cpu.iteration_s == Approx(cpu.compute_s + cpu.comm_s));
  const Prediction gpu = predict(g, find_hardware_profile("a100"), on(1, 8));
  REQUIRE(gpu.comm_s > 0);
  CHECK(gpu.iteration_s < gpu.compute_s + gpu.comm_s);
}

TEST_CASE("DDP's own work per step delays the optimizer step, in DDP's bucketed sync only", "[prediction]") {
  const Graph g = network("resnet18", 8);
  HardwareProfile hw = find_hardware_profile("a100");
  const Prediction without = predict(g, hw, on(1, 4));
  hw.device.ddp_step_overhead_s = {{4, 0.02}};
  const Prediction with = predict(g, hw, on(1, 4));
  CHECK(with.ddp_overhead_s == Approx(0.02));
  CHECK(with.comm_s == Approx(without.comm_s + 0.02));
  // On a GPU the buckets overlap backward, but the update waits for the last bucket and then for
  // DDP's own work: the step grows by at most that, and by at least what the compute hid.
  CHECK(with.iteration_s > without.iteration_s);
  CHECK(with.iteration_s <= without.iteration_s + 0.02 + 1e-12);
  CHECK(with.compute_s == Approx(without.compute_s));
  // On 2 ranks, half of the 4 measured (from none at one rank); not for one device, nor for
  // blocking all-reduces, which are not DDP's.
  CHECK(predict(g, hw, on(1, 2)).ddp_overhead_s == Approx(0.02 / 3));
  CHECK(predict(g, hw, on(1, 1)).ddp_overhead_s == 0);
  CHECK(predict(g, hw, on(1, 4, GradientSync::at_end)).ddp_overhead_s == 0);
  CHECK(predict(g, hw, on(1, 4, GradientSync::at_end)).iteration_s == Approx(predict(g, find_hardware_profile("a100"), on(1, 4, GradientSync::at_end)).iteration_s));
  // On a CPU nothing overlaps: the step grows by exactly that.
  HardwareProfile cpu = find_hardware_profile("cpu");
  const Prediction cpu_without = predict(g, cpu, on(1, 2));
  cpu.device.ddp_step_overhead_s = {{2, 0.008}};
  CHECK(predict(g, cpu, on(1, 2)).iteration_s == Approx(cpu_without.iteration_s + 0.008));
}

TEST_CASE("One device has no communication", "[prediction]") {
  const HardwareProfile hw = find_hardware_profile("h100");
  const Prediction p = predict(network("resnet50", 32), hw, on(1, 1));
  CHECK(p.comm_s == 0);
  CHECK(p.allreduces.empty());
  CHECK(p.iteration_s == Approx(p.forward_s + p.backward_s + p.update_s));
  CHECK(p.samples_per_s == Approx(32 / p.iteration_s));
}

TEST_CASE("A network without parameters scales linearly under weak scaling, but for the wait for the slowest rank", "[prediction][scaling]") {
  HardwareProfile hw = find_hardware_profile("a100");
  const auto build = [](std::int64_t batch) {
    NetworkBuilder b("no_parameters");
    int x = b.input("x", {batch, 1024});
    for (int i = 0; i < 4; ++i) x = b.relu(x, "relu" + std::to_string(i));
    return std::move(b).finish();
  };
  // The datasheet's step jitter and spread of speeds: each point waits for the slowest of its
  // ranks and no more.
  const auto points = scale(build, hw, on(1, 8), 64, parse_node_counts("1..1024"), Scaling::weak);
  REQUIRE(points.size() == 11);
  REQUIRE(hw.device.step_jitter > 0);
  REQUIRE(hw.device.speed_spread > 0);
  const double spread = std::hypot(hw.device.step_jitter, hw.device.speed_spread);
  const double first = 1 + spread * expected_maximum_of_normals(8);
  for (const ScalePoint& p : points) {
    const double wait = 1 + spread * expected_maximum_of_normals(8 * p.nodes);
    CHECK(p.prediction.sync_wait == Approx(wait));
    CHECK(p.efficiency == Approx(first / wait));
  }
  CHECK(points.back().efficiency < points.front().efficiency);
  // Without them, linear.
  hw.device.step_jitter = hw.device.speed_spread = 0;
  for (const ScalePoint& p : scale(build, hw, on(1, 8), 64, parse_node_counts("1..1024"), Scaling::weak)) {
    CHECK(p.efficiency == Approx(1.0));
    CHECK(p.speedup == Approx(p.nodes));
  }
}

TEST_CASE("Strong scaling splits the global batch and slows per-device work down less than linearly", "[prediction][scaling]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  const auto build = [](std::int64_t batch) { return network("resnet50", batch); };
  const auto points = scale(build, hw, on(1, 8), 4096, {1, 2, 4, 8}, Scaling::strong);
  CHECK(points[0].prediction.batch_per_device == 512);
  CHECK(points[3].prediction.batch_per_device == 64);
  for (const ScalePoint& p : points) CHECK(p.prediction.global_batch == 4096);
  CHECK(points[3].speedup > 1.0);
  CHECK(points[3].efficiency < 1.0);
  CHECK_THROWS_WITH(scale(build, hw, on(1, 8), 1000, {1, 3}, Scaling::strong),
                    Catch::Contains("global batch 1000 does not divide over 24 devices"));
}

TEST_CASE("Strong scaling with accumulation keeps the micro-batch and takes fewer of them per device", "[prediction][scaling]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  const auto build = [](std::int64_t batch) { return network("resnet18", batch); };
  RunConfig c = on(1, 8);
  c.accumulation_steps = 8;
  const auto points = scale(build, hw, c, 8192, {1, 2, 4, 8, 16}, Scaling::strong);
  const std::int64_t micro[] = {128, 128, 128, 128, 64};
  const int steps[] = {8, 4, 2, 1, 1};
  for (std::size_t i = 0; i < points.size(); ++i) {
    CHECK(points[i].prediction.batch_per_device == micro[i]);
    CHECK(points[i].prediction.config.accumulation_steps == steps[i]);
    CHECK(points[i].prediction.global_batch == 8192);
  }
  // Each device's work per step halves with each doubling, the step's fixed costs do not.
  CHECK(points[3].efficiency < points[1].efficiency);
  CHECK(points[3].efficiency > 0.5);
  c.accumulation_steps = 3;
  CHECK_THROWS_WITH(scale(build, hw, c, 8192, {1, 2}, Scaling::strong), Catch::Contains("x 3 micro-batches"));
  c.accumulation_steps = 2;  // 300 a device at 2 nodes in micro-batches of 150; 200 at 3 nodes is no multiple of 150
  CHECK_THROWS_WITH(scale(build, hw, c, 4800, {2, 3}, Scaling::strong), Catch::Contains("into micro-batches of 150"));
}

TEST_CASE("Memory totals are the sum of their parts and follow the optimizer and precision", "[prediction][memory]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  NetworkBuilder b("mlp");
  b.linear(b.relu(b.linear(b.input("x", {8, 256}), 512, "fc1"), "relu"), 10, "fc2");
  const Graph g = std::move(b).finish();
  const double params = static_cast<double>(g.parameter_count());
  RunConfig adam = on(1, 1);
  adam.optimizer = Optimizer::adam;
  const MemoryEstimate m = estimate_memory(g, hw, adam);
  CHECK(m.weights == 4 * params);
  CHECK(m.gradients == 4 * params);
  CHECK(m.optimizer_state == 8 * params);
  CHECK(m.total() == Approx(m.weights + m.gradients + m.optimizer_state + m.activations + m.workspace));
  adam.precision = Precision::bf16;
  const MemoryEstimate half = estimate_memory(g, hw, adam);
  CHECK(half.weights == 6 * params);
  CHECK(half.gradients == 2 * params);
  CHECK(half.activations < m.activations);
}

TEST_CASE("GPT-3 175B does not fit one A100 and the shortfall says by how much", "[prediction][memory]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  NetworkOptions o;
  o.sequence = 2048;
  RunConfig c = on(1, 8);
  c.optimizer = Optimizer::adam;
  c.precision = Precision::bf16;
  const Prediction p = predict(build_zoo_network("gpt3-175b", o), hw, c);
  CHECK_FALSE(p.memory.fits());
  CHECK(p.memory.shortfall() > 174e9 * 16 - 80e9);  // 16 bytes per parameter with Adam
}

TEST_CASE("Gradient accumulation runs forward and backward per micro-batch and exchanges gradients once", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("a100");
  hw.device.step_jitter = hw.device.speed_spread = 0;  // no wait for the slowest rank: the test below holds it
  hw.device.sync_wait.clear();
  const Graph g = network("resnet50", 32);
  for (const GradientSync sync : {GradientSync::bucketed, GradientSync::at_end}) {
    RunConfig one = on(4, 8, sync);
    RunConfig four = one;
    four.accumulation_steps = 4;
    const Prediction a = predict(g, hw, one);
    const Prediction b = predict(g, hw, four);
    REQUIRE(a.sync_wait == 1.0);
    CHECK(b.global_batch == 4 * a.global_batch);
    CHECK(b.allreduces.size() == a.allreduces.size());
    CHECK(b.comm_s == Approx(a.comm_s));
    CHECK(b.comm_exposed_s == Approx(a.comm_exposed_s));
    CHECK(b.update_s == Approx(a.update_s));
    // The three micro-batches before the last: forward and backward alone, back to back; each
    // after the first adds its gradients into the kept ones (a pass over ResNet-50's 25.6 M).
    const double adds = price_step(g, hw, four).gradient_accumulation_s;
    CHECK(adds > 3 * 25.5e6 * 4 / hw.device.memory_bandwidth);
    CHECK(adds < 0.1 * a.backward_s);
    CHECK(b.iteration_s == Approx(a.iteration_s + 3 * (a.forward_s + a.backward_s + adds)));
    CHECK(b.forward_s == Approx(4 * a.forward_s));
    CHECK(b.backward_s == Approx(4 * a.backward_s + 3 * adds));
    // Exchanging once per four micro-batches amortises it: more samples per second.
    CHECK(b.samples_per_s > a.samples_per_s);
    CHECK(b.iteration_s < 4 * a.iteration_s);
  }
}

TEST_CASE("On a CPU, the framework's work per op is paid by every micro-batch, the optimizer's once", "[prediction]") {
  const HardwareProfile hw = find_hardware_profile(std::string(DNNPERF_SOURCE_DIR) + "/data/hardware/calibrated/cpu-vm-2core-family25.json");
  REQUIRE_FALSE(hw.device.host_op_s.empty());
  RunConfig one = on(1, 1);
  RunConfig three = one;
  three.accumulation_steps = 3;
  const Graph g = network("resnet18", 4);
  const PricedStep step = price_step(g, hw, one);
  REQUIRE(step.framework_s > 0);
  REQUIRE(step.framework_update_s < step.framework_s);
  const Prediction a = simulate_step(g, step, hw, one);
  const Prediction b = simulate_step(g, step, hw, three);
  CHECK(a.framework_s == Approx(step.framework_s));
  CHECK(b.framework_s == Approx(3 * (step.framework_s - step.framework_update_s) + step.framework_update_s));
  CHECK(b.framework_s > 2.5 * a.framework_s);
}

TEST_CASE("Ranks meeting once per K micro-batches wait for the slowest 1/sqrt(K) as long", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("a100");
  hw.device.step_jitter = 0.02;
  hw.device.speed_spread = 0;
  hw.device.sync_wait.clear();
  RunConfig one = on(16, 8);
  RunConfig nine = one;
  nine.accumulation_steps = 9;
  const Graph g = network("resnet50", 32);
  const Prediction a = predict(g, hw, one);
  const Prediction b = predict(g, hw, nine);
  REQUIRE(a.sync_wait > 1.02);
  CHECK(b.sync_wait - 1 == Approx((a.sync_wait - 1) / 3));
  // A slow device is slow in every micro-batch: its share of the wait stays.
  hw.device.speed_spread = 0.02;
  const Prediction c = predict(g, hw, one);
  const Prediction d = predict(g, hw, nine);
  CHECK(c.sync_wait > a.sync_wait);
  CHECK(d.sync_wait - 1 > 0.9 * (c.sync_wait - 1) / std::sqrt(2.0));
  CHECK(d.sync_wait - 1 == Approx(std::hypot(0.02, 0.02 / 3) * expected_maximum_of_normals(128)));
}

TEST_CASE("Gradient accumulation is refused where it cannot apply", "[prediction]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  RunConfig c = on(1, 8);
  c.accumulation_steps = 0;
  CHECK_THROWS_AS(predict(network("resnet18", 8), hw, c), InputError);
  c.accumulation_steps = 2;
  c.inference = true;
  CHECK_THROWS_WITH(predict(network("resnet18", 8), hw, c), Catch::Contains("training, not inference"));
}

TEST_CASE("A fused optimizer is priced as one streaming pass, below torch.optim's per-tensor updates", "[prediction]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  RunConfig c = on(1, 1);
  c.optimizer = Optimizer::adam;
  c.precision = Precision::bf16;
  const Graph g = network("resnet50", 32);
  const Prediction each = predict(g, hw, c);
  c.fused_optimizer = true;
  const Prediction fused = predict(g, hw, c);
  const double bytes = static_cast<double>(g.parameter_count()) * (7 * 4 + 4 + 2);  // Adam's tensors, the cast
  CHECK(fused.update_s < each.update_s / 2);
  CHECK(fused.update_s > bytes / hw.device.memory_bandwidth);  // no faster than the bytes at the datasheet's rate
  CHECK(fused.forward_s == Approx(each.forward_s));
}

TEST_CASE("An epoch is its iterations times the iteration time", "[prediction]") {
  const HardwareProfile hw = find_hardware_profile("v100");
  RunConfig c = on(2, 8);
  c.dataset_size = 1'281'167;  // ImageNet-1k training set
  const Prediction p = predict(network("resnet50", 32), hw, c);
  CHECK(*p.iterations_per_epoch == (1'281'167 + 511) / 512);
  CHECK(*p.epoch_s == Approx(*p.iterations_per_epoch * p.iteration_s));
}

TEST_CASE("Inference prices the forward pass only", "[prediction]") {
  const HardwareProfile hw = find_hardware_profile("h100");
  NetworkOptions o;
  o.batch = 8;
  o.with_loss = false;
  RunConfig c = on(1, 1);
  c.inference = true;
  const Prediction p = predict(build_zoo_network("resnet50", o), hw, c);
  CHECK(p.backward_s == 0);
  CHECK(p.update_s == 0);
  CHECK(p.iteration_s == Approx(p.forward_s));
  RunConfig train = on(1, 1);
  CHECK(predict(build_zoo_network("resnet50", o), hw, train).forward_s > p.forward_s);  // BN statistics, masks
}

TEST_CASE("Mixed precision and TF32 are faster than fp32 on tensor-core GPUs", "[prediction]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  const Graph g = network("resnet50", 64);
  RunConfig fp32 = on(1, 1), tf32 = on(1, 1), bf16 = on(1, 1);
  tf32.precision = Precision::tf32;
  bf16.precision = Precision::bf16;
  const double t32 = predict(g, hw, fp32).iteration_s, ttf = predict(g, hw, tf32).iteration_s, tbf = predict(g, hw, bf16).iteration_s;
  CHECK(ttf < t32 / 2);
  CHECK(tbf < ttf);
  CHECK_THROWS_WITH(predict(g, find_hardware_profile("v100"), tf32), Catch::Contains("no TF32 tensor cores"));
}

TEST_CASE("FP8 runs a transformer's weight GEMMs faster on Hopper, and is refused without FP8 tensor cores", "[prediction]") {
  NetworkOptions o;
  o.batch = 8;
  o.sequence = 1024;
  const Graph g = build_zoo_network("gpt2-medium", o);
  RunConfig bf16 = on(1, 1), fp8 = on(1, 1);
  bf16.precision = Precision::bf16;
  fp8.precision = Precision::fp8;
  bf16.optimizer = fp8.optimizer = Optimizer::adam;
  const HardwareProfile h100 = find_hardware_profile("h100");
  const Prediction b = predict(g, h100, bf16), e = predict(g, h100, fp8);
  // Only the GEMMs against weights speed up, at most twofold (the FP8 peak's), and the casts cost.
  CHECK(e.forward_s < b.forward_s);
  CHECK(e.backward_s < b.backward_s);
  CHECK(e.forward_s > b.forward_s / 2);
  // Each GEMM weight's FP8 copy and its transpose: the linear layers' and projections' matrices,
  // not the biases, norms or position embeddings.
  const double eight = static_cast<double>(fp8_weight_elements(g));
  CHECK(eight < static_cast<double>(g.parameter_count()));
  CHECK(eight > 0.8 * static_cast<double>(g.parameter_count()));
  CHECK(e.memory.weights == Approx(b.memory.weights + 2.0 * eight));
  // Inference keeps those weights in 8 bits in place of 16, and casts only activations.
  RunConfig serve = fp8, serve16 = bf16;
  serve.inference = serve16.inference = true;
  const Prediction s8 = predict(g, h100, serve), s16 = predict(g, h100, serve16);
  CHECK(s8.memory.weights == Approx(s16.memory.weights - eight));
  CHECK(s8.forward_s < s16.forward_s);
  CHECK_THROWS_WITH(predict(g, find_hardware_profile("a100"), fp8), Catch::Contains("no FP8 tensor cores"));
}

TEST_CASE("Impossible plans are reported", "[prediction][errors]") {
  const HardwareProfile hw = find_hardware_profile("a100");
  const Graph g = network("resnet18", 8);
  CHECK_THROWS_WITH(predict(g, hw, on(1, 16)), Catch::Contains("node has 8 devices; the plan asks for 16"));
  CHECK_THROWS_WITH(predict(g, hw, on(0, 8)), Catch::Contains("nodes must be positive"));
  RunConfig c = on(1, 8);
  c.plan.bucket_bytes = 0;
  CHECK_THROWS_WITH(predict(g, hw, c), Catch::Contains("bucket size must be positive"));
  CHECK_THROWS_WITH(parse_node_counts("1..x"), Catch::Contains("'x' is not a positive integer"));
  CHECK_THROWS_WITH(parse_node_counts("8..2"), Catch::Contains("ends before it starts"));
  CHECK(parse_node_counts("1..4096").size() == 13);
  CHECK(parse_node_counts("2..10:4") == std::vector<int>{2, 6, 10});
}

TEST_CASE("An iteration's interval adds shared family errors and lets kernels' own average out", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("cpu");
  const Graph g = network("resnet18", 4);
  const auto spread = [&](double shared) {
    for (auto* e : {&hw.device.gemm, &hw.device.conv}) e->residual_sigma = 0.5, e->shared_sigma = shared;
    hw.device.memory.residual_sigma = 0.5, hw.device.memory.shared_sigma = shared;
    const Prediction p = predict(g, hw, on(1, 1));
    CHECK(p.iteration_low_s < p.iteration_s);
    CHECK(std::log(p.iteration_s / p.iteration_low_s) == Approx(std::log(p.iteration_high_s / p.iteration_s)));
    return std::log(p.iteration_high_s / p.iteration_s) / 1.96;
  };
  const double independent = spread(0.0), half = spread(0.25), together = spread(0.5);
  CHECK(independent < 0.2);  // a hundred-odd kernels' own errors average out
  CHECK(independent < half);
  CHECK(half < together);
  CHECK(together <= 0.5 + 1e-9);  // never wider than every kernel off by the same factor
}

TEST_CASE("A GPU waits for a host that queues kernels more slowly than it runs them", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("h100");
  RunConfig c = on(1, 1);
  c.inference = true;
  const Graph g = network("resnet18", 2);
  const Prediction fast = predict(g, hw, c);
  CHECK(fast.host_dispatch_s == 0);
  CHECK(fast.device_waiting_s == 0);

  // A host that keeps far ahead changes nothing; the device's time is then its kernels'.
  hw.device.host_dispatch_s = {{"memory", 1e-9}, {"gemm", 1e-9}, {"conv_forward", 1e-9}};
  const Prediction ahead = predict(g, hw, c);
  CHECK(ahead.iteration_s == Approx(fast.iteration_s).epsilon(1e-3));
  CHECK(ahead.device_waiting_s < 1e-3 * ahead.iteration_s);

  // A slow host: every kernel waits to be queued, so the step lasts as long as the queueing plus
  // the last kernel, and is never shorter than either timeline.
  const double slow = 1e-3;
  hw.device.host_dispatch_s = {{"memory", slow}, {"gemm", slow}, {"conv_forward", slow}};
  const PricedStep step = price_step(g, hw, c);
  const Prediction bound = simulate_step(g, step, hw, c);
  HardwareProfile no_host = hw;
  no_host.device.host_dispatch_s.clear();
  const PricedStep kernels_alone = price_step(g, no_host, c);
  REQUIRE(kernels_alone.seconds.back() < slow);
  CHECK(bound.host_dispatch_s == Approx(slow * static_cast<double>(step.kernels.size())));
  CHECK(bound.iteration_s == Approx(bound.host_dispatch_s + kernels_alone.seconds.back()));  // the last kernel runs after the host is done
  CHECK(bound.iteration_s - bound.device_waiting_s == Approx(fast.iteration_s).epsilon(1e-6));  // busy time: the kernels'
}

TEST_CASE("Each phase says whether the host or the device bounds it, and graph replay removes the host", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("h100");
  const Graph g = network("resnet18", 2);
  const RunConfig eager = on(1, 1);
  const Prediction kernels_only = predict(g, hw, eager);
  // A host slow on backward kernels only: backward is host-bound, forward is not.
  hw.device.host_dispatch_s = {{"memory", 1e-7}, {"gemm", 1e-7}, {"conv_forward", 1e-7}, {"conv_backward_data", 2e-3}, {"conv_backward_filter", 2e-3}};
  const Prediction p = predict(g, hw, eager);
  CHECK_FALSE(p.forward_load.host_bound());
  CHECK(p.backward_load.host_bound());
  CHECK(p.backward_load.waiting_s > 0);
  CHECK(p.forward_load.waiting_s < 1e-3 * p.forward_s);
  // The phases' parts add up to the step's: kernels plus waiting is the device's time.
  const double kernels = p.forward_load.kernels_s + p.backward_load.kernels_s + p.update_load.kernels_s;
  const double waiting = p.forward_load.waiting_s + p.backward_load.waiting_s + p.update_load.waiting_s;
  CHECK(kernels + waiting == Approx(p.compute_s).epsilon(1e-9));
  CHECK(waiting == Approx(p.device_waiting_s).epsilon(1e-9));
  CHECK(kernels == Approx(kernels_only.compute_s).epsilon(1e-9));

  RunConfig graph = eager;
  graph.launch = Launch::graph;
  const Prediction replayed = predict(g, hw, graph);
  CHECK(replayed.host_dispatch_s == 0);
  CHECK(replayed.device_waiting_s == 0);
  CHECK(replayed.compute_s == Approx(kernels_only.compute_s).epsilon(1e-12));
  CHECK(replayed.iteration_s < p.iteration_s);
  // A CPU runs its kernels on the calling thread: there is nothing to replay.
  CHECK_THROWS_AS(predict(g, find_hardware_profile("cpu"), graph), InputError);
}

TEST_CASE("An op whose host time was measured whole is charged it once per phase, views included", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("h100");
  const double per_kernel = 1e-4;
  hw.device.host_dispatch_s = {{"memory", per_kernel}, {"gemm", per_kernel}, {"conv_forward", per_kernel}, {"conv_backward_data", per_kernel},
                               {"conv_backward_filter", per_kernel}};
  const Graph g = network("resnet18", 2);
  const RunConfig c = on(1, 1);
  const PricedStep before = price_step(g, hw, c);
  // Convolutions measured whole (forward 1 ms, backward 3 ms), and flatten, which queues no
  // kernel of its own: its time goes to the next kernel queued.
  hw.device.host_op_s = {{"conv2d", {1e-3, 3e-3}}, {"flatten", {5e-4, 7e-4}}};
  const PricedStep after = price_step(g, hw, c);
  REQUIRE(after.host_seconds.size() == before.host_seconds.size());
  std::set<int> convs;
  double conv_kernels_before = 0;
  for (std::size_t i = 0; i < before.kernels.size(); ++i) {
    const Kernel& k = before.kernels[i];
    if (k.op_kind != OpKind::conv2d || k.phase == Phase::update) continue;
    convs.insert(k.op);
    conv_kernels_before += before.host_seconds[i];
  }
  REQUIRE(convs.size() == 20);  // ResNet-18's convolutions, shortcuts included
  double total_before = 0, total_after = 0;
  for (const double h : before.host_seconds) total_before += h;
  for (const double h : after.host_seconds) total_after += h;
  CHECK(total_after == Approx(total_before - conv_kernels_before + 20 * (1e-3 + 3e-3) + 5e-4 + 7e-4));
  // Each convolution's forward time sits on its first forward kernel, none on its others.
  for (std::size_t i = 0; i < after.kernels.size(); ++i) {
    const Kernel& k = after.kernels[i];
    if (k.op_kind == OpKind::conv2d && k.phase == Phase::forward) CHECK(after.host_seconds[i] == Approx(1e-3));
  }
  // Inference runs no backward: only forward times are charged.
  RunConfig inference = c;
  inference.inference = true;
  const PricedStep forward_only = price_step(g, hw, inference);
  double total_inference = 0;
  for (const double h : forward_only.host_seconds) total_inference += h;
  double others = 0;
  for (std::size_t i = 0; i < forward_only.kernels.size(); ++i)
    if (forward_only.kernels[i].op_kind != OpKind::conv2d) others += per_kernel;
  CHECK(total_inference == Approx(others + 20 * 1e-3 + 5e-4));
}

TEST_CASE("On a CPU the framework's time per op adds to the step, on the same thread", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("cpu");
  const Graph g = network("resnet18", 2);
  const RunConfig c = on(1, 1);
  const Prediction before = predict(g, hw, c);
  hw.device.host_op_s = {{"conv2d", {1e-3, 3e-3}}, {"flatten", {5e-4, 7e-4}}};
  const Prediction after = predict(g, hw, c);
  CHECK(after.iteration_s == Approx(before.iteration_s + 20 * (1e-3 + 3e-3) + 5e-4 + 7e-4));
  CHECK(after.host_dispatch_s == 0);  // no host timeline: nothing runs ahead of the kernels
  CHECK(after.framework_s == Approx(20 * (1e-3 + 3e-3) + 5e-4 + 7e-4));
  CHECK(before.framework_s == 0);
  CHECK(after.forward_s == Approx(before.forward_s + 20 * 1e-3 + 5e-4));
}

TEST_CASE("A step's warmth takes off what a convolution found warm, and nothing without a fitted cache", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("cpu");
  const Graph g = network("resnet18", 2);
  const RunConfig c = on(1, 1);
  const Prediction cold = predict(g, hw, c);
  hw.device.step_warmth.conv[0] = {1e-3, 0, 0, 0};  // a millisecond per forward call, were the cache fitted
  CHECK(predict(g, hw, c).iteration_s == Approx(cold.iteration_s));
  hw.device.step_warmth.cache_bytes = 1e12;  // all of it warm
  hw.device.step_warmth.most_saved = 0.9;
  const Prediction warm = predict(g, hw, c);
  CHECK(warm.forward_s < cold.forward_s);
  CHECK(warm.backward_s == Approx(cold.backward_s));
  double saved = 0;
  const PricedStep all_warm = price_step(g, hw, c);
  REQUIRE(all_warm.cache.size() == all_warm.kernels.size());
  for (std::size_t i = 0; i < all_warm.kernels.size(); ++i)
    if (all_warm.kernels[i].cls == KernelClass::conv && all_warm.kernels[i].phase == Phase::forward) CHECK(all_warm.cache[i].resident.call == 1.0);
  const PricedStep a = price_step(g, hw, c), b = [&] { HardwareProfile h = hw; h.device.step_warmth = {}; return price_step(g, h, c); }();
  for (std::size_t i = 0; i < a.seconds.size(); ++i) saved += b.seconds[i] - a.seconds[i];
  CHECK(saved == Approx(cold.forward_s - warm.forward_s));
  CHECK(saved > 0);
}

TEST_CASE("Convolutions alike but for their far bytes are each priced with their own", "[prediction]") {
  // Priced once per distinct kernel: a ResNet-50's repeated blocks are alike in shape and
  // warmth, but those whose operands were touched longer ago fetch more of them from memory.
  HardwareProfile hw = find_hardware_profile("cpu");
  StepWarmth& w = hw.device.step_warmth;
  w.cache_bytes = 1e6, w.cold_eviction_bytes = 1e6, w.last_level_cache_bytes = 6e7, w.far_s_per_byte = 2e-10;
  const PricedStep step = price_step(network("resnet50", 8), hw, on(1, 1));
  int pairs = 0;
  for (std::size_t i = 0; i < step.kernels.size(); ++i)
    for (std::size_t j = i + 1; j < step.kernels.size(); ++j) {
      const Kernel &a = step.kernels[i], &b = step.kernels[j];
      const StepCacheState &ca = step.cache[i], &cb = step.cache[j];
      if (a.cls != KernelClass::conv || b.cls != KernelClass::conv || a.phase != b.phase || a.conv.n != b.conv.n || a.conv.c != b.conv.c ||
          a.conv.h != b.conv.h || a.conv.k != b.conv.k || a.conv.r != b.conv.r || a.conv.stride_h != b.conv.stride_h || a.shares_call != b.shares_call ||
          ca.resident.input != cb.resident.input || ca.resident.weight != cb.resident.weight || ca.resident.output != cb.resident.output ||
          ca.resident.call != cb.resident.call || std::abs(ca.far_bytes - cb.far_bytes) < 1e5)
        continue;
      ++pairs;
      CHECK(step.seconds[j] - step.seconds[i] == Approx(2e-10 * (cb.far_bytes - ca.far_bytes)).epsilon(1e-6));
    }
  CHECK(pairs > 0);
}

TEST_CASE("An optimizer's kernels are queued by one call per step", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("h100");
  hw.device.host_dispatch_s = {{"pass:sgd", 1e-3}};
  const Graph g = network("resnet18", 2);
  const Prediction p = predict(g, hw, on(1, 1));
  CHECK(p.host_dispatch_s == Approx(1e-3));  // not once per parameter tensor
}

TEST_CASE("The host's spread widens the interval of a host-bound step", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("h100");
  hw.device.gemm.residual_sigma = hw.device.conv.residual_sigma = hw.device.memory.residual_sigma = 0.1;  // a calibrated profile
  hw.device.host_dispatch_s = {{"memory", 1e-3}, {"gemm", 1e-3}, {"conv_forward", 1e-3}};
  RunConfig c = on(1, 1);
  c.inference = true;
  const Graph g = network("resnet18", 2);
  const Prediction exact_host = predict(g, hw, c);
  hw.device.host_dispatch_sigma = 0.2;
  const Prediction spread_host = predict(g, hw, c);
  CHECK(spread_host.iteration_s == Approx(exact_host.iteration_s));
  CHECK(spread_host.iteration_low_s < exact_host.iteration_low_s);
  CHECK(spread_host.iteration_high_s > exact_host.iteration_high_s);
  CHECK(spread_host.iteration_low_s == Approx(exact_host.host_dispatch_s * std::exp(-1.96 * 0.2)).epsilon(0.05));  // host-bound: the host's bound
}

TEST_CASE("Data-parallel ranks wait for the slowest: the computation stretches by the profile's sync_wait", "[prediction]") {
  const Graph g = network("resnet18", 4);
  HardwareProfile hw = find_hardware_profile("cpu");
  const Prediction plain = predict(g, hw, on(1, 2));
  CHECK(plain.sync_wait == 1.0);
  hw.device.sync_wait = {{2, 1.05}};
  const Prediction waiting = predict(g, hw, on(1, 2));
  CHECK(waiting.sync_wait == Approx(1.05));
  CHECK(waiting.compute_s == Approx(1.05 * plain.compute_s));
  CHECK(waiting.forward_s + waiting.backward_s + waiting.update_s == Approx(waiting.compute_s));
  // CPU: the all-reduces follow backward, so the step is the stretched computation plus them.
  CHECK(waiting.iteration_s - waiting.compute_s == Approx(plain.iteration_s - plain.compute_s));
  // More ranks wait longer (beyond the measured 2: the spread it implies); one rank and inference never wait.
  const Prediction many = predict(g, hw, on(16, 2));
  CHECK(many.sync_wait > 1.05);
  CHECK(predict(g, hw, on(1, 1)).sync_wait == 1.0);
  RunConfig inference = on(1, 2);
  inference.inference = true;
  CHECK(predict(g, hw, inference).sync_wait == 1.0);
  // A weak-scaling sweep prices the step once and stretches it per node count.
  const auto points = scale([](std::int64_t b) { return network("resnet18", b); }, hw, on(1, 2), 4, {1, 4, 64}, Scaling::weak);
  REQUIRE(points.size() == 3);
  CHECK(points[0].prediction.sync_wait == Approx(1.05));
  CHECK(points[1].prediction.sync_wait < points[2].prediction.sync_wait);
  CHECK(points[2].prediction.compute_s == Approx(points[0].prediction.compute_s * points[2].prediction.sync_wait / 1.05));
}

TEST_CASE("A step's all-reduces are priced as a stream of calls where the profile measured one", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("cpu");
  FittedCommModel isolated;
  isolated.kind = CommModelKind::hockney;
  isolated.algorithm = "ring";
  isolated.params = {5e-5, 4e-9, 0.0};
  FittedCommModel stream = isolated;
  stream.mode = CommMode::stream;
  stream.params = {1e-5, 2e-9, 0.0};
  hw.communication = {isolated};
  RunConfig c = on(1, 2);
  const AllReducePricer only_isolated = allreduce_pricer(hw, c.plan);
  CHECK(only_isolated(1e6).second == Approx(comm_seconds(isolated, 1e6, 2)));
  hw.communication = {isolated, stream};
  const AllReducePricer with_stream = allreduce_pricer(hw, c.plan);
  CHECK(with_stream(1e6).second == Approx(comm_seconds(stream, 1e6, 2)));
  c.plan.allreduce = AllReduceAlgorithm::ring;
  CHECK(allreduce_pricer(hw, c.plan)(1e6).second == Approx(comm_seconds(stream, 1e6, 2)));
  // A step is priced by the same choice: cheaper with the stream's cheaper calls.
  const Graph g = network("resnet18", 4);
  hw.communication = {isolated};
  const double iso_comm = predict(g, hw, on(1, 2)).comm_s;
  hw.communication = {isolated, stream};
  CHECK(predict(g, hw, on(1, 2)).comm_s < iso_comm);
}

TEST_CASE("A step names what bounds it: compute, the network's bandwidth or its latency", "[prediction][scaling]") {
  HardwareProfile hw = find_hardware_profile("p3dn");  // one 100 Gb/s TCP interface per 8 V100s
  RunConfig config = on(1, 8);
  config.precision = Precision::fp16;
  // One node: NVLink hides the all-reduce behind backward.
  const Graph vgg = network("vgg16", 64);
  StepLimit one = step_limit(predict(vgg, hw, config), hw);
  CHECK(one.limit == StepLimitKind::compute);
  // 64 nodes: 553 MB of gradients a step through one shared TCP interface.
  config.plan.nodes = 64;
  const Prediction many = predict(vgg, hw, config);
  const StepLimit network_bound = step_limit(many, hw);
  CHECK(network_bound.limit == StepLimitKind::network);
  CHECK(many.overlap_cost_s > 0);
  CHECK(network_bound.network_s + network_bound.latency_s == Approx(many.comm_exposed_s + many.overlap_cost_s));
  CHECK(network_bound.network_s > network_bound.latency_s);
  // Nodes 2 ms apart on a fast link, a small network: every bucket pays the latency.
  hw.cluster.inter.latency_s = 2e-3;
  hw.cluster.inter.bandwidth = 1e11;
  const StepLimit latency_bound = step_limit(predict(network("resnet18", 2), hw, config), hw);
  CHECK(latency_bound.limit == StepLimitKind::latency);
  CHECK(latency_bound.latency_s > latency_bound.network_s);
  // The InfiniBand of the datasheet A100 nodes keeps ResNet-50 compute-bound on 8 nodes.
  const HardwareProfile a100 = find_hardware_profile("a100");
  RunConfig dgx = on(8, 8);
  dgx.precision = Precision::bf16;
  CHECK(step_limit(predict(network("resnet50", 64), a100, dgx), a100).limit == StepLimitKind::compute);
}

TEST_CASE("A torus too small for the run is named at the plan", "[prediction][errors]") {
  HardwareProfile torus = find_hardware_profile("a100");
  torus.cluster.topology = "torus";
  torus.cluster.torus_dims = {2, 2};
  RunConfig config = on(5, 8);
  CHECK_THROWS_WITH(predict(network("resnet18", 2), torus, config), Catch::Contains("cluster.torus_dims: the torus holds 4 nodes; the plan asks for 5"));
  config.plan.nodes = 4;
  CHECK(predict(network("resnet18", 2), torus, config).iteration_s > 0);
}

TEST_CASE("Overlapping a collective costs the kernels beside it what the profile's overlap_slowdown says", "[prediction]") {
  HardwareProfile hw = find_hardware_profile("p3dn");
  RunConfig config = on(8, 8);
  config.precision = Precision::fp16;
  const Graph vgg = network("vgg16", 64);
  // The datasheet's: NCCL's two channels on the one NIC, over 80 SMs.
  CHECK(overlap_slowdown(hw) == Approx(2.0 / 80));
  hw.device.overlap_slowdown = 0.0;
  const Prediction free_overlap = predict(vgg, hw, config);
  CHECK(free_overlap.overlap_cost_s == 0);
  hw.device.overlap_slowdown = 0.2;
  const Prediction costly = predict(vgg, hw, config);
  // The kernels beside the all-reduces slow by a fifth of the time they share with them: more than
  // nothing, less than a fifth of the whole communication.
  CHECK(costly.overlap_cost_s > 0);
  CHECK(costly.overlap_cost_s <= 0.2 * costly.comm_s + 1e-9);
  CHECK(costly.compute_s == Approx(free_overlap.compute_s + costly.overlap_cost_s).epsilon(1e-9));
  CHECK(costly.iteration_s > free_overlap.iteration_s);
  CHECK(costly.iteration_s <= free_overlap.iteration_s + costly.overlap_cost_s + 1e-9);
  // One device: nothing to overlap.
  CHECK(predict(vgg, hw, on(1, 1)).overlap_cost_s == 0);
  // A CPU's MPI progresses inside its calls: no such cost.
  CHECK(overlap_slowdown(find_hardware_profile("cpu")) == 0);
}

TEST_CASE("Persistent stragglers hold back more steps the more nodes a run spans", "[prediction]") {
  ClusterSpec c;
  CHECK(straggler_factor(c, 1000) == 1);
  c.straggler_share = 0.01;
  c.straggler_slowdown = 1.2;
  CHECK(straggler_factor(c, 1) == Approx(1 + 0.2 * 0.01));
  CHECK(straggler_factor(c, 100) == Approx(1 + 0.2 * (1 - std::pow(0.99, 100))));
  CHECK(straggler_factor(c, 100000) == Approx(1.2));
  HardwareProfile hw = find_hardware_profile("a100");
  hw.cluster.straggler_share = 0.01;
  hw.cluster.straggler_slowdown = 1.5;
  RunConfig few = on(2, 8), many = on(512, 8);
  few.precision = many.precision = Precision::bf16;
  const Graph rn = network("resnet50", 64);
  const Prediction a = predict(rn, hw, few), b = predict(rn, hw, many);
  CHECK(b.sync_wait > a.sync_wait);
  CHECK(b.sync_wait == Approx(sync_wait_factor(hw.device, 4096) * straggler_factor(hw.cluster, 512)));
  CHECK(step_limit(b, hw).limit == StepLimitKind::straggler);
}

TEST_CASE("Unmeasured NCCL on a datasheet GPU profile is priced by NCCL's own tuner; elsewhere it must be measured", "[prediction]") {
  const HardwareProfile a100 = find_hardware_profile("a100");
  RunConfig config = on(8, 8);
  config.precision = Precision::bf16;
  config.plan.allreduce_library = "nccl";
  const Prediction p = predict(network("resnet50", 64), a100, config);
  REQUIRE_FALSE(p.allreduces.empty());
  for (const AllReduceCall& c : p.allreduces) CHECK(c.algorithm.rfind("nccl:", 0) == 0);
  RunConfig cpu = on(2, 1);
  cpu.plan.allreduce_library = "nccl";
  CHECK_THROWS_WITH(predict(network("resnet18", 2), find_hardware_profile("cpu"), cpu), Catch::Contains("no fitted communication models"));
}
