#include "apps/dnnperf/predict_command.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/dnnperf/cli_style.h"
#include "apps/dnnperf/prediction_report.h"
#include "apps/dnnperf/run_options.h"
#include "apps/dnnperf/search_command.h"
#include "core/common/error.h"
#include "core/common/format.h"
#include "core/common/output_file.h"
#include "core/common/table.h"
#include "networks/import/network_loader.h"
#include "predictor/prediction/scaling.h"

namespace dnnperf::cli {
namespace {

// A transformer trained with the best model-parallel plan at each node count (the global batch
// fixed): tokens/s and model-FLOPs utilisation against GPUs.
void run_model_parallel_scale(const RunOptions& o, const ParallelOptions& parallel, const std::vector<int>& nodes, const HardwareProfile& hw,
                              const std::string& csv_path) {
  ModelParallelEvaluator evaluator(transformer_of(o), hw);
  const int per_node = o.gpus_per_node > 0 ? o.gpus_per_node : hw.node.devices;
  Table t, csv;
  for (const char* column : {"nodes", "GPUs", "iteration s", "tokens/s", "TFLOP/s/GPU", "MFU %", "mem GiB"}) t.column(column);
  t.column("best plan", Table::left);
  for (const char* column : {"nodes", "gpus", "iteration_s", "low_s", "high_s", "tokens_per_s", "model_tflops_per_gpu", "mfu", "memory_bytes", "tp", "pp",
                             "interleave", "dp", "micro_batch", "zero", "recompute", "sequence_parallel", "configs_evaluated"})
    csv.column(column);
  nlohmann::json points = nlohmann::json::array();
  const auto full = [](double v) { return significant(v, 9); };
  for (const int n : nodes) {
    const int gpus = n * per_node;
    PlanSearchResult r;
    try {
      r = search_plans(evaluator, search_space(o, parallel, hw, gpus), 1);
    } catch (const InputError& e) {
      t.row({std::to_string(n), std::to_string(gpus), "", "", "", "", "", e.what()});
      continue;
    }
    if (r.best.empty()) {
      t.row({std::to_string(n), std::to_string(gpus), "", "", "", "", "", missed_memory(r)});
      continue;
    }
    const ModelParallelPrediction& p = r.best.front().prediction;
    const ModelParallelPlan& plan = p.plan;
    t.row({std::to_string(n), std::to_string(gpus), fixed(p.iteration_s, 3), fixed(p.tokens_per_s, 0), fixed(p.model_tflops_per_gpu, 1),
           fixed(100 * p.mfu, 1), fixed(p.memory.total() / (1024.0 * 1024 * 1024), 1), plan_summary(plan)});
    csv.row({std::to_string(n), std::to_string(gpus), full(p.iteration_s), full(p.low_s), full(p.high_s), full(p.tokens_per_s), full(p.model_tflops_per_gpu),
             full(p.mfu), full(p.memory.total()), std::to_string(plan.tp), std::to_string(plan.pp), std::to_string(plan.virtual_stages),
             std::to_string(plan.dp()), std::to_string(plan.micro_batch), std::to_string(plan.zero), std::string(recompute_name(plan.recompute)),
             plan.sequence_parallel ? "1" : "0", std::to_string(r.configs_evaluated)});
    nlohmann::json point = model_parallel_json(p);
    point["configs_evaluated"] = r.configs_evaluated;
    points.push_back(std::move(point));
  }
  if (!csv_path.empty()) write_file_atomically(csv_path, "CSV file", [&](std::ostream& out) { csv.print_csv(out); });
  if (o.json) {
    print_json(std::cout, {{"network", evaluator.spec().name}, {"hardware", hw.name}, {"points", points}}, "scale");
    return;
  }
  std::cout << evaluator.spec().name << " on " << hw.name << " nodes of " << per_node << ", the best plan at each count (global batch "
            << search_space(o, parallel, hw, per_node).shape.global_batch << ")\n\n";
  t.print(std::cout);
  std::cout << "\nbound: compute while what is not the kernels' own work (exposed communication, waiting for\n"
               "the slowest rank or for the host) takes under a tenth of the step; else the largest of network\n"
               "(exposed communication's bandwidth part), latency (its per-call part), straggler, host\n";
  if (!csv_path.empty()) std::cout << "\nwrote " << csv_path << "\n";
}

void run_scale(const RunOptions& o, const ParallelOptions& parallel, const std::string& scaling_name, const std::string& csv_path) {
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  if (parallel.any_given()) return run_model_parallel_scale(o, parallel, parse_node_counts(o.nodes), hw, csv_path);
  if (o.batch <= 0) throw InputError("--batch is required: samples per device (or --global-batch to scale a transformer with the best model-parallel plan)");
  const RunConfig config = run_config(o, hw);
  const std::vector<int> nodes = parse_node_counts(o.nodes);
  Scaling scaling = Scaling::weak;
  if (scaling_name == "strong") scaling = Scaling::strong;
  else if (scaling_name != "weak") throw InputError("--scaling: unknown value '" + scaling_name + "' (weak or strong)");
  std::optional<Graph> last;
  const auto points = scale(
      [&](std::int64_t batch) { return load_network(o.network, load_options(o, batch)); }, hw, config, o.batch, nodes, scaling);
  const Graph g = load_network(o.network, load_options(o, points.front().prediction.batch_per_device));

  if (!csv_path.empty()) {
    Table t;
    for (const char* column : {"nodes", "devices", "batch_per_device", "accumulation_steps", "global_batch", "iteration_s", "samples_per_s", "speedup", "efficiency",
                               "compute_s", "comm_s", "comm_exposed_s", "memory_per_device_bytes", "fits_in_memory", "sync_wait", "bound"})
      t.column(column);
    const auto full = [](double v) { return significant(v, 9); };
    for (const ScalePoint& s : points) {
      const Prediction& p = s.prediction;
      t.row({std::to_string(s.nodes), std::to_string(p.devices), std::to_string(p.batch_per_device), std::to_string(p.config.accumulation_steps),
             std::to_string(p.global_batch), full(p.iteration_s),
             full(p.samples_per_s), full(s.speedup), full(s.efficiency), full(p.compute_s), full(p.comm_s), full(p.comm_exposed_s),
             full(p.memory.total()), p.memory.fits() ? "1" : "0", full(p.sync_wait), step_limit_name(s.limit.limit)});
    }
    write_file_atomically(csv_path, "CSV file", [&](std::ostream& csv) { t.print_csv(csv); });
  }
  if (o.json) {
    nlohmann::json j;
    j["network"] = g.name();
    j["hardware"] = hw.name;
    j["scaling"] = scaling_name;
    j["points"] = nlohmann::json::array();
    for (const ScalePoint& s : points) {
      nlohmann::json point = prediction_json(s.prediction, g, false);
      point["speedup"] = s.speedup;
      point["efficiency"] = s.efficiency;
      add_step_limit(point, s.limit);
      j["points"].push_back(std::move(point));
    }
    print_json(std::cout, j, "scale");
    return;
  }
  const Prediction& first = points.front().prediction;
  // The wait for the slowest rank, where the profile measured it (DeviceSpec::sync_wait).
  const bool waits = std::any_of(points.begin(), points.end(), [](const ScalePoint& s) { return s.prediction.sync_wait != 1.0; });
  std::cout << g.name() << " on " << hw.name << " nodes of " << first.config.plan.devices_per_node << ", " << scaling_name
            << " scaling, batch " << o.batch << (scaling == Scaling::weak ? " per device" : " global")
            << (o.accumulate > 1 ? (scaling == Scaling::weak ? " x " : ", ") + std::to_string(o.accumulate) + " micro-batches" + (scaling == Scaling::weak ? "" : " per device at the first point") : "") << ", "
            << precision_name(first.config.precision) << ", " << (first.config.fused_optimizer ? "fused " : "") << optimizer_name(first.config.optimizer) << ", gradients "
            << sync_name(first.config.plan.sync) << "\n\n";
  Table t;
  for (const char* column : {"nodes", "GPUs", "batch", "iteration ms", "samples/s", "speedup", "eff %", "compute ms", "exposed ms", "mem GiB"}) t.column(column);
  if (waits) t.column("wait");
  t.column("bound", Table::left);
  t.column("", Table::left);
  for (const ScalePoint& s : points) {
    const Prediction& p = s.prediction;
    const std::string batch = std::to_string(p.batch_per_device) + (p.config.accumulation_steps > 1 ? " x " + std::to_string(p.config.accumulation_steps) : "");
    std::vector<std::string> cells = {std::to_string(s.nodes), std::to_string(p.devices), batch, ms(p.iteration_s),
                                      fixed(p.samples_per_s, 0), fixed(s.speedup, 1), fixed(100 * s.efficiency, 1), ms(p.compute_s),
                                      ms(p.comm_exposed_s), fixed(p.memory.total() / (1024.0 * 1024 * 1024), 1)};
    if (waits) cells.push_back(fixed(p.sync_wait, 3) + "x");
    cells.push_back(step_limit_name(s.limit.limit));
    cells.push_back(p.memory.fits() ? "" : "does not fit");
    t.row(std::move(cells));
  }
  t.print(std::cout);
  if (waits && hw.device.sync_wait.empty())
    std::cout << "\nwait: the computation's factor for waiting, every step, for the slowest rank (the slowest of that many\n"
                 "ranks whose devices' speeds spread by the profile's speed_spread, " << fixed(100 * hw.device.speed_spread, 2)
              << "%, and whose steps wander by its step_jitter, " << fixed(100 * hw.device.step_jitter, 2) << "%)\n";
  else if (waits)
    std::cout << "\nwait: the computation's factor for waiting, every step, for the slowest rank (profile's sync_wait, measured at "
              << hw.device.sync_wait.rbegin()->first << " ranks; beyond, the slowest of that many independently wandering ranks)\n";
  std::cout << "\nbound: compute while what is not the kernels' own work (exposed communication, waiting for\n"
               "the slowest rank or for the host) takes under a tenth of the step; else the largest of network\n"
               "(exposed communication's bandwidth part), latency (its per-call part), straggler, host\n";
  if (!csv_path.empty()) std::cout << "\nwrote " << csv_path << " (plot it: /usr/bin/python3 scripts/plot_scaling.py " << csv_path << ")\n";
}

}  // namespace

void add_scale_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto parallel = std::make_shared<ParallelOptions>();
  o->nodes = "1..64";
  auto scaling = std::make_shared<std::string>("weak");
  auto csv = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("scale", "Predict how training throughput scales over node counts");
  c->footer("Examples:\n  dnnperf scale -n resnet50 --hardware a100 -b 64 --nodes 1..1024 --csv resnet50.csv\n"
            "  dnnperf scale -n gpt3-175b --hardware a100 --nodes 16..256 --global-batch 1536 --csv gpt3.csv");
  add_run_options(c, *o);
  c->add_option("--batch,-b", o->batch, "samples per device (weak) or in total (strong)")->check(positive());
  add_parallel_options(c, *parallel, false);
  c->add_option("--nodes", o->nodes, "node counts: a list 1,2,8, a range of powers of two 1..4096, or A..B:STEP")->capture_default_str();
  c->add_option("--scaling", *scaling, "weak (fixed batch per device) or strong (fixed global batch)")->capture_default_str();
  c->add_option("--csv", *csv, "also write the points to this CSV file");
  c->callback([o, parallel, scaling, csv] { run_scale(*o, *parallel, *scaling, *csv); });
}

}  // namespace dnnperf::cli
