// How fast model-parallel plans are evaluated (issue 51: 10^5 full configurations a second on one
// core, memory check plus timeline) and how long a whole search takes, on GPT-3 175B over 1,024
// A100s (global batch 1,536), the parts already priced as a search prices them once.
//
//   build/bin/plan_search --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "predictor/large_model/plan_search.h"

namespace {

using namespace dnnperf;

struct Setup {
  HardwareProfile hw = find_hardware_profile("a100");
  ModelParallelEvaluator evaluator{*find_transformer_spec("gpt3-175b"), hw};
  PlanSearchSpace space;
  std::vector<ModelParallelPlan> plans;
  Setup() {
    space.gpus = 1024;
    space.shape.global_batch = 1536;
    plans = enumerate_plans(evaluator.spec(), hw, space);
    ModelParallelMemory m;
    for (const ModelParallelPlan& p : plans) evaluator.lower_bound_if_fits(p, m);  // price every part once
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

// Every plan of the space in turn: the memory check, then the simulated iteration.
void BM_FullPlanEvaluation(benchmark::State& state) {
  Setup& s = setup();
  std::size_t i = 0;
  ModelParallelMemory m;
  for (auto _ : state) {
    const ModelParallelPlan& p = s.plans[i++ % s.plans.size()];
    benchmark::DoNotOptimize(s.evaluator.lower_bound_if_fits(p, m));
    benchmark::DoNotOptimize(s.evaluator.iteration_seconds(p));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["plans_in_space"] = static_cast<double>(s.plans.size());
}
BENCHMARK(BM_FullPlanEvaluation);

// The memory check alone (what every plan of a search gets).
void BM_MemoryCheck(benchmark::State& state) {
  Setup& s = setup();
  std::size_t i = 0;
  ModelParallelMemory m;
  for (auto _ : state) benchmark::DoNotOptimize(s.evaluator.lower_bound_if_fits(s.plans[i++ % s.plans.size()], m));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MemoryCheck);

// A whole search for the best 5, bounds pruning what cannot enter.
void BM_Search(benchmark::State& state) {
  Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(search_plans(s.evaluator, s.space, 5));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(s.plans.size()));
}
BENCHMARK(BM_Search)->Unit(benchmark::kMillisecond);

}  // namespace
