#include "apps/dnnperf/schedule_command.h"

#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/common/format.h"
#include "core/common/error.h"
#include "core/common/output_file.h"
#include "apps/dnnperf/cli_style.h"
#include "apps/dnnperf/schedule_report.h"
#include "networks/import/network_loader.h"
#include "scheduler/bounds.h"
#include "scheduler/run_methods.h"

namespace dnnperf::cli {
namespace {

struct Options {
  std::string network;
  std::string platform;
  std::string objective = "latency";
  std::string methods = "all";
  double time_limit = 60;
  int module_tasks = 0;  // auto
  int coarsen = 0;
  double module_gap = 0.002;
  double module_time_limit = 0.5;
  int split_passes = 0;  // auto
  bool no_groups = false;
  std::int64_t batch = 1;
  std::vector<std::int64_t> input;
  std::int64_t sequence = 0;
  std::string dtype = "fp32";
  bool json = false;
  std::string output;
  std::string gantt;
};

std::vector<std::string> parse_methods(const std::string& text) {
  const std::vector<std::string>& kMethods = schedule_method_names();
  if (text == "all") return {kMethods.begin(), kMethods.end() - 1};
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string m; std::getline(in, m, ',');) {
    if (std::find(kMethods.begin(), kMethods.end(), m) == kMethods.end())
      throw InputError("--method: unknown method '" + m + "' (milp, split, heft, cpop, greedy, single, symmetric or all)");
    out.push_back(m);
  }
  if (out.empty()) throw InputError("--method: name at least one method");
  return out;
}

void run(const Options& o) {
  const Objective objective = [&] {
    if (o.objective == "latency") return Objective::latency;
    if (o.objective == "throughput") return Objective::throughput;
    throw InputError("--objective: unknown value '" + o.objective + "' (latency or throughput)");
  }();
  const std::vector<std::string> methods = parse_methods(o.methods);
  if (!(o.time_limit > 0)) throw InputError("--time-limit must be positive");
  if (o.batch <= 0) throw InputError("--batch must be positive");
  const auto precision = parse_precision(o.dtype);
  if (!precision) throw InputError("--dtype: unknown value '" + o.dtype + "' (fp32, tf32, fp16, bf16 or fp8)");

  const Platform platform = load_platform(o.platform);
  LoadOptions load;
  load.batch = o.batch;
  load.with_loss = false;
  if (!o.input.empty()) load.image = {o.input[0], o.input.size() > 1 ? o.input[1] : o.input[0]};
  if (o.sequence > 0) load.sequence = o.sequence;
  const Graph graph = load_network(o.network, load);
  TaskGraph tasks = build_task_graph(graph, platform, {.precision = *precision});
  const int ops = tasks.size();
  if (o.coarsen > 0) coarsen(tasks, o.coarsen);
  // Every device keeps room for the largest activation (weight_capacity); one that cannot is no
  // place for any task, and a platform that names it is wrong, not a schedule to search.
  for (int d = 0; d < platform.size(); ++d)
    if (weight_capacity(tasks, platform, d) < 0)
      throw InputError(o.platform + ": device '" + platform.devices[static_cast<std::size_t>(d)].name + "' has " +
                       mebibytes(platform.devices[static_cast<std::size_t>(d)].memory_bytes) + " MiB of memory (memory_bytes), less than network '" +
                       graph.name() + "''s largest activation needs; give it more or leave it out");
  double weights = 0, room = 0;
  for (const TaskNode& t : tasks.tasks) weights += t.weight_bytes;
  for (int d = 0; d < platform.size(); ++d) room += std::max(0.0, weight_capacity(tasks, platform, d));
  if (weights > room)
    throw InputError("platform '" + platform.name + "' cannot hold network '" + graph.name() + "': " + mebibytes(weights) + " MiB of parameters, " + mebibytes(room) +
                     " MiB of device memory left after activations");

  if (std::find(methods.begin(), methods.end(), "symmetric") != methods.end()) {
    if (methods.size() != 1) throw InputError("--method symmetric schedules servers, not devices: run it alone");
    run_symmetric(std::cout, tasks, platform, objective, o.objective, o.time_limit, o.output, o.json);
    return;
  }
  const bool groups = !o.no_groups;
  const LowerBound bound = lower_bound(tasks, platform, groups);
  const double lb = bound.value(objective);

  MethodOptions mo;
  mo.time_limit_s = o.time_limit;
  mo.groups = groups;
  mo.module_tasks = o.module_tasks;
  mo.module_gap = o.module_gap;
  mo.module_time_limit_s = o.module_time_limit;
  mo.split_passes = o.split_passes;
  const std::vector<Schedule> results = schedule_methods(tasks, platform, objective, methods, mo);

  const std::vector<std::vector<std::string>> problems = check_schedules(tasks, platform, results);
  // A method whose schedule the checker rejects has a bug: name it and its violations, and keep
  // the others' results; fail only when no method produced a valid schedule, and then write
  // nothing (an -o file from an earlier run stays as it was).
  std::string invalid;
  bool any_valid = false;
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (problems[k].empty()) {
      any_valid = any_valid || results[k].found();
      continue;
    }
    invalid += (invalid.empty() ? "" : ", ") + results[k].method;
    for (const std::string& v : problems[k]) std::cerr << "dnnperf: invalid schedule: " << v << "\n";
  }
  const std::string what = "method " + invalid + " produced an invalid schedule";
  if (!invalid.empty() && !any_valid) throw std::logic_error(what);  // an internal error: exit 3, asking for a report
  const nlohmann::json doc = schedule_document(graph, platform, tasks, ops, o.objective, o.batch, bound, lb, results, problems);
  write_schedule_files(doc, o.output, o.gantt);
  if (o.json) print_json(std::cout, doc, "schedule", 1);
  else print_schedules(std::cout, graph.name(), o.batch, ops, tasks, platform, o.objective, objective, bound, lb, results, problems);
  if (!invalid.empty()) std::cerr << "dnnperf: warning: " << what << " (a bug: please report it with this command); the other methods' schedules are valid\n";
}

}  // namespace

void add_schedule_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("schedule", "Map a network's operators onto a platform of mixed devices and servers");
  c->footer("Example:\n  dnnperf schedule -n resnet18 --platform data/platforms/cpu-v100-a100.json --method all");
  c->add_option("--network,-n", o->network, "zoo name or spec, FILE.json or FILE.onnx")->required();
  c->add_option("--platform", o->platform, "platform file (docs/platform-format.md; data/platforms/)")->required();
  c->add_option("--objective", o->objective, "latency (one inference) or throughput (pipelined)")->capture_default_str();
  c->add_option("--method", o->methods, "milp, split, heft, cpop, greedy, single, a comma list, or all")->capture_default_str();
  c->add_option("--time-limit", o->time_limit, "seconds for the MILP, and for all of split's modules together")->capture_default_str()->check(positive());
  c->add_option("--module-tasks", o->module_tasks, "split: the most tasks per module (default: 12, or 6 above 150 tasks)")->check(positive());
  c->add_option("--module-time-limit", o->module_time_limit, "split: the most seconds for one module's program")->capture_default_str()->check(positive());
  c->add_option("--split-passes", o->split_passes, "split: passes over the graph, each with shifted module boundaries (default: 2, or 1 above 150 tasks)")
      ->check(CLI::Range(1, 16));
  c->add_option("--module-gap", o->module_gap, "split: a module's search stops within this fraction of its bound")->capture_default_str()->check(non_negative());
  c->add_option("--coarsen", o->coarsen, "fuse chains of ops until at most this many tasks remain (0: keep every op)")->capture_default_str()->check(non_negative());
  c->add_flag("--no-groups", o->no_groups, "never run two independent tasks together on one device");
  c->add_option("--batch", o->batch, "samples per inference")->capture_default_str()->check(positive());
  c->add_option("--input", o->input, "image size H,W (zoo CNNs)")->delimiter(',')->expected(1, 2)->check(positive());
  c->add_option("--seq", o->sequence, "tokens per sample (zoo transformers)")->check(positive());
  c->add_option("--dtype", o->dtype, "fp32, tf32, fp16, bf16 or fp8")->capture_default_str();
  c->add_flag("--json", o->json, "print one JSON object with every method's placements");
  c->add_option("--output,-o", o->output, "also write that JSON to FILE");
  c->add_option("--gantt", o->gantt, "draw the schedules to FILE.png (scripts/plot_gantt.py)");
  c->callback([o] { run(*o); });
}

}  // namespace dnnperf::cli
