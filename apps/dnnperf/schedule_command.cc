#include "apps/dnnperf/schedule_command.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/dnnperf/format.h"
#include "predictor/common/error.h"
#include "predictor/import/network_loader.h"
#include "scheduler/bounds.h"
#include "scheduler/list_schedulers.h"
#include "scheduler/split_schedule.h"
#include "scheduler/symmetric_pipeline.h"

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

const std::vector<std::string> kMethods = {"single", "greedy", "heft", "cpop", "split", "milp", "symmetric"};

std::vector<std::string> parse_methods(const std::string& text) {
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

std::string time_text(double s) {
  if (s >= 1) return fixed(s, 3) + " s";
  if (s >= 1e-3) return fixed(s * 1e3, 3) + " ms";
  return fixed(s * 1e6, 1) + " us";
}

nlohmann::json schedule_json(const Schedule& s, const TaskGraph& g, const Platform& p, double bound, const std::vector<std::string>& problems) {
  nlohmann::json j;
  j["method"] = s.method;
  j["status"] = s.status;
  j["found"] = s.found();
  j["solve_s"] = s.solve_s;
  if (!s.found()) return j;
  j["makespan_s"] = s.makespan_s;
  if (s.objective == Objective::throughput) {
    j["period_s"] = s.period_s;
    j["throughput_per_s"] = s.period_s > 0 ? 1.0 / s.period_s : 0.0;
    nlohmann::json rep = nlohmann::json::object();
    for (int d = 0; d < p.size(); ++d)
      if (!s.replicas.empty() && !s.replicas[static_cast<std::size_t>(d)].empty()) {
        nlohmann::json names = nlohmann::json::array();
        for (int r : s.replicas[static_cast<std::size_t>(d)]) names.push_back(p.devices[static_cast<std::size_t>(r)].name);
        rep[p.devices[static_cast<std::size_t>(d)].name] = names;
      }
    j["replicas"] = rep;
  }
  j["ratio_to_bound"] = bound > 0 ? s.objective_value() / bound : 0.0;
  if (s.solver_bound_s) j["solver_bound_s"] = *s.solver_bound_s;
  j["valid"] = problems.empty();
  j["violations"] = problems;
  // Stages: devices in the order of their first task's start.
  std::vector<int> stage_of(static_cast<std::size_t>(p.size()), -1);
  if (s.objective == Objective::throughput) {
    std::vector<std::pair<double, int>> first;
    for (int d = 0; d < p.size(); ++d) {
      double t = -1;
      for (const Placement& pl : s.tasks)
        if (pl.device == d && (t < 0 || pl.start < t)) t = pl.start;
      if (t >= 0) first.push_back({t, d});
    }
    std::sort(first.begin(), first.end());
    for (std::size_t k = 0; k < first.size(); ++k) stage_of[static_cast<std::size_t>(first[k].second)] = static_cast<int>(k);
  }
  nlohmann::json tasks = nlohmann::json::array();
  for (int i = 0; i < g.size(); ++i) {
    const Placement& pl = s.tasks[static_cast<std::size_t>(i)];
    nlohmann::json t = {{"task", i}, {"device", p.devices[static_cast<std::size_t>(pl.device)].name}, {"start_s", pl.start}, {"finish_s", pl.finish}};
    if (pl.partner >= 0) t["with"] = pl.partner;
    if (s.objective == Objective::throughput) t["stage"] = stage_of[static_cast<std::size_t>(pl.device)];
    tasks.push_back(t);
  }
  j["placements"] = tasks;
  return j;
}

/// --method symmetric: layers onto servers (scheduler/symmetric_pipeline.h), compared with the
/// same server-level problem solved without symmetry by the general program.
void run_symmetric(const Options& o, const TaskGraph& tasks, const Platform& platform, Objective objective) {
  const LayerStructure layers = find_repeated_layers(tasks);
  const ServerLevelProblem problem = server_level_problem(tasks, platform, layers);
  const SymmetricResult sym = schedule_symmetric(problem, objective, o.time_limit);
  MilpOptions mo;
  mo.time_limit_s = o.time_limit;
  mo.groups = false;
  Schedule full = schedule_milp(problem.graph, problem.platform, objective, mo);
  full.method = "milp (no symmetry)";
  const std::vector<Schedule> results{sym.schedule, full};

  nlohmann::json doc;
  doc["network"] = tasks.network;
  doc["platform"] = platform.name;
  doc["objective"] = o.objective;
  doc["layers"] = layers.layers.size();
  doc["prefix_tasks"] = layers.prefix.size();
  doc["suffix_tasks"] = layers.suffix.size();
  doc["symmetric_program_variables"] = sym.program_variables;
  doc["symmetric_programs"] = sym.programs;
  doc["full_program_assignment_binaries"] = sym.full_program_binaries;
  nlohmann::json servers = nlohmann::json::array();
  std::vector<std::string> replica_of(static_cast<std::size_t>(problem.platform.size()));
  for (std::size_t s = 0; s < sym.schedule.replicas.size(); ++s)
    for (int r : sym.schedule.replicas[s]) replica_of[static_cast<std::size_t>(r)] = problem.platform.devices[s].name;
  for (int s = 0; s < problem.platform.size(); ++s)
    servers.push_back({{"server", problem.platform.devices[static_cast<std::size_t>(s)].name},
                       {"replica_of", replica_of[static_cast<std::size_t>(s)]},
                       {"hardware", problem.platform.devices[static_cast<std::size_t>(s)].hardware.name},
                       {"layers", sym.layers_per_server.empty() ? 0 : sym.layers_per_server[static_cast<std::size_t>(s)]},
                       {"layer_s", problem.graph.seconds(layers.prefix.empty() ? 0 : 1, s)}});
  doc["servers"] = servers;
  const LowerBound bound = lower_bound(problem.graph, problem.platform, false);
  const double lb = bound.value(objective);
  doc["lower_bound"] = {{"critical_path_s", bound.critical_path_s}, {"load_s", bound.load_s}, {"value_s", lb}};
  doc["methods"] = nlohmann::json::array();
  bool all_valid = true;
  for (const Schedule& s : results) {
    const std::vector<std::string> problems = s.found() ? check_schedule(problem.graph, problem.platform, s) : std::vector<std::string>{};
    all_valid = all_valid && problems.empty();
    doc["methods"].push_back(schedule_json(s, problem.graph, problem.platform, lb, problems));
  }
  if (!o.output.empty()) {
    std::ofstream out(o.output);
    out << doc.dump(1) << "\n";
    if (!out) throw InputError(o.output + ": cannot write the schedule");
  }
  if (o.json) {
    std::cout << doc.dump(1) << "\n";
  } else {
    std::cout << "schedule: " << tasks.network << " as " << layers.layers.size() << " identical layers (+ " << layers.prefix.size() << " prefix and "
              << layers.suffix.size() << " suffix tasks) on " << platform.name << " (" << platform.servers << " servers, " << platform.size() << " devices), "
              << o.objective << "\n";
    std::cout << "tensor parallel inside each server, pipeline across servers; with symmetry " << sym.programs << " programs of at most "
              << sym.program_variables << " variables, without it one program of " << sym.full_program_binaries << " assignment binaries\n\n";
    std::cout << std::left << std::setw(12) << "server" << std::setw(18) << "hardware" << std::right << std::setw(8) << "layers" << std::setw(14) << "per layer"
              << "  role\n";
    for (const auto& s : doc["servers"]) {
      const std::string of = s["replica_of"].get<std::string>();
      std::cout << std::left << std::setw(12) << s["server"].get<std::string>() << std::setw(18) << s["hardware"].get<std::string>() << std::right
                << std::setw(8) << s["layers"].get<int>() << std::setw(14) << time_text(s["layer_s"].get<double>()) << "  "
                << (!of.empty() ? "replica of " + of + "'s stage" : s["layers"].get<int>() > 0 ? "pipeline stage" : "idle") << "\n";
    }
    std::cout << "\nlower bound " << time_text(lb) << "\n";
    for (const Schedule& s : results) {
      std::cout << std::left << std::setw(20) << s.method << std::right;
      if (!s.found()) {
        std::cout << "  " << s.status << "\n";
        continue;
      }
      std::cout << std::setw(13) << time_text(s.objective_value()) << std::setw(8) << (lb > 0 ? fixed(s.objective_value() / lb, 3) : "-");
      if (objective == Objective::throughput) std::cout << std::setw(10) << fixed(1.0 / s.period_s, 2) << "/s";
      std::cout << std::setw(10) << fixed(s.solve_s, 3) << " s  " << s.status << "\n";
    }
  }
  if (!all_valid) throw InputError("a method produced an invalid schedule (a bug: please report it with this command)");
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
  if (!precision) throw InputError("--dtype: unknown value '" + o.dtype + "'");

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
  double weights = 0, room = 0;
  for (const TaskNode& t : tasks.tasks) weights += t.weight_bytes;
  for (int d = 0; d < platform.size(); ++d) room += std::max(0.0, weight_capacity(tasks, platform, d));
  if (weights > room)
    throw InputError("platform '" + platform.name + "' cannot hold network '" + graph.name() + "': " + mebibytes(weights) + " MiB of parameters, " + mebibytes(room) +
                     " MiB of device memory left after activations");

  if (std::find(methods.begin(), methods.end(), "symmetric") != methods.end()) {
    if (methods.size() != 1) throw InputError("--method symmetric schedules servers, not devices: run it alone");
    run_symmetric(o, tasks, platform, objective);
    return;
  }
  const bool groups = !o.no_groups;
  const LowerBound bound = lower_bound(tasks, platform, groups);
  const double lb = bound.value(objective);

  // The exact and modular methods start from the best list schedule (its time is counted in theirs).
  const auto t_hint = std::chrono::steady_clock::now();
  Schedule hint;
  for (Schedule s : {schedule_heft(tasks, platform), schedule_cpop(tasks, platform), schedule_greedy(tasks, platform)}) {
    if (!s.found()) continue;
    s.objective = objective;
    if (objective == Objective::throughput) replicate_stages(tasks, platform, s);
    if (!hint.found() || s.objective_value() < hint.objective_value()) hint = std::move(s);
  }
  const double hint_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_hint).count();

  std::vector<Schedule> results;
  for (const std::string& m : methods) {
    Schedule s;
    if (m == "single") s = schedule_single_device(tasks, platform);
    else if (m == "greedy") s = schedule_greedy(tasks, platform);
    else if (m == "heft") s = schedule_heft(tasks, platform);
    else if (m == "cpop") s = schedule_cpop(tasks, platform);
    else if (m == "split") {
      SplitOptions so;
      // Modules of 12 tasks solve to optimality in a fraction of a second; beyond 150 tasks the
      // per-module share of the time limit shrinks and modules of 6 keep them solvable.
      so.module_tasks = o.module_tasks > 0 ? o.module_tasks : tasks.size() > 150 ? 6 : 12;
      so.time_limit_s = o.time_limit;
      so.milp.groups = groups;
      so.milp.relative_gap = o.module_gap;
      so.milp.time_limit_s = o.module_time_limit;
      so.passes = o.split_passes > 0 ? o.split_passes : tasks.size() > 150 ? 1 : 2;
      s = schedule_split(tasks, platform, objective, so, &hint);
      s.solve_s += hint_s;
    } else {
      MilpOptions mo;
      mo.time_limit_s = o.time_limit;
      mo.groups = groups;
      s = schedule_milp(tasks, platform, objective, mo, &hint);
      s.solve_s += hint_s;
    }
    s.objective = objective;
    if (s.found() && objective == Objective::throughput && (m == "single" || m == "greedy" || m == "heft" || m == "cpop")) replicate_stages(tasks, platform, s);
    results.push_back(std::move(s));
  }

  nlohmann::json doc;
  doc["network"] = graph.name();
  doc["platform"] = platform.name;
  doc["objective"] = o.objective;
  doc["batch"] = o.batch;
  doc["ops"] = ops;
  nlohmann::json devices = nlohmann::json::array();
  for (const PlatformDevice& d : platform.devices) devices.push_back({{"name", d.name}, {"server", d.server}, {"hardware", d.hardware.name}});
  doc["devices"] = devices;
  nlohmann::json task_list = nlohmann::json::array();
  for (int i = 0; i < tasks.size(); ++i) {
    const TaskNode& t = tasks.task(i);
    nlohmann::json seconds = nlohmann::json::array();
    for (double s : t.seconds) seconds.push_back(s < kCannotRun ? nlohmann::json(s) : nlohmann::json(nullptr));
    nlohmann::json preds = nlohmann::json::array();
    for (int e : tasks.in_edges(i)) preds.push_back({{"task", tasks.edges[static_cast<std::size_t>(e)].from}, {"bytes", tasks.edges[static_cast<std::size_t>(e)].bytes}});
    nlohmann::json op_names = nlohmann::json::array();
    for (int op : t.ops) op_names.push_back(graph.op(op).name);
    task_list.push_back({{"name", t.name}, {"ops", t.ops.size()}, {"op_names", op_names}, {"seconds", seconds}, {"weight_bytes", t.weight_bytes}, {"inputs", preds}});
  }
  doc["tasks"] = task_list;
  doc["lower_bound"] = {{"critical_path_s", bound.critical_path_s}, {"load_s", bound.load_s}, {"value_s", lb}};
  doc["methods"] = nlohmann::json::array();
  bool all_valid = true;
  for (const Schedule& s : results) {
    const std::vector<std::string> problems = s.found() ? check_schedule(tasks, platform, s) : std::vector<std::string>{};
    all_valid = all_valid && problems.empty();
    doc["methods"].push_back(schedule_json(s, tasks, platform, lb, problems));
  }

  if (!o.output.empty() || !o.gantt.empty()) {
    const std::string path = o.output.empty() ? o.gantt + ".json" : o.output;
    std::ofstream out(path);
    out << doc.dump(1) << "\n";
    if (!out) throw InputError(path + ": cannot write the schedule");
    if (!o.gantt.empty()) {
      const std::string script = std::string(DNNPERF_SOURCE_DIR) + "/scripts/plot_gantt.py";
      const std::string cmd = "/usr/bin/python3 '" + script + "' '" + path + "' -o '" + o.gantt + "'";
      if (std::system(cmd.c_str()) != 0) throw InputError("drawing the Gantt chart failed: " + cmd);
    }
  }
  if (o.json) {
    std::cout << doc.dump(1) << "\n";
  } else {
    std::cout << "schedule: " << graph.name() << " (batch " << o.batch << ", " << ops << " ops";
    if (tasks.size() != ops) std::cout << " fused into " << tasks.size() << " tasks";
    std::cout << ") on " << platform.name << " (" << platform.size() << " devices), " << o.objective << "\n";
    std::cout << "lower bound " << time_text(lb) << " (critical path " << time_text(bound.critical_path_s) << ", load " << time_text(bound.load_s) << ")\n\n";
    std::cout << std::left << std::setw(8) << "method" << std::right << std::setw(13) << (objective == Objective::latency ? "latency" : "period")
              << std::setw(10) << "x bound";
    if (objective == Objective::throughput) std::cout << std::setw(14) << "inferences/s";
    std::cout << std::setw(11) << "solve s" << "  status\n";
    for (const Schedule& s : results) {
      std::cout << std::left << std::setw(8) << s.method << std::right;
      if (!s.found()) {
        std::cout << std::setw(13) << "-" << std::setw(10) << "-" << std::setw(11) << fixed(s.solve_s, 3) << "  " << s.status << "\n";
        continue;
      }
      std::cout << std::setw(13) << time_text(s.objective_value()) << std::setw(10) << (lb > 0 ? fixed(s.objective_value() / lb, 3) : "-");
      if (objective == Objective::throughput) std::cout << std::setw(14) << fixed(1.0 / s.period_s, 1);
      std::cout << std::setw(11) << fixed(s.solve_s, 3) << "  " << s.status;
      if (s.solver_bound_s && s.status != "optimal") std::cout << ", gap " << fixed(100 * (s.objective_value() - *s.solver_bound_s) / s.objective_value(), 1) << "%";
      std::cout << "\n";
    }
  }
  if (!all_valid) {
    for (const auto& m : doc["methods"])
      for (const auto& v : m["violations"]) std::cerr << "dnnperf: invalid schedule: " << v.get<std::string>() << "\n";
    throw InputError("a method produced an invalid schedule (a bug: please report it with this command)");
  }
}

}  // namespace

void add_schedule_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("schedule", "Map a network's operators onto a platform of mixed devices and servers");
  c->add_option("--network,-n", o->network, "zoo name or spec, FILE.json or FILE.onnx")->required();
  c->add_option("--platform", o->platform, "platform file (docs/platform-format.md; data/platforms/)")->required();
  c->add_option("--objective", o->objective, "latency (one inference) or throughput (pipelined)")->capture_default_str();
  c->add_option("--method", o->methods, "milp, split, heft, cpop, greedy, single, a comma list, or all")->capture_default_str();
  c->add_option("--time-limit", o->time_limit, "seconds for the MILP, and for all of split's modules together")->capture_default_str();
  c->add_option("--module-tasks", o->module_tasks, "split: the most tasks per module (default: 12, or 6 above 150 tasks)");
  c->add_option("--module-time-limit", o->module_time_limit, "split: the most seconds for one module's program")->capture_default_str();
  c->add_option("--split-passes", o->split_passes, "split: passes over the graph, each with shifted module boundaries (default: 2, or 1 above 150 tasks)")
      ->check(CLI::Range(1, 16));
  c->add_option("--module-gap", o->module_gap, "split: a module's search stops within this fraction of its bound")->capture_default_str();
  c->add_option("--coarsen", o->coarsen, "fuse chains of ops until at most this many tasks remain (0: keep every op)")->capture_default_str();
  c->add_flag("--no-groups", o->no_groups, "never run two independent tasks together on one device");
  c->add_option("--batch", o->batch, "samples per inference")->capture_default_str();
  c->add_option("--input", o->input, "image size H,W (zoo CNNs)")->delimiter(',')->expected(1, 2);
  c->add_option("--seq", o->sequence, "tokens per sample (zoo transformers)");
  c->add_option("--dtype", o->dtype, "fp32, tf32, fp16 or bf16")->capture_default_str();
  c->add_flag("--json", o->json, "print one JSON object with every method's placements");
  c->add_option("--output,-o", o->output, "also write that JSON to FILE");
  c->add_option("--gantt", o->gantt, "draw the schedules to FILE.png (scripts/plot_gantt.py)");
  c->callback([o] { run(*o); });
}

}  // namespace dnnperf::cli
