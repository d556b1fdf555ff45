// `dnnperf search`: every model-parallel plan of a transformer on N GPUs, the best K.
#include "apps/dnnperf/search_command.h"

#include <iostream>
#include <memory>

#include "apps/dnnperf/cli_style.h"
#include "apps/dnnperf/model_parallel_options.h"
#include "core/common/error.h"
#include "core/common/format.h"
#include "core/common/output_file.h"
#include "core/common/table.h"
#include "predictor/large_model/plan_search.h"

namespace dnnperf::cli {

PlanSearchSpace search_space(const RunOptions& o, const ParallelOptions& parallel, const HardwareProfile& hw, int gpus) {
  // The plan reader checks the options; its degrees are what the search varies.
  PlanSearchSpace s;
  s.gpus = gpus;
  s.shape = model_parallel_plan(o, parallel, hw, 1);
  return s;
}

std::string missed_memory(const PlanSearchResult& r) {
  if (!r.closest) return "";
  return "no plan fits in memory; the closest, " + plan_summary(*r.closest) + ", needs " +
         fixed(r.closest_memory.total() / (1024.0 * 1024 * 1024), 1) + " GiB per GPU, " +
         fixed(r.closest_memory.shortfall() / (1024.0 * 1024 * 1024), 1) + " GiB more than the " +
         fixed(r.closest_memory.capacity / (1024.0 * 1024 * 1024), 1) + " GiB there are";
}

namespace {

void run_search(const RunOptions& o, const ParallelOptions& parallel, int gpus, int top) {
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  ModelParallelEvaluator evaluator(transformer_of(o), hw);
  const PlanSearchResult r = search_plans(evaluator, search_space(o, parallel, hw, gpus), top);
  if (o.json) {
    nlohmann::json j;
    j["network"] = evaluator.spec().name;
    j["hardware"] = hw.name;
    j["gpus"] = gpus;
    j["configs_evaluated"] = r.configs_evaluated;
    j["configs_fitting"] = r.configs_fitting;
    j["configs_simulated"] = r.configs_simulated;
    j["seconds"] = r.seconds;
    j["best"] = nlohmann::json::array();
    for (const RankedPlan& p : r.best) {
      nlohmann::json e = model_parallel_json(p.prediction);
      e["chance_fastest"] = p.chance_fastest;
      j["best"].push_back(std::move(e));
    }
    if (r.closest) {
      j["closest"] = plan_json(*r.closest);
      j["closest"]["memory_bytes"] = r.closest_memory.total();
      j["closest"]["shortfall_bytes"] = r.closest_memory.shortfall();
    }
    print_json(std::cout, j, "search");
  } else {
    std::cout << evaluator.spec().name << " on " << gpus << " x " << hw.name << ": " << r.configs_evaluated << " plans checked, "
              << r.configs_fitting << " fit in memory, " << r.configs_simulated << " could beat the best and were simulated, in "
              << fixed(r.seconds, 2) << " s\n\n";
    if (!r.best.empty()) {
      Table t;
      for (const char* column : {"#", "iteration s", "95% interval", "tokens/s", "MFU %", "mem GiB", "P(fastest)"}) t.column(column);
      t.column("plan", Table::left);
      int rank = 0;
      for (const RankedPlan& p : r.best) {
        const ModelParallelPrediction& m = p.prediction;
        t.row({std::to_string(++rank), fixed(m.iteration_s, 3), fixed(m.low_s, 3) + ".." + fixed(m.high_s, 3), fixed(m.tokens_per_s, 0),
               fixed(100 * m.mfu, 1), fixed(m.memory.total() / (1024.0 * 1024 * 1024), 1), fixed(p.chance_fastest, 2), plan_summary(m.plan)});
      }
      t.print(std::cout);
    }
  }
  if (r.best.empty()) throw InputError(missed_memory(r));
}

}  // namespace

void add_search_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto parallel = std::make_shared<ParallelOptions>();
  auto gpus = std::make_shared<int>(0);
  auto top = std::make_shared<int>(5);
  CLI::App* c = app.add_subcommand("search", "Find the fastest model-parallel plans of a transformer that fit in memory");
  c->footer("Example:\n  dnnperf search -n gpt3-175b --hardware a100 --gpus 1024 --global-batch 1536 --top 5");
  c->add_option("--network,-n", o->network, "a decoder transformer: zoo name or spec, or a dnnperf.transformer FILE.json")->required();
  c->add_option("--hardware", o->hardware, "hardware profile: short name or a JSON path")->capture_default_str();
  c->add_option("--gpus", *gpus, "GPUs in all (whole nodes, or part of one)")->required()->check(positive());
  c->add_option("--gpus-per-node", o->gpus_per_node, "devices used per node (default: all of the profile's node)")->check(positive());
  c->add_option("--dtype", o->dtype, "bf16 (default), fp8, fp16, tf32 or fp32");
  c->add_option("--seq", o->sequence, "tokens per sequence (default: the model's context)")->check(positive());
  c->add_option("--top", *top, "plans to list")->capture_default_str()->check(positive());
  c->add_flag("--json", o->json, "print one JSON object");
  add_parallel_options(c, *parallel, false);
  c->callback([o, parallel, gpus, top] { run_search(*o, *parallel, *gpus, *top); });
}

}  // namespace dnnperf::cli
