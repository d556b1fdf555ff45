#pragma once
// The modular split heuristic (after DiviML, Ahmed, Ishak & Ismail, ICCAD 2023): cut the graph
// into modules, solve each module exactly — in topological order, with the tasks placed before it
// fixing its release times, device availability, memory and loads — and compose the results.
//
// Modules end at cut points: tasks every path from the inputs to the outputs passes through (in
// the topological order, no edge jumps over them: the joins of residual blocks, the concatenation
// after an Inception block). Consecutive segments are packed up to `module_tasks` tasks; a longer
// segment (randomly wired networks have few cut points) is cut in topological order.
#include <vector>

#include "scheduler/milp_schedule.h"

namespace dnnperf {

struct SplitOptions {
  int module_tasks = 16;
  /// Passes over the graph: each after the first shifts the module boundaries and keeps a module's
  /// earlier assignment unless its program finds better; the best complete schedule is returned.
  int passes = 2;
  /// For all modules together; each module gets an equal share of what is left, at most
  /// milp.time_limit_s.
  double time_limit_s = 60;
  /// Per module: a search that has not proven its module optimal in half a second rarely improves
  /// (measured on the randomly wired benchmark networks: 1 s gave the same schedules, slower).
  MilpOptions milp{.time_limit_s = 0.5, .groups = true, .groups_per_task = 2, .relative_gap = 0.002};
};

/// Tasks in topological order, cut at every cut point (each segment ends with one).
std::vector<std::vector<int>> cut_segments(const TaskGraph& graph);

/// Tasks in topological order, cut into modules of at most `module_tasks`.
std::vector<std::vector<int>> split_modules(const TaskGraph& graph, int module_tasks);

/// `hint`, a complete schedule, offers each module a starting assignment (see solve_module).
Schedule schedule_split(const TaskGraph& graph, const Platform& platform, Objective objective, const SplitOptions& options,
                        const Schedule* hint = nullptr);

}  // namespace dnnperf
