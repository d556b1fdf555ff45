#include "scheduler/bounds.h"

#include <algorithm>

#include "scheduler/milp_solver.h"

namespace dnnperf {

LowerBound lower_bound(const TaskGraph& g, const Platform& p, bool groups) {
  LowerBound b;
  std::vector<double> finish(static_cast<std::size_t>(g.size()), 0.0);
  for (int i = 0; i < g.size(); ++i) {
    double start = 0;
    for (int e : g.in_edges(i)) start = std::max(start, finish[static_cast<std::size_t>(g.edges[static_cast<std::size_t>(e)].from)]);
    finish[static_cast<std::size_t>(i)] = start + g.task(i).fastest();
    b.critical_path_s = std::max(b.critical_path_s, finish[static_cast<std::size_t>(i)]);
  }
  // Fractional load, in microseconds for the solver's tolerances.
  constexpr double unit = 1e6;
  MilpProblem lp;
  const int T = lp.add_variable(0, 1e30, 1, false);
  std::vector<std::vector<std::pair<int, double>>> load(static_cast<std::size_t>(p.size())), memory(static_cast<std::size_t>(p.size()));
  for (int i = 0; i < g.size(); ++i) {
    const TaskNode& t = g.task(i);
    std::vector<std::pair<int, double>> one;
    for (int d = 0; d < p.size(); ++d) {
      if (!t.runs_on(d)) continue;
      const auto k = static_cast<std::size_t>(d);
      const double share = groups ? std::min(t.seconds[k], std::max(t.busy[k] + t.launch[k] / 2, t.seconds[k] / 2)) : t.seconds[k];
      const int x = lp.add_variable(0, 1, 0, false);
      one.push_back({x, 1});
      load[k].push_back({x, -share * unit});
      if (t.weight_bytes > 0) memory[k].push_back({x, t.weight_bytes});
    }
    lp.add_row(one, 'E', 1);
  }
  for (int d = 0; d < p.size(); ++d) {
    auto& row = load[static_cast<std::size_t>(d)];
    row.push_back({T, 1});
    lp.add_row(row, 'G', 0);
    if (!memory[static_cast<std::size_t>(d)].empty()) lp.add_row(memory[static_cast<std::size_t>(d)], 'L', weight_capacity(g, p, d));
  }
  const MilpResult r = lp.solve(60);
  if (r.status == MilpResult::Status::optimal) b.load_s = r.objective / unit;
  return b;
}

}  // namespace dnnperf
