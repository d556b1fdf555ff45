#include "scheduler/run_methods.h"

#include <chrono>

#include "scheduler/list_schedulers.h"
#include "scheduler/milp_schedule.h"
#include "scheduler/split_schedule.h"

namespace dnnperf {

const std::vector<std::string>& schedule_method_names() {
  static const std::vector<std::string> names = {"single", "greedy", "heft", "cpop", "split", "milp", "symmetric"};
  return names;
}

std::vector<Schedule> schedule_methods(const TaskGraph& tasks, const Platform& platform, Objective objective, const std::vector<std::string>& methods,
                                       const MethodOptions& options) {
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
      so.module_tasks = options.module_tasks > 0 ? options.module_tasks : tasks.size() > 150 ? 6 : 12;
      so.time_limit_s = options.time_limit_s;
      so.milp.groups = options.groups;
      so.milp.relative_gap = options.module_gap;
      so.milp.time_limit_s = options.module_time_limit_s;
      so.passes = options.split_passes > 0 ? options.split_passes : tasks.size() > 150 ? 1 : 2;
      s = schedule_split(tasks, platform, objective, so, &hint);
      s.solve_s += hint_s;
    } else {
      MilpOptions mo;
      mo.time_limit_s = options.time_limit_s;
      mo.groups = options.groups;
      s = schedule_milp(tasks, platform, objective, mo, &hint);
      s.solve_s += hint_s;
    }
    s.objective = objective;
    if (s.found() && objective == Objective::throughput && (m == "single" || m == "greedy" || m == "heft" || m == "cpop")) replicate_stages(tasks, platform, s);
    results.push_back(std::move(s));
  }
  return results;
}

}  // namespace dnnperf
