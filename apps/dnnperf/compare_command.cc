// `dnnperf compare`: one training run (or inference) predicted on several hardware profiles side
// by side, for choosing what to buy or rent: time, throughput, memory, what bounds it and, with
// prices, what a million samples or an epoch costs.
#include "apps/dnnperf/compare_command.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "apps/dnnperf/cli_style.h"
#include "apps/dnnperf/model_parallel_options.h"
#include "apps/dnnperf/prediction_report.h"
#include "apps/dnnperf/run_options.h"
#include "apps/dnnperf/search_command.h"
#include "core/common/error.h"
#include "core/common/format.h"
#include "core/common/output_file.h"
#include "core/common/table.h"
#include "core/common/text_lists.h"
#include "networks/import/network_loader.h"
#include "predictor/large_model/plan_search.h"
#include "predictor/prediction/scaling.h"
#include "predictor/prediction/step_limit.h"

namespace dnnperf::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// An epoch as a person reads it: seconds, minutes or hours.
std::string duration(double seconds) {
  if (seconds < 120) return fixed(seconds, 1) + " s";
  if (seconds < 7200) return fixed(seconds / 60, 1) + " min";
  return fixed(seconds / 3600, 2) + " h";
}

// "a100=1.8,h100=3.2": US dollars per GPU-hour by profile name as --hardware spells it.
std::map<std::string, double> parse_prices(const std::string& text, const std::vector<std::string>& hardware) {
  std::map<std::string, double> prices;
  if (text.empty()) return prices;
  for (const std::string& item : split_list(text, "--gpu-hour-price")) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("--gpu-hour-price: '" + item + "' is not PROFILE=PRICE (for example a100=1.8)");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (std::find(hardware.begin(), hardware.end(), name) == hardware.end())
      throw InputError("--gpu-hour-price: '" + name + "' is not one of the profiles compared (--hardware)");
    // The command line's own rule for a positive number (finite, nothing after it).
    std::string checked = value;
    if (!positive()(checked).empty()) throw InputError("--gpu-hour-price: the price of " + name + ", '" + value + "', is not a positive number");
    prices[name] = std::stod(value);
  }
  return prices;
}

struct Row {
  std::string name;  // as --hardware spells it
  int gpus = 0;
  double iteration_s = 0;
  double per_s = 0;        // samples (data-parallel) or tokens (model-parallel) per second
  double memory_bytes = 0;
  bool fits = true;
  std::string bound;       // data-parallel: step_limit's name; model-parallel: the best plan
  double mfu = 0;          // model-parallel only
  std::optional<double> epoch_s;
  std::string error;       // why this profile gives no prediction (a dtype it lacks, no plan fits)
  nlohmann::json json;
};

Row data_parallel_row(const RunOptions& o, const Graph& g, const std::string& name, const HardwareProfile& hw, int nodes) {
  RunConfig config = run_config(o, hw);
  config.plan.nodes = nodes;
  const Prediction p = predict(g, hw, config);
  Row r;
  r.name = name;
  r.gpus = p.devices;
  r.iteration_s = p.iteration_s;
  r.per_s = p.samples_per_s;
  r.memory_bytes = p.memory.total();
  r.fits = p.memory.fits();
  r.epoch_s = p.epoch_s;
  r.json = prediction_json(p, g, false);
  if (config.inference) {
    r.bound = "-";
  } else {
    const StepLimit limit = step_limit(p, hw);
    r.bound = step_limit_name(limit.limit);
    add_step_limit(r.json, limit);
  }
  return r;
}

Row model_parallel_row(const RunOptions& o, const ParallelOptions& parallel, const std::string& name, const HardwareProfile& hw, int nodes) {
  const int gpus = nodes * (o.gpus_per_node > 0 ? o.gpus_per_node : hw.node.devices);
  ModelParallelEvaluator evaluator(transformer_of(o), hw);
  const PlanSearchResult result = search_plans(evaluator, search_space(o, parallel, hw, gpus), 1);
  Row r;
  r.name = name;
  r.gpus = gpus;
  if (result.best.empty()) {
    r.error = missed_memory(result);
    if (r.error.empty()) r.error = "no plan of these options on " + std::to_string(gpus) + " GPUs";
    return r;
  }
  const ModelParallelPrediction& p = result.best.front().prediction;
  r.iteration_s = p.iteration_s;
  r.per_s = p.tokens_per_s;
  r.memory_bytes = p.memory.total();
  r.fits = p.memory.fits();
  r.mfu = p.mfu;
  r.bound = plan_summary(p.plan);
  r.json = model_parallel_json(p);
  return r;
}

void run_compare(const RunOptions& o, const ParallelOptions& parallel, const std::string& price_text, const std::string& csv_path) {
  const std::vector<std::string> names = split_list(o.hardware, "--hardware");
  if (std::set<std::string>(names.begin(), names.end()).size() != names.size()) throw InputError("--hardware: a profile is named twice in '" + o.hardware + "'");
  const std::vector<int> node_counts = parse_node_counts(o.nodes);
  if (node_counts.size() != 1) throw InputError("--nodes: compare takes one node count; use `dnnperf scale` for several");
  const int nodes = node_counts.front();
  const bool model_parallel = parallel.any_given();
  if (!model_parallel && o.batch <= 0)
    throw InputError("--batch is required: samples per device (or --global-batch to compare a transformer's best model-parallel plans)");
  // An unknown name, a bad profile file or network, or a bad price stops here, before any work.
  std::vector<HardwareProfile> profiles;
  for (const std::string& name : names) profiles.push_back(find_hardware_profile(name));
  const std::map<std::string, double> prices = parse_prices(price_text, names);
  const std::optional<Graph> graph = model_parallel ? std::nullopt : std::optional<Graph>(load_network(o.network, load_options(o, o.batch)));

  std::vector<Row> rows;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    // What one profile cannot run (TF32 on a V100, FP8 before Hopper) is that profile's answer,
    // not a reason to drop the others.
    try {
      rows.push_back(model_parallel ? model_parallel_row(o, parallel, name, profiles[i], nodes) : data_parallel_row(o, *graph, name, profiles[i], nodes));
    } catch (const InputError& e) {
      Row r;
      r.name = name;
      r.error = e.what();
      rows.push_back(std::move(r));
    }
  }
  const Row* reference = nullptr;
  for (const Row& r : rows)
    if (r.error.empty()) {
      reference = &r;
      break;
    }
  if (!reference) {
    std::string why;
    for (const Row& r : rows) why += "\n  " + r.name + ": " + r.error;
    throw InputError("no profile compared gives a prediction:" + why);
  }
  const std::string unit = model_parallel ? "tokens" : "samples";
  // Dollars for a million samples (tokens), and for an epoch where the dataset is given.
  const auto cost_per_million = [&](const Row& r) { return prices.at(r.name) * r.gpus / 3600.0 / r.per_s * 1e6; };
  const auto cost_per_epoch = [&](const Row& r) { return prices.at(r.name) * r.gpus * *r.epoch_s / 3600.0; };

  Table t, csv;
  t.column("hardware", Table::left).column("GPUs").column(model_parallel ? "iteration s" : "iteration ms").column(unit + "/s").column("per GPU").column("x " + reference->name);
  if (model_parallel) t.column("MFU %");
  const bool epochs = !model_parallel && o.dataset_size > 0;
  if (epochs) t.column("epoch");
  t.column("mem GiB");
  if (!prices.empty()) {
    t.column("$/GPU-h").column("$ per 1M " + unit);
    if (epochs) t.column("$ per epoch");
  }
  t.column(model_parallel ? "best plan" : "bound", Table::left).column("", Table::left);
  for (const char* column : {"hardware", "gpus", "iteration_s", "per_s", "per_gpu_per_s", "speedup", "mfu", "epoch_s", "memory_bytes", "fits_in_memory",
                             "gpu_hour_price", "cost_per_million", "cost_per_epoch", "bound", "error"})
    csv.column(column);
  const auto full = [](double v) { return significant(v, 9); };
  nlohmann::json items = nlohmann::json::array();
  for (const Row& r : rows) {
    const bool priced = prices.count(r.name) > 0 && r.error.empty();
    nlohmann::json item = {{"hardware", r.name}};
    if (!r.error.empty()) {
      std::vector<std::string> cells(t.columns(), "");
      cells[0] = r.name;
      cells[1] = r.gpus ? std::to_string(r.gpus) : "";
      cells[cells.size() - 2] = "no prediction (below)";
      t.row(std::move(cells));
      csv.row({r.name, r.gpus ? std::to_string(r.gpus) : "", "", "", "", "", "", "", "", "", "", "", "", "", r.error});
      item["error"] = r.error;
      items.push_back(std::move(item));
      continue;
    }
    const double speedup = r.per_s / reference->per_s;
    std::vector<std::string> cells = {r.name, std::to_string(r.gpus), model_parallel ? fixed(r.iteration_s, 3) : ms(r.iteration_s),
                                      fixed(r.per_s, 0), fixed(r.per_s / r.gpus, model_parallel ? 0 : 1), fixed(speedup, 2)};
    if (model_parallel) cells.push_back(fixed(100 * r.mfu, 1));
    if (epochs) cells.push_back(r.epoch_s ? duration(*r.epoch_s) : "");
    cells.push_back(fixed(r.memory_bytes / kGiB, 1));
    if (!prices.empty()) {
      cells.push_back(priced ? fixed(prices.at(r.name), 2) : "");
      cells.push_back(priced ? fixed(cost_per_million(r), 2) : "");
      if (epochs) cells.push_back(priced && r.epoch_s ? fixed(cost_per_epoch(r), 2) : "");
    }
    cells.push_back(r.bound);
    cells.push_back(r.fits ? "" : "does not fit");
    t.row(std::move(cells));
    csv.row({r.name, std::to_string(r.gpus), full(r.iteration_s), full(r.per_s), full(r.per_s / r.gpus), full(speedup), model_parallel ? full(r.mfu) : "",
             r.epoch_s ? full(*r.epoch_s) : "", full(r.memory_bytes), r.fits ? "1" : "0", priced ? full(prices.at(r.name)) : "",
             priced ? full(cost_per_million(r)) : "", priced && r.epoch_s ? full(cost_per_epoch(r)) : "", r.bound, ""});
    item["speedup"] = speedup;
    item["prediction"] = r.json;
    if (priced) {
      item["gpu_hour_price"] = prices.at(r.name);
      item["cost_per_million_" + unit] = cost_per_million(r);
      if (r.epoch_s) item["cost_per_epoch"] = cost_per_epoch(r);
    }
    items.push_back(std::move(item));
  }
  if (!csv_path.empty()) write_file_atomically(csv_path, "CSV file", [&](std::ostream& out) { csv.print_csv(out); });
  if (o.json) {
    print_json(std::cout, {{"network", o.network}, {"nodes", nodes}, {"reference", reference->name}, {"hardware", items}}, "compare");
    return;
  }
  std::cout << o.network << ", " << (o.inference ? "inference" : "training") << ", " << nodes << (nodes == 1 ? " node" : " nodes") << " of each profile, "
            << o.dtype << (model_parallel ? ", the best model-parallel plan on each" : ", batch " + std::to_string(o.batch) + " per device") << "\n\n";
  t.print(std::cout);
  for (const Row& r : rows)
    if (!r.error.empty()) std::cout << "\n" << r.name << ": " << r.error;
  if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.error.empty(); })) std::cout << "\n";
  std::cout << "\nx " << reference->name << ": throughput over " << reference->name << "'s (the first profile with a prediction); per GPU: " << unit
            << "/s per GPU";
  if (!prices.empty()) std::cout << "; $: the GPU-hour prices given times GPUs times the time";
  std::cout << "\n";
  if (!csv_path.empty()) std::cout << "\nwrote " << csv_path << "\n";
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto parallel = std::make_shared<ParallelOptions>();
  auto prices = std::make_shared<std::string>();
  auto csv = std::make_shared<std::string>();
  o->hardware = "v100,a100,h100,h200";
  CLI::App* c = app.add_subcommand("compare", "Predict one run on several hardware profiles side by side: time, throughput, memory, cost");
  c->footer("Examples:\n  dnnperf compare -n resnet50 -b 256 --dtype bf16 --hardware a100,h100,h200 --dataset-size 1281167 \\\n"
            "      --gpu-hour-price a100=1.8,h100=3.0,h200=3.8\n"
            "  dnnperf compare -n llama3-70b --hardware a100,h100 --nodes 8 --global-batch 512 --dtype bf16 --optimizer adam");
  add_run_options(c, *o);
  c->get_option("--hardware")->description("hardware profiles to compare, comma-separated: short names or JSON paths; the first is the reference");
  c->add_option("--batch,-b", o->batch, "samples per device (data parallelism; a transformer's model-parallel plans take --global-batch)")->check(positive());
  add_parallel_options(c, *parallel, false);
  c->add_option("--nodes", o->nodes, "number of nodes of each profile")->capture_default_str();
  c->add_option("--gpu-hour-price", *prices, "US dollars per GPU-hour for some of the profiles, as PROFILE=PRICE,...: cost per million samples (or tokens) and per epoch");
  c->add_option("--csv", *csv, "also write the rows to this CSV file");
  c->callback([o, parallel, prices, csv] { run_compare(*o, *parallel, *prices, *csv); });
}

}  // namespace dnnperf::cli
