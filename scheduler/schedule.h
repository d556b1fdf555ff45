#pragma once
// Schedule: where and when each task of a TaskGraph runs on a Platform, and the checks that any
// schedule — from any method — must pass.
//
// The execution model every method and the checker share:
//  - a device runs one task at a time, or one group of two independent tasks started together
//    (group_seconds prices the pair);
//  - a task starts after each predecessor has finished and its tensor has crossed from the
//    predecessor's device (Platform::transfer_seconds; 0 on the same device); transfers run on
//    the links and do not occupy the devices;
//  - the parameters of the tasks on a device, plus room for the largest activation, fit its memory.
// For throughput, devices form a pipeline (a stage is the set of tasks on one device): the steady
// state admits one inference per period, the largest stage time (a stage replicated on several
// devices shares the inferences between them, in proportion to their speeds) or link time.
#include <optional>
#include <string>
#include <vector>

#include "scheduler/task_graph.h"

namespace dnnperf {

enum class Objective { latency, throughput };

struct Placement {
  int device = -1;
  double start = 0, finish = 0;
  int partner = -1;  // the task it runs together with, or -1
};

struct Schedule {
  std::string method;
  Objective objective = Objective::latency;
  std::vector<Placement> tasks;  // indexed like TaskGraph::tasks
  double makespan_s = 0;         // one inference, start to finish
  /// Throughput: seconds between inferences in the steady state, and for each device the other
  /// devices that replicate its stage (data parallelism).
  double period_s = 0;
  std::vector<std::vector<int>> replicas;
  double solve_s = 0;
  /// "optimal", "feasible" (a solver stopped with a gap), "heuristic", or why nothing was found.
  std::string status = "heuristic";
  std::optional<double> solver_bound_s;  // the solver's proven lower bound on its objective
  bool found() const { return !tasks.empty(); }
  double objective_value() const { return objective == Objective::latency ? makespan_s : period_s; }
};

/// Bytes of parameters a device may hold: its memory less room for the largest activation.
double weight_capacity(const TaskGraph& graph, const Platform& platform, int device);

/// Runs each task as soon as its inputs have arrived and its device is free, devices taking their
/// tasks in `order` (a priority list; a task waits for its predecessors and its partner's). Two
/// groups that wait for each other are broken up: their tasks run one after the other.
/// `partner[i]` pairs task i with a task that starts with it (or -1). Returns the placements and
/// sets makespan_s.
Schedule simulate_assignment(const TaskGraph& graph, const Platform& platform, const std::vector<int>& device_of,
                             const std::vector<int>& order, const std::vector<int>& partner = {});

/// The same for some tasks only: places the tasks of `order` (with their devices from
/// `device_of`) after those already in `placed` (device >= 0), on devices free from `device_free`
/// on; updates both.
void extend_schedule(const TaskGraph& graph, const Platform& platform, const std::vector<int>& device_of,
                     const std::vector<int>& order, const std::vector<int>& partner, std::vector<Placement>& placed,
                     std::vector<double>& device_free);

/// Steady-state period of an assignment (see above), with its replicas.
double pipeline_period(const TaskGraph& graph, const Platform& platform, const std::vector<int>& device_of,
                       const std::vector<int>& partner, const std::vector<std::vector<int>>& replicas);

/// Throughput: gives every device without tasks to the stage it helps most, while that lowers
/// the period; sets replicas and period_s.
void replicate_stages(const TaskGraph& graph, const Platform& platform, Schedule& schedule);

/// Every violation of the execution model in `schedule` (empty when valid): unplaced tasks,
/// devices that cannot run a task, precedence and transfer delays, overlaps on a device,
/// durations shorter than the cost model's, memory, and a wrong makespan or period.
std::vector<std::string> check_schedule(const TaskGraph& graph, const Platform& platform, const Schedule& schedule);

}  // namespace dnnperf
