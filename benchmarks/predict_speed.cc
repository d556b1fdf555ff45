// How long dnnperf takes to predict. Targets (issue #3): one ResNet-50 iteration on 1,024 GPUs under
// 0.2 ms; a 13-point weak-scaling sweep 1..4096 nodes under 5 ms; a GPT-3 175B data-parallel
// iteration under 1 ms. The network is built once (as a sweep does); each iteration lowers, prices
// and simulates.
//
//   build/bin/predict_speed --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "predictor/prediction/scaling.h"
#include "networks/zoo/zoo.h"

namespace {

using namespace dnnperf;

Graph network(const char* name, std::int64_t batch, std::optional<std::int64_t> seq = std::nullopt) {
  NetworkOptions o;
  o.batch = batch;
  o.sequence = seq;
  return build_zoo_network(name, o);
}

RunConfig on(int nodes) {
  RunConfig c;
  c.plan.nodes = nodes;
  c.plan.devices_per_node = 8;
  return c;
}

void resnet50_1024_gpus(benchmark::State& state) {
  const HardwareProfile hw = find_hardware_profile("a100");
  const Graph g = network("resnet50", 256);
  for (auto _ : state) benchmark::DoNotOptimize(predict(g, hw, on(128)).iteration_s);
}

void resnet50_sweep_1_to_4096_nodes(benchmark::State& state) {
  const HardwareProfile hw = find_hardware_profile("a100");
  const Graph g = network("resnet50", 256);
  const std::vector<int> nodes = parse_node_counts("1..4096");
  for (auto _ : state) {
    const auto points = scale([&](std::int64_t) { return g; }, hw, on(1), 256, nodes, Scaling::weak);
    benchmark::DoNotOptimize(points.back().speedup);
  }
  state.counters["points"] = static_cast<double>(nodes.size());
}

void gpt3_175b_data_parallel(benchmark::State& state) {
  const HardwareProfile hw = find_hardware_profile("h100");
  const Graph g = network("gpt3-175b", 1, 2048);
  RunConfig c = on(64);
  c.precision = Precision::bf16;
  c.optimizer = Optimizer::adam;
  for (auto _ : state) benchmark::DoNotOptimize(predict(g, hw, c).iteration_s);
}

}  // namespace

BENCHMARK(resnet50_1024_gpus)->Unit(benchmark::kMillisecond);
BENCHMARK(resnet50_sweep_1_to_4096_nodes)->Unit(benchmark::kMillisecond);
BENCHMARK(gpt3_175b_data_parallel)->Unit(benchmark::kMillisecond);
