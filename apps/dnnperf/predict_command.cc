#include "apps/dnnperf/predict_command.h"

#include <iostream>
#include <memory>
#include <optional>

#include "apps/dnnperf/cli_style.h"
#include "apps/dnnperf/model_parallel_options.h"
#include "apps/dnnperf/prediction_report.h"
#include "apps/dnnperf/run_options.h"
#include "core/common/error.h"
#include "core/common/format.h"
#include "core/common/output_file.h"
#include "networks/import/network_loader.h"
#include "predictor/prediction/scaling.h"

namespace dnnperf::cli {
namespace {

void run_model_parallel(const RunOptions& o, const ParallelOptions& parallel, const HardwareProfile& hw, int nodes) {
  const TransformerSpec spec = transformer_of(o);
  const ModelParallelPrediction p = predict_model_parallel(spec, hw, model_parallel_plan(o, parallel, hw, nodes));
  if (o.json) print_json(std::cout, model_parallel_json(p), "predict");
  else print_model_parallel(std::cout, p);
}

void run_predict(const RunOptions& o, const ParallelOptions& parallel, bool summary) {
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  const std::vector<int> nodes = parse_node_counts(o.nodes);
  if (nodes.size() != 1) throw InputError("--nodes: predict takes one node count; use `dnnperf scale` for several");
  if (parallel.any_given()) return run_model_parallel(o, parallel, hw, nodes[0]);
  if (o.batch <= 0) throw InputError("--batch is required: samples per device (or --global-batch with --tp/--pp for a model-parallel plan)");
  RunConfig config = run_config(o, hw);
  config.plan.nodes = nodes[0];
  const Graph g = load_network(o.network, load_options(o, o.batch));
  const Prediction p = predict(g, hw, config);
  const std::optional<StepLimit> limit = config.inference ? std::nullopt : std::optional<StepLimit>(step_limit(p, hw));
  if (o.json) {
    nlohmann::json j = prediction_json(p, g, true);
    if (limit) add_step_limit(j, *limit);
    print_json(std::cout, j, "predict");
  } else {
    print_prediction(std::cout, p, g, summary);
    if (limit) print_step_limit(std::cout, *limit);
    if (const double f = co_run_factor(hw.device, config.plan.devices_per_node); f != 1.0)
      std::cout << "co-running          every kernel " << fixed(f, 3) << "x its time alone: " << config.plan.devices_per_node
                << " ranks share a node (profile's co_run_slowdown)\n";
    if (p.sync_wait != 1.0)
      std::cout << "waiting             the computation " << fixed(p.sync_wait, 3) << "x a rank's own: each step waits for the slowest of "
                << p.devices << " ranks (profile's " << (hw.device.sync_wait.empty() ? "step_jitter and speed_spread" : "sync_wait")
                << (straggler_factor(hw.cluster, config.plan.nodes) != 1.0 ? ", and its persistent stragglers: cluster.straggler_share" : "") << ")\n";
  }
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto parallel = std::make_shared<ParallelOptions>();
  auto summary = std::make_shared<bool>(false);
  CLI::App* c = app.add_subcommand("predict", "Predict one training iteration (or inference) of a network on a cluster");
  c->footer("Examples:\n  dnnperf predict -n resnet50 --hardware a100 -b 64 --nodes 4 --summary\n  dnnperf predict -n gpt2 --seq 1024 --hardware h100 -b 8 --dtype bf16 --optimizer adam\n"
            "  dnnperf predict -n gpt3-175b --hardware a100 --nodes 8 --tp 8 --pp 8 --interleave 3 \\\n"
            "      --micro-batch 1 --global-batch 64 --recompute selective --sequence-parallel --dtype bf16");
  add_run_options(c, *o);
  c->add_option("--batch,-b", o->batch, "samples per device (data parallelism; a model-parallel plan takes --micro-batch and --global-batch)")->check(positive());
  add_parallel_options(c, *parallel, true);
  c->add_option("--nodes", o->nodes, "number of nodes")->capture_default_str();
  c->add_flag("--summary", *summary, "omit the per-layer table");
  c->callback([o, parallel, summary] { run_predict(*o, *parallel, *summary); });
}

}  // namespace dnnperf::cli
