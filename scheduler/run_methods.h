#pragma once
// The scheduling methods by name, run on one task graph and platform: what `dnnperf schedule`
// compares. The exact program and the split heuristic start from the best list schedule, whose
// time is counted in theirs.
#include <string>
#include <vector>

#include "scheduler/platform.h"
#include "scheduler/schedule.h"
#include "scheduler/task_graph.h"

namespace dnnperf {

/// The method names schedule_methods() knows, as `dnnperf schedule --method` takes them.
const std::vector<std::string>& schedule_method_names();

/// How the exact and split methods run.
struct MethodOptions {
  double time_limit_s = 60;         // the MILP's, and split's for all its modules together
  bool groups = true;               // two independent tasks may run together on one device
  int module_tasks = 0;             // split: the most tasks per module; 0: 12, or 6 above 150 tasks
  double module_gap = 0.002;        // split: a module's search stops within this fraction of its bound
  double module_time_limit_s = 0.5; // split: the most seconds for one module's program
  int split_passes = 0;             // split: passes with shifted module boundaries; 0: 2, or 1 above 150 tasks
};

/// Each of `methods` ("single", "greedy", "heft", "cpop", "split", "milp") on `tasks` and
/// `platform` for `objective`, in order; list schedules for throughput get their stages
/// replicated. A method that finds nothing returns a schedule that says so (Schedule::found).
std::vector<Schedule> schedule_methods(const TaskGraph& tasks, const Platform& platform, Objective objective, const std::vector<std::string>& methods,
                                       const MethodOptions& options);

}  // namespace dnnperf
