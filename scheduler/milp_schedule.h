#pragma once
// Exact scheduling by mixed-integer programming (solved by CBC, milp_solver.h).
//
// Latency — a disjunctive formulation over continuous start times:
//   x[i][d] in {0,1}   task i runs on device d                  sum_d x[i][d] = 1
//   s[i] >= 0          start of task i;  dur[i] = sum_d t[i][d] x[i][d] (+ group terms)
//   edge i->j:         s[j] >= s[i] + dur[i] + c(d,d',bytes) (x[i][d] + x[j][d'] - 1)  for d != d'
//   independent i, j:  o[i][j] in {0,1} orders them, enforced (big-M) only when both share a device
//   groups:            g[i][j][d] in {0,1} runs independent i and j together on d: they start
//                      together, both last group_seconds, and need not be ordered
//   memory:            sum_i weights[i] x[i][d] <= capacity[d]
//   minimise C >= s[i] + dur[i]  (plus a tiny weight on the starts, so tasks run early).
// Big-M is the makespan of a greedy schedule, which also starts the solver.
//
// Throughput — load balancing: minimise the period T >= load of every device (groups save
// t[i] + t[j] - group time) and >= the transfer time on every device pair.
//
// A problem may be a module of a larger graph (split_schedule.h): tasks outside it that are
// already placed fix release times, device availability, memory and loads.
#include <vector>

#include "scheduler/milp_solver.h"
#include "scheduler/schedule.h"

namespace dnnperf {

struct MilpOptions {
  double time_limit_s = 60;
  /// Consider running pairs of independent tasks together where the cost model says it pays.
  bool groups = true;
  /// Group candidates per task (the pairs that save most), to keep the program small.
  int groups_per_task = 2;
  /// Latency: stop once the best solution is within this fraction of the objective (measured from
  /// the module's first release) of the proven bound; 0 proves optimality.
  double relative_gap = 0;
};

/// What is already decided when a module is solved. Start with `SchedulingState(graph, platform)`.
struct SchedulingState {
  SchedulingState(const TaskGraph& graph, const Platform& platform);
  std::vector<Placement> placed;      // device -1: not yet placed
  std::vector<double> device_free;    // latency: when each device is next free
  std::vector<double> weight_room;    // parameter bytes each device can still take
  std::vector<double> load;           // throughput: seconds of work per device so far
  std::vector<double> link_load;      // throughput: seconds per device pair (from * devices + to)
};

struct ModuleResult {
  MilpResult::Status status = MilpResult::Status::error;
  double bound = 0;  // of the module's objective
  double seconds = 0;
  bool used_fallback = false;  // the solver found nothing better than the greedy start
  std::string failure;         // the solver's error, if it failed
};

/// Places the tasks of `module` (ascending, every predecessor either in it or already placed) by
/// solving its program, and updates `state`. The solver starts from the better of a greedy
/// assignment and `hint` (a complete schedule, e.g. a list scheduler's), and keeps that start if
/// it finds nothing better in time. Throws InputError if some task fits on no device.
ModuleResult solve_module(const TaskGraph& graph, const Platform& platform, Objective objective, const std::vector<int>& module,
                          SchedulingState& state, const MilpOptions& options,
                          const std::vector<std::vector<std::uint64_t>>& reach, const Schedule* hint = nullptr);

/// The whole graph as one program, started from `hint` when it is better than greedy.
Schedule schedule_milp(const TaskGraph& graph, const Platform& platform, Objective objective, const MilpOptions& options,
                       const Schedule* hint = nullptr);

/// Finishes a schedule from a completed state: placements, makespan and (for throughput) period
/// and replicas.
Schedule schedule_from_state(const TaskGraph& graph, const Platform& platform, Objective objective, std::string method,
                             const SchedulingState& state);

}  // namespace dnnperf
