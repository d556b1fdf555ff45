#include "scheduler/split_schedule.h"

#include <algorithm>
#include <chrono>

#include "core/common/error.h"

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

namespace {

/// One pass of the heuristic: `modules` solved in order, each started from the better of greedy and `hint`.
Schedule split_pass(const TaskGraph& g, const Platform& p, Objective objective, const SplitOptions& o, const Schedule* hint,
                    const std::vector<std::vector<int>>& modules, const std::vector<std::vector<std::uint64_t>>& reach,
                    double time_left_s) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  SchedulingState st(g, p);
  int optimal = 0, fallback = 0, failed = 0;
  for (std::size_t k = 0; k < modules.size(); ++k) {
    MilpOptions milp = o.milp;
    const double left = std::max(0.0, time_left_s - elapsed());
    milp.time_limit_s = std::min(o.milp.time_limit_s, left / static_cast<double>(modules.size() - k));
    const ModuleResult r = solve_module(g, p, objective, modules[k], st, milp, reach, hint);
    optimal += r.status == MilpResult::Status::optimal;
    fallback += r.used_fallback;
    failed += r.status == MilpResult::Status::error;
  }
  Schedule s = schedule_from_state(g, p, objective, "split", st);
  s.status = std::to_string(modules.size()) + " modules, " + std::to_string(optimal) + " solved to optimality" +
             (fallback ? ", " + std::to_string(fallback) + " kept their starting assignment" : "") +
             (failed ? " (" + std::to_string(failed) + " after a solver failure)" : "");
  return s;
}

}  // namespace

Schedule schedule_split(const TaskGraph& g, const Platform& p, Objective objective, const SplitOptions& o, const Schedule* hint) {
  if (o.passes < 1) throw InputError("split needs at least one pass");
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const auto reach = g.reachability();
  const std::vector<std::vector<int>> modules = split_modules(g, o.module_tasks);
  Schedule best = split_pass(g, p, objective, o, hint, modules, reach, o.time_limit_s / o.passes);
  int passes = 1;
  // Later passes move the module boundaries by a fraction of a module, so that tasks a boundary
  // separated are decided together, and start every module from the best schedule so far: a
  // module keeps its earlier assignment unless its program finds a better one.
  for (int pass = 1; pass < o.passes; ++pass) {
    const int shift = std::max(1, o.module_tasks * pass / o.passes);
    std::vector<int> order;
    for (const std::vector<int>& m : modules) order.insert(order.end(), m.begin(), m.end());
    std::vector<std::vector<int>> shifted;
    for (std::size_t at = 0; at < order.size();) {
      const std::size_t size = shifted.empty() ? static_cast<std::size_t>(shift) : static_cast<std::size_t>(o.module_tasks);
      shifted.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(at), order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), at + size)));
      at += size;
    }
    const double left = std::max(0.0, o.time_limit_s - elapsed()) / static_cast<double>(o.passes - pass);
    // A later pass starts from a good schedule and mostly confirms it: half the time per module.
    SplitOptions later = o;
    later.milp.time_limit_s = o.milp.time_limit_s / 2;
    Schedule s = split_pass(g, p, objective, later, &best, shifted, reach, left);
    ++passes;
    if (s.objective_value() < best.objective_value()) best = std::move(s);
  }
  best.solve_s = elapsed();
  best.status = "heuristic, " + std::to_string(passes) + (passes == 1 ? " pass: " : " passes: ") + best.status;
  return best;
}

}  // namespace dnnperf
