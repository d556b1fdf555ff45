#include "scheduler/split_schedule.h"

#include <algorithm>
#include <chrono>

#include "predictor/common/error.h"

namespace dnnperf {

std::vector<std::vector<int>> cut_segments(const TaskGraph& g) {
  const auto n = static_cast<std::size_t>(g.size());
  // cover[k]: edges (a, b) with a < k < b. A task no edge jumps over is a cut point.
  std::vector<int> delta(n + 1, 0);
  for (const TaskEdge& e : g.edges)
    if (e.to > e.from + 1) ++delta[static_cast<std::size_t>(e.from) + 1], --delta[static_cast<std::size_t>(e.to)];
  std::vector<std::vector<int>> segments(1);
  int cover = 0;
  for (std::size_t k = 0; k < n; ++k) {
    cover += delta[k];
    segments.back().push_back(static_cast<int>(k));
    if (cover == 0) segments.emplace_back();
  }
  if (segments.back().empty()) segments.pop_back();
  return segments;
}

std::vector<std::vector<int>> split_modules(const TaskGraph& g, int module_tasks) {
  if (module_tasks < 1) throw InputError("a module needs at least one task");
  std::vector<std::vector<int>> modules;
  for (const std::vector<int>& seg : cut_segments(g)) {
    if (!modules.empty() && modules.back().size() + seg.size() <= static_cast<std::size_t>(module_tasks)) {
      modules.back().insert(modules.back().end(), seg.begin(), seg.end());
      continue;
    }
    for (std::size_t at = 0; at < seg.size(); at += static_cast<std::size_t>(module_tasks))
      modules.emplace_back(seg.begin() + static_cast<std::ptrdiff_t>(at),
                           seg.begin() + static_cast<std::ptrdiff_t>(std::min(seg.size(), at + static_cast<std::size_t>(module_tasks))));
  }
  return modules;
}

Schedule schedule_split(const TaskGraph& g, const Platform& p, Objective objective, const SplitOptions& o, const Schedule* hint) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const auto reach = g.reachability();
  const std::vector<std::vector<int>> modules = split_modules(g, o.module_tasks);
  SchedulingState st(g, p);
  int optimal = 0, fallback = 0, failed = 0;
  for (std::size_t k = 0; k < modules.size(); ++k) {
    MilpOptions milp = o.milp;
    const double left = std::max(0.0, o.time_limit_s - elapsed());
    milp.time_limit_s = std::min(o.milp.time_limit_s, left / static_cast<double>(modules.size() - k));
    const ModuleResult r = solve_module(g, p, objective, modules[k], st, milp, reach, hint);
    optimal += r.status == MilpResult::Status::optimal;
    fallback += r.used_fallback;
    failed += r.status == MilpResult::Status::error;
  }
  Schedule s = schedule_from_state(g, p, objective, "split", st);
  s.solve_s = elapsed();
  s.status = "heuristic: " + std::to_string(modules.size()) + " modules, " + std::to_string(optimal) + " solved to optimality" +
             (fallback ? ", " + std::to_string(fallback) + " kept their starting assignment" : "") +
             (failed ? " (" + std::to_string(failed) + " after a solver failure)" : "");
  return s;
}

}  // namespace dnnperf
