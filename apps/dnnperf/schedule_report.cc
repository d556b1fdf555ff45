#include "apps/dnnperf/schedule_report.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <stdexcept>

#include "core/common/error.h"
#include "core/common/output_file.h"
#include "core/common/format.h"
#include "core/common/table.h"
#include "scheduler/milp_schedule.h"
#include "scheduler/symmetric_pipeline.h"

namespace dnnperf::cli {

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

std::vector<std::vector<std::string>> check_schedules(const TaskGraph& tasks, const Platform& platform, const std::vector<Schedule>& results) {
  std::vector<std::vector<std::string>> problems;
  for (const Schedule& s : results) problems.push_back(s.found() ? check_schedule(tasks, platform, s) : std::vector<std::string>{});
  return problems;
}

nlohmann::json schedule_document(const Graph& graph, const Platform& platform, const TaskGraph& tasks, int ops, const std::string& objective_name,
                                 std::int64_t batch, const LowerBound& bound, double lb, const std::vector<Schedule>& results,
                                 const std::vector<std::vector<std::string>>& problems) {
  nlohmann::json doc;
  doc["network"] = graph.name();
  doc["platform"] = platform.name;
  doc["objective"] = objective_name;
  doc["batch"] = batch;
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
  for (std::size_t k = 0; k < results.size(); ++k) doc["methods"].push_back(schedule_json(results[k], tasks, platform, lb, problems[k]));

  return doc;
}

void write_schedule_files(const nlohmann::json& doc, const std::string& output, const std::string& gantt) {
  if (!output.empty() || !gantt.empty()) {
    const std::string path = output.empty() ? gantt + ".json" : output;
    write_json_file(path, "schedule", doc, 1);
    if (!gantt.empty()) {
      const std::string script = std::string(DNNPERF_SOURCE_DIR) + "/scripts/plot_gantt.py";
      const std::string cmd = "/usr/bin/python3 '" + script + "' '" + path + "' -o '" + gantt + "'";
      if (std::system(cmd.c_str()) != 0) throw InputError("drawing the Gantt chart failed: " + cmd);
    }
  }
}

void print_schedules(std::ostream& out, const std::string& network, std::int64_t batch, int ops, const TaskGraph& tasks, const Platform& platform,
                     const std::string& objective_name, Objective objective, const LowerBound& bound, double lb, const std::vector<Schedule>& results,
                     const std::vector<std::vector<std::string>>& problems) {
  out << "schedule: " << network << " (batch " << batch << ", " << ops << " ops";
  if (tasks.size() != ops) out << " fused into " << tasks.size() << " tasks";
  out << ") on " << platform.name << " (" << platform.size() << " devices), " << objective_name << "\n";
  out << "lower bound " << time_text(lb) << " (critical path " << time_text(bound.critical_path_s) << ", load " << time_text(bound.load_s) << ")\n\n";
  const bool throughput = objective == Objective::throughput;
  Table table;
  table.column("method", Table::left).column(throughput ? "period" : "latency").column("x bound");
  if (throughput) table.column("inferences/s");
  table.column("solve s").column("status", Table::left);
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Schedule& s = results[k];
    std::vector<std::string> cells = {s.method};
    const bool priced = s.found() && problems[k].empty();
    cells.push_back(priced ? time_text(s.objective_value()) : "-");
    cells.push_back(priced && lb > 0 ? fixed(s.objective_value() / lb, 3) : "-");
    if (throughput) cells.push_back(priced ? fixed(1.0 / s.period_s, 1) : "-");
    cells.push_back(fixed(s.solve_s, 3));
    std::string status = !problems[k].empty() ? "INVALID: " + problems[k].front() : s.status;
    if (priced && s.solver_bound_s && s.status != "optimal")
      status += ", gap " + fixed(100 * (s.objective_value() - *s.solver_bound_s) / s.objective_value(), 1) + "%";
    cells.push_back(status);
    table.row(std::move(cells));
  }
  table.print(out);
}

/// --method symmetric: layers onto servers (scheduler/symmetric_pipeline.h), compared with the
/// same server-level problem solved without symmetry by the general program.
void run_symmetric(std::ostream& out, const TaskGraph& tasks, const Platform& platform, Objective objective, const std::string& objective_name, double time_limit_s,
                   const std::string& output, bool json) {
  const LayerStructure layers = find_repeated_layers(tasks);
  const ServerLevelProblem problem = server_level_problem(tasks, platform, layers);
  const SymmetricResult sym = schedule_symmetric(problem, objective, time_limit_s);
  MilpOptions mo;
  mo.time_limit_s = time_limit_s;
  mo.groups = false;
  Schedule full = schedule_milp(problem.graph, problem.platform, objective, mo);
  full.method = "milp (no symmetry)";
  const std::vector<Schedule> results{sym.schedule, full};

  nlohmann::json doc;
  doc["network"] = tasks.network;
  doc["platform"] = platform.name;
  doc["objective"] = objective_name;
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
  if (!all_valid) throw std::logic_error("a method produced an invalid schedule");  // an internal error: exit 3; nothing written
  if (!output.empty()) write_json_file(output, "schedule", doc, 1);
  if (json) {
    print_json(out, doc, "schedule", 1);
  } else {
    out << "schedule: " << tasks.network << " as " << layers.layers.size() << " identical layers (+ " << layers.prefix.size() << " prefix and "
              << layers.suffix.size() << " suffix tasks) on " << platform.name << " (" << platform.servers << " servers, " << platform.size() << " devices), "
              << objective_name << "\n";
    out << "tensor parallel inside each server, pipeline across servers; with symmetry " << sym.programs << " programs of at most "
              << sym.program_variables << " variables, without it one program of " << sym.full_program_binaries << " assignment binaries\n\n";
    out << std::left << std::setw(12) << "server" << std::setw(18) << "hardware" << std::right << std::setw(8) << "layers" << std::setw(14) << "per layer"
              << "  role\n";
    for (const auto& s : doc["servers"]) {
      const std::string of = s["replica_of"].get<std::string>();
      out << std::left << std::setw(12) << s["server"].get<std::string>() << std::setw(18) << s["hardware"].get<std::string>() << std::right
                << std::setw(8) << s["layers"].get<int>() << std::setw(14) << time_text(s["layer_s"].get<double>()) << "  "
                << (!of.empty() ? "replica of " + of + "'s stage" : s["layers"].get<int>() > 0 ? "pipeline stage" : "idle") << "\n";
    }
    out << "\nlower bound " << time_text(lb) << "\n";
    for (const Schedule& s : results) {
      out << std::left << std::setw(20) << s.method << std::right;
      if (!s.found()) {
        out << "  " << s.status << "\n";
        continue;
      }
      out << std::setw(13) << time_text(s.objective_value()) << std::setw(8) << (lb > 0 ? fixed(s.objective_value() / lb, 3) : "-");
      if (objective == Objective::throughput) out << std::setw(10) << fixed(1.0 / s.period_s, 2) << "/s";
      out << std::setw(10) << fixed(s.solve_s, 3) << " s  " << s.status << "\n";
    }
  }
}

}  // namespace dnnperf::cli
