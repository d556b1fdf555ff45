// How long dnnperf takes to build a network (shape inference included) and lower it to kernels.
// Targets (issue #2): GPT-3 175B and a 1,000-node randomly wired network each under 5 ms on one core.
//
//   build/bin/graph_speed --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "core/lowering/lower.h"
#include "networks/zoo/zoo.h"

namespace {

using dnnperf::build_zoo_network;
using dnnperf::Graph;
using dnnperf::Kernel;

void build_and_lower(benchmark::State& state, const char* spec) {
  std::size_t kernels = 0, ops = 0;
  for (auto _ : state) {
    const Graph g = build_zoo_network(spec);
    const std::vector<Kernel> k = dnnperf::lower(g);
    benchmark::DoNotOptimize(k.data());
    kernels = k.size();
    ops = g.ops().size();
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["kernels"] = static_cast<double>(kernels);
}

void build_only(benchmark::State& state, const char* spec) {
  for (auto _ : state) {
    const Graph g = build_zoo_network(spec);
    benchmark::DoNotOptimize(g.ops().data());
  }
}

void lower_only(benchmark::State& state, const char* spec) {
  const Graph g = build_zoo_network(spec);
  std::vector<Kernel> kernels;
  for (auto _ : state) {
    kernels.clear();
    dnnperf::lower(g, {}, kernels);
    benchmark::DoNotOptimize(kernels.data());
  }
}

}  // namespace

BENCHMARK_CAPTURE(build_and_lower, gpt3_175b, "gpt3-175b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(build_and_lower, randwire_ws_1000, "randwire-ws:nodes=1000,stages=1,seed=1")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(build_and_lower, resnet50, "resnet50")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(build_only, gpt3_175b, "gpt3-175b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(lower_only, gpt3_175b, "gpt3-175b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(build_only, randwire_ws_1000, "randwire-ws:nodes=1000,stages=1,seed=1")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(lower_only, randwire_ws_1000, "randwire-ws:nodes=1000,stages=1,seed=1")->Unit(benchmark::kMillisecond);
