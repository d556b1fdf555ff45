#include "scheduler/milp_schedule.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/common/error.h"
#include "scheduler/milp_solver.h"

namespace dnnperf {
namespace {

// The program counts time in microseconds: CBC's tolerances are absolute, and kernel times in
// seconds (1e-5) would drown in them.
constexpr double kUnit = 1e6;
// Weight of the tie-breaking terms, relative to the main objective.
constexpr double kTieBreak = 1e-4;

using Terms = std::vector<std::pair<int, double>>;

bool reaches(const std::vector<std::vector<std::uint64_t>>& reach, int a, int b) {
  return (reach[static_cast<std::size_t>(a)][static_cast<std::size_t>(b) / 64] >> (b % 64)) & 1u;
}

struct GroupCandidate {
  int a = 0, b = 0;                 // local indices in the module
  std::vector<double> seconds;      // per device; kCannotRun where not offered
};

/// Pairs of independent sibling tasks (a common predecessor or successor) that the cost model
/// says run faster together than one after the other, the best few per task.
std::vector<GroupCandidate> group_candidates(const TaskGraph& g, const std::vector<int>& module, const std::vector<std::vector<int>>& allowed,
                                             const std::vector<std::vector<std::uint64_t>>& reach, const MilpOptions& o) {
  std::vector<GroupCandidate> all;
  std::vector<double> saving;
  if (!o.groups || o.groups_per_task <= 0) return all;
  const auto neighbours = [&](int t) {
    std::vector<int> n;
    for (int e : g.in_edges(t)) n.push_back(-1 - g.edges[static_cast<std::size_t>(e)].from);
    for (int e : g.out_edges(t)) n.push_back(g.edges[static_cast<std::size_t>(e)].to);
    std::sort(n.begin(), n.end());
    return n;
  };
  std::vector<std::vector<int>> nb;
  for (int t : module) nb.push_back(neighbours(t));
  for (std::size_t a = 0; a < module.size(); ++a)
    for (std::size_t b = a + 1; b < module.size(); ++b) {
      const int ta = module[a], tb = module[b];
      if (reaches(reach, ta, tb) || reaches(reach, tb, ta)) continue;
      std::vector<int> common;
      std::set_intersection(nb[a].begin(), nb[a].end(), nb[b].begin(), nb[b].end(), std::back_inserter(common));
      if (common.empty()) continue;
      GroupCandidate c{static_cast<int>(a), static_cast<int>(b), std::vector<double>(static_cast<std::size_t>(g.devices), kCannotRun)};
      double best = 0;
      for (int d : allowed[a]) {
        if (std::find(allowed[b].begin(), allowed[b].end(), d) == allowed[b].end()) continue;
        const double sequential = g.seconds(ta, d) + g.seconds(tb, d);
        const double together = group_seconds(g.task(ta), g.task(tb), d);
        if (together < 0.95 * sequential) {
          c.seconds[static_cast<std::size_t>(d)] = together;
          best = std::max(best, sequential - together);
        }
      }
      if (best > 0) all.push_back(std::move(c)), saving.push_back(best);
    }
  std::vector<std::size_t> rank(all.size());
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(), [&](std::size_t x, std::size_t y) { return saving[x] > saving[y]; });
  std::vector<int> count(module.size(), 0);
  std::vector<GroupCandidate> kept;
  for (std::size_t r : rank) {
    const GroupCandidate& c = all[r];
    if (count[static_cast<std::size_t>(c.a)] >= o.groups_per_task || count[static_cast<std::size_t>(c.b)] >= o.groups_per_task) continue;
    ++count[static_cast<std::size_t>(c.a)], ++count[static_cast<std::size_t>(c.b)];
    kept.push_back(c);
  }
  return kept;
}

/// Earliest time task `t` could start on `device` given the placed tasks (its module-external inputs).
double release(const TaskGraph& g, const Platform& p, const SchedulingState& st, int t, int device) {
  double r = st.device_free[static_cast<std::size_t>(device)];
  for (int e : g.in_edges(t)) {
    const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
    const Placement& from = st.placed[static_cast<std::size_t>(edge.from)];
    if (from.device >= 0) r = std::max(r, from.finish + p.transfer_seconds(from.device, device, edge.bytes));
  }
  return r;
}

struct Assignment {
  std::vector<int> device;  // per module task
  std::vector<int> partner; // per module task: local index or -1
  std::vector<double> start;
};

/// The devices and groups a solution chose, into `a` (whose other fields are kept).
void read_solution(const MilpResult& r, const std::vector<std::vector<int>>& x, const std::vector<std::vector<int>>& allowed,
                   const std::vector<GroupCandidate>& groups, const std::vector<std::vector<int>>& gv, Assignment& a) {
  const auto chosen = [&](int v) { return v >= 0 && r.values[static_cast<std::size_t>(v)] > 0.5; };
  for (std::size_t k = 0; k < allowed.size(); ++k)
    for (int d : allowed[k])
      if (chosen(x[k][static_cast<std::size_t>(d)])) a.device[k] = d;
  for (std::size_t q = 0; q < groups.size(); ++q)
    for (int v : gv[q])
      if (chosen(v)) {
        a.partner[static_cast<std::size_t>(groups[q].a)] = groups[q].b;
        a.partner[static_cast<std::size_t>(groups[q].b)] = groups[q].a;
      }
}

/// Latency: earliest finish, tasks in index order, no insertion, no groups. The solver's start.
Assignment greedy_latency(const TaskGraph& g, const Platform& p, const std::vector<int>& module, const std::vector<std::vector<int>>& allowed,
                          const SchedulingState& st) {
  SchedulingState s = st;
  Assignment a;
  for (std::size_t k = 0; k < module.size(); ++k) {
    const int t = module[k];
    int best = -1;
    double best_start = 0, best_finish = 0;
    for (int d : allowed[k]) {
      if (g.task(t).weight_bytes > s.weight_room[static_cast<std::size_t>(d)]) continue;
      const double start = release(g, p, s, t, d);
      if (best < 0 || start + g.seconds(t, d) < best_finish) best = d, best_start = start, best_finish = start + g.seconds(t, d);
    }
    if (best < 0) throw InputError("no device can hold task '" + g.task(t).name + "' (its parameters exceed the memory left)");
    s.placed[static_cast<std::size_t>(t)] = {best, best_start, best_finish, -1};
    s.device_free[static_cast<std::size_t>(best)] = best_finish;
    s.weight_room[static_cast<std::size_t>(best)] -= g.task(t).weight_bytes;
    a.device.push_back(best);
    a.partner.push_back(-1);
    a.start.push_back(best_start);
  }
  return a;
}

/// Throughput: largest task first onto the device whose load grows least. The solver's start.
Assignment greedy_throughput(const TaskGraph& g, const std::vector<int>& module, const std::vector<std::vector<int>>& allowed,
                             const SchedulingState& st) {
  std::vector<std::size_t> order(module.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return g.task(module[x]).fastest() > g.task(module[y]).fastest(); });
  std::vector<double> load = st.load, room = st.weight_room;
  Assignment a;
  a.device.assign(module.size(), -1);
  a.partner.assign(module.size(), -1);
  a.start.assign(module.size(), 0);
  for (std::size_t k : order) {
    const int t = module[k];
    int best = -1;
    for (int d : allowed[k]) {
      if (g.task(t).weight_bytes > room[static_cast<std::size_t>(d)]) continue;
      if (best < 0 || load[static_cast<std::size_t>(d)] + g.seconds(t, d) < load[static_cast<std::size_t>(best)] + g.seconds(t, best)) best = d;
    }
    if (best < 0) throw InputError("no device can hold task '" + g.task(t).name + "' (its parameters exceed the memory left)");
    a.device[k] = best;
    load[static_cast<std::size_t>(best)] += g.seconds(t, best);
    room[static_cast<std::size_t>(best)] -= g.task(t).weight_bytes;
  }
  return a;
}

/// The module's finish (latency) or the period so far (throughput) if `a` were committed; for
/// latency, also sets a.start to the simulated starts. Infinity if `a` breaks memory.
double evaluate(const TaskGraph& g, const Platform& p, Objective objective, const std::vector<int>& module, Assignment& a, const SchedulingState& st,
                const std::vector<double>& tail) {
  std::vector<double> room = st.weight_room;
  for (std::size_t k = 0; k < module.size(); ++k) {
    const auto d = static_cast<std::size_t>(a.device[k]);
    room[d] -= g.task(module[k]).weight_bytes;
    if (room[d] < 0 || !g.task(module[k]).runs_on(a.device[k])) return kCannotRun;
  }
  const int devices = p.size();
  if (objective == Objective::latency) {
    std::vector<int> device_of(static_cast<std::size_t>(g.size()), -1), order;
    for (std::size_t k = 0; k < module.size(); ++k) device_of[static_cast<std::size_t>(module[k])] = a.device[k];
    std::vector<std::size_t> by_start(module.size());
    std::iota(by_start.begin(), by_start.end(), 0);
    std::stable_sort(by_start.begin(), by_start.end(), [&](std::size_t x, std::size_t y) { return a.start[x] < a.start[y]; });
    for (std::size_t k : by_start) order.push_back(module[k]);
    std::vector<Placement> placed = st.placed;
    std::vector<double> free = st.device_free;
    extend_schedule(g, p, device_of, order, {}, placed, free);
    double finish = 0;
    for (std::size_t k = 0; k < module.size(); ++k) {
      a.start[k] = placed[static_cast<std::size_t>(module[k])].start;
      finish = std::max(finish, placed[static_cast<std::size_t>(module[k])].finish + tail[static_cast<std::size_t>(module[k])]);
    }
    return finish;
  }
  std::vector<double> load = st.load, link = st.link_load;
  std::vector<int> where(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t k = 0; k < module.size(); ++k) where[static_cast<std::size_t>(module[k])] = a.device[k];
  for (std::size_t k = 0; k < module.size(); ++k) {
    const int d = a.device[k];
    load[static_cast<std::size_t>(d)] += g.seconds(module[k], d);
    for (int e : g.in_edges(module[k])) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      const int from = where[static_cast<std::size_t>(edge.from)] >= 0 ? where[static_cast<std::size_t>(edge.from)] : st.placed[static_cast<std::size_t>(edge.from)].device;
      if (from != d) link[static_cast<std::size_t>(from * devices + d)] += p.transfer_seconds(from, d, edge.bytes);
    }
  }
  return std::max(*std::max_element(load.begin(), load.end()), *std::max_element(link.begin(), link.end()));
}

void commit(const TaskGraph& g, const Platform& p, Objective objective, const std::vector<int>& module, const Assignment& a, SchedulingState& st) {
  const int devices = p.size();
  std::vector<int> device_of(static_cast<std::size_t>(g.size()), -1), partner(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t k = 0; k < module.size(); ++k) {
    device_of[static_cast<std::size_t>(module[k])] = a.device[k];
    if (a.partner[k] >= 0) partner[static_cast<std::size_t>(module[k])] = module[static_cast<std::size_t>(a.partner[k])];
    st.weight_room[static_cast<std::size_t>(a.device[k])] -= g.task(module[k]).weight_bytes;
  }
  if (objective == Objective::latency) {
    std::vector<std::size_t> by_start(module.size());
    std::iota(by_start.begin(), by_start.end(), 0);
    std::stable_sort(by_start.begin(), by_start.end(), [&](std::size_t x, std::size_t y) { return a.start[x] < a.start[y]; });
    std::vector<int> order;
    for (std::size_t k : by_start) order.push_back(module[k]);
    extend_schedule(g, p, device_of, order, partner, st.placed, st.device_free);
    return;
  }
  for (std::size_t k = 0; k < module.size(); ++k) {
    const int t = module[k], d = a.device[k];
    st.placed[static_cast<std::size_t>(t)] = {d, 0, 0, partner[static_cast<std::size_t>(t)]};
    const int j = a.partner[k];
    if (j < 0) st.load[static_cast<std::size_t>(d)] += g.seconds(t, d);
    else if (static_cast<std::size_t>(j) > k) st.load[static_cast<std::size_t>(d)] += group_seconds(g.task(t), g.task(module[static_cast<std::size_t>(j)]), d);
    for (int e : g.in_edges(t)) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      const int from = st.placed[static_cast<std::size_t>(edge.from)].device;
      if (from != d) st.link_load[static_cast<std::size_t>(from * devices + d)] += p.transfer_seconds(from, d, edge.bytes);
    }
  }
}

}  // namespace

SchedulingState::SchedulingState(const TaskGraph& g, const Platform& p)
    : placed(static_cast<std::size_t>(g.size())),
      device_free(static_cast<std::size_t>(p.size()), 0.0),
      load(static_cast<std::size_t>(p.size()), 0.0),
      link_load(static_cast<std::size_t>(p.size() * p.size()), 0.0) {
  for (int d = 0; d < p.size(); ++d) weight_room.push_back(weight_capacity(g, p, d));
}

ModuleResult solve_module(const TaskGraph& g, const Platform& p, Objective objective, const std::vector<int>& module, SchedulingState& st,
                          const MilpOptions& o, const std::vector<std::vector<std::uint64_t>>& reach, const Schedule* hint) {
  const int devices = p.size();
  const std::size_t m = module.size();
  std::vector<int> local(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t k = 0; k < m; ++k) local[static_cast<std::size_t>(module[k])] = static_cast<int>(k);
  std::vector<std::vector<int>> allowed(m);
  for (std::size_t k = 0; k < m; ++k) {
    for (int d = 0; d < devices; ++d)
      if (g.task(module[k]).runs_on(d) && g.task(module[k]).weight_bytes <= st.weight_room[static_cast<std::size_t>(d)]) allowed[k].push_back(d);
    if (allowed[k].empty()) throw InputError("no device can run and hold task '" + g.task(module[k]).name + "'");
  }
  // The least time the work after each task still needs: its longest path of successors at
  // their fastest, transfers free.
  std::vector<double> tail(static_cast<std::size_t>(g.size()), 0.0);
  for (int i = g.size() - 1; i >= 0; --i)
    for (int e : g.out_edges(i)) {
      const int j = g.edges[static_cast<std::size_t>(e)].to;
      tail[static_cast<std::size_t>(i)] = std::max(tail[static_cast<std::size_t>(i)], g.task(j).fastest() + tail[static_cast<std::size_t>(j)]);
    }
  // The solver starts from the better of a greedy assignment and the hint.
  Assignment start = objective == Objective::latency ? greedy_latency(g, p, module, allowed, st) : greedy_throughput(g, module, allowed, st);
  double start_value = evaluate(g, p, objective, module, start, st, tail);
  if (hint && hint->found()) {
    Assignment h;
    for (int t : module) {
      h.device.push_back(hint->tasks[static_cast<std::size_t>(t)].device);
      h.partner.push_back(-1);
      h.start.push_back(hint->tasks[static_cast<std::size_t>(t)].start);
    }
    const double value = evaluate(g, p, objective, module, h, st, tail);
    if (value < start_value) start = std::move(h), start_value = value;
  }
  const std::vector<GroupCandidate> groups = group_candidates(g, module, allowed, reach, o);

  MilpProblem mp;
  std::vector<double> init;
  const auto var = [&](double lo, double hi, double cost, bool integer, double value) {
    init.push_back(value);
    return mp.add_variable(lo, hi, cost, integer);
  };
  // x[k][d]; for throughput, a small cost on each task's time keeps the total work low among
  // assignments of equal period.
  double total = 0;
  for (std::size_t k = 0; k < m; ++k) total += g.task(module[k]).fastest() * kUnit;
  const double work_tie = objective == Objective::throughput ? kTieBreak / std::max(total, 1e-9) : 0.0;
  std::vector<std::vector<int>> x(m, std::vector<int>(static_cast<std::size_t>(devices), -1));
  for (std::size_t k = 0; k < m; ++k)
    for (int d : allowed[k])
      x[k][static_cast<std::size_t>(d)] = var(0, 1, work_tie * g.seconds(module[k], d) * kUnit, true, start.device[k] == d ? 1 : 0);
  std::vector<std::vector<int>> gv(groups.size(), std::vector<int>(static_cast<std::size_t>(devices), -1));
  std::vector<std::vector<std::size_t>> groups_of(m);
  for (std::size_t q = 0; q < groups.size(); ++q) {
    for (int d = 0; d < devices; ++d)
      if (groups[q].seconds[static_cast<std::size_t>(d)] < kCannotRun) gv[q][static_cast<std::size_t>(d)] = var(0, 1, 0, true, 0);
    groups_of[static_cast<std::size_t>(groups[q].a)].push_back(q);
    groups_of[static_cast<std::size_t>(groups[q].b)].push_back(q);
  }
  for (std::size_t k = 0; k < m; ++k) {
    Terms one;
    for (int d : allowed[k]) one.push_back({x[k][static_cast<std::size_t>(d)], 1.0});
    mp.add_row(one, 'E', 1);
  }
  for (std::size_t q = 0; q < groups.size(); ++q)
    for (int d = 0; d < devices; ++d) {
      const int v = gv[q][static_cast<std::size_t>(d)];
      if (v < 0) continue;
      mp.add_row({{v, 1}, {x[static_cast<std::size_t>(groups[q].a)][static_cast<std::size_t>(d)], -1}}, 'L', 0);
      mp.add_row({{v, 1}, {x[static_cast<std::size_t>(groups[q].b)][static_cast<std::size_t>(d)], -1}}, 'L', 0);
    }
  for (std::size_t k = 0; k < m; ++k) {
    if (groups_of[k].size() < 2) continue;
    Terms at_most_one;
    for (std::size_t q : groups_of[k])
      for (int v : gv[q])
        if (v >= 0) at_most_one.push_back({v, 1});
    mp.add_row(at_most_one, 'L', 1);
  }
  for (int d = 0; d < devices; ++d) {
    Terms mem;
    for (std::size_t k = 0; k < m; ++k)
      if (x[k][static_cast<std::size_t>(d)] >= 0 && g.task(module[k]).weight_bytes > 0) mem.push_back({x[k][static_cast<std::size_t>(d)], g.task(module[k]).weight_bytes});
    if (!mem.empty()) mp.add_row(mem, 'L', st.weight_room[static_cast<std::size_t>(d)]);
  }
  // dur[k] as terms, in the program's unit.
  const auto duration = [&](std::size_t k, double sign, Terms& terms) {
    const int t = module[k];
    for (int d : allowed[k]) terms.push_back({x[k][static_cast<std::size_t>(d)], sign * g.seconds(t, d) * kUnit});
    for (std::size_t q : groups_of[k])
      for (int d = 0; d < devices; ++d)
        if (gv[q][static_cast<std::size_t>(d)] >= 0)
          terms.push_back({gv[q][static_cast<std::size_t>(d)], sign * (groups[q].seconds[static_cast<std::size_t>(d)] - g.seconds(t, d)) * kUnit});
  };

  if (objective == Objective::latency) {
    // The objective looks ahead (`tail`): C bounds each task's finish plus the least time the work after
    // it still needs (its longest path of successors at their fastest, transfers free). For the
    // whole graph these rows are valid cuts; for a module they stop it from finishing its own
    // tasks early at the expense of the critical path beyond it.
    // Times in the program run from t0, the module's earliest release, so that big-M values span
    // the module's own time, not all that came before it.
    double t0 = kCannotRun;
    for (std::size_t k = 0; k < m; ++k)
      for (int d : allowed[k]) t0 = std::min(t0, release(g, p, st, module[k], d) * kUnit);
    double start_objective = 0;  // the start's value: an upper bound on the optimum
    for (std::size_t k = 0; k < m; ++k)
      start_objective = std::max(start_objective, (start.start[k] + g.seconds(module[k], start.device[k]) + tail[static_cast<std::size_t>(module[k])]) * kUnit);
    const double horizon = (start_objective - t0) * 1.000001 + 1e-3;
    // Latest finish of each task in any solution at least as good as the start: big-M per task.
    std::vector<double> latest(m);
    for (std::size_t k = 0; k < m; ++k) latest[k] = std::max(horizon - tail[static_cast<std::size_t>(module[k])] * kUnit, 1e-3);
    const double tie = kTieBreak / static_cast<double>(std::max<std::size_t>(m, 1));
    std::vector<int> s(m);
    for (std::size_t k = 0; k < m; ++k) s[k] = var(0, latest[k], tie, false, std::max(0.0, start.start[k] * kUnit - t0));
    const int C = var(0, horizon, 1.0, false, start_objective - t0);
    for (std::size_t k = 0; k < m; ++k) {
      Terms rel{{s[k], 1}};
      for (int d : allowed[k]) rel.push_back({x[k][static_cast<std::size_t>(d)], -(release(g, p, st, module[k], d) * kUnit - t0)});
      mp.add_row(rel, 'G', 0);
      Terms fin{{C, 1}, {s[k], -1}};
      duration(k, -1, fin);
      mp.add_row(fin, 'G', tail[static_cast<std::size_t>(module[k])] * kUnit);
    }
    for (std::size_t k = 0; k < m; ++k)
      for (int e : g.out_edges(module[k])) {
        const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
        const int j = local[static_cast<std::size_t>(edge.to)];
        if (j < 0) continue;
        const auto jj = static_cast<std::size_t>(j);
        Terms prec{{s[jj], 1}, {s[k], -1}};
        duration(k, -1, prec);
        mp.add_row(prec, 'G', 0);
        for (int d : allowed[k])
          for (int d2 : allowed[jj]) {
            const double c = p.transfer_seconds(d, d2, edge.bytes) * kUnit;
            if (d == d2 || c <= 0) continue;
            Terms comm = prec;
            comm.push_back({x[k][static_cast<std::size_t>(d)], -c});
            comm.push_back({x[jj][static_cast<std::size_t>(d2)], -c});
            mp.add_row(comm, 'G', -c);
          }
      }
    // Disjunctions between independent tasks that may share a device.
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = a + 1; b < m; ++b) {
        if (reaches(reach, module[a], module[b]) || reaches(reach, module[b], module[a])) continue;
        std::vector<int> shared;
        for (int d : allowed[a])
          if (std::find(allowed[b].begin(), allowed[b].end(), d) != allowed[b].end()) shared.push_back(d);
        if (shared.empty()) continue;
        const bool a_first = start.start[a] < start.start[b] || (start.start[a] == start.start[b] && a < b);
        const int order = var(0, 1, 0, true, a_first ? 1 : 0);
        const int same = var(0, 1, 0, false, start.device[a] == start.device[b] ? 1 : 0);
        for (int d : shared) mp.add_row({{same, 1}, {x[a][static_cast<std::size_t>(d)], -1}, {x[b][static_cast<std::size_t>(d)], -1}}, 'G', -1);
        std::vector<int> grouped;
        for (std::size_t q : groups_of[a])
          if (static_cast<std::size_t>(groups[q].a + groups[q].b) == a + b)
            for (int v : gv[q])
              if (v >= 0) grouped.push_back(v);
        // a before b:  s_b >= s_a + dur_a - M (1 - order) - M (1 - same) - M grouped, with
        // M = latest finish of a (s_a + dur_a <= latest[a] and s_b >= 0 make the row void then).
        const double Ma = latest[a], Mb = latest[b];
        Terms ab{{s[b], 1}, {s[a], -1}, {order, -Ma}, {same, -Ma}};
        duration(a, -1, ab);
        for (int v : grouped) ab.push_back({v, Ma});
        mp.add_row(ab, 'G', -2 * Ma);
        // b before a:  s_a >= s_b + dur_b - M order - M (1 - same) - M grouped
        Terms ba{{s[a], 1}, {s[b], -1}, {order, Mb}, {same, -Mb}};
        duration(b, -1, ba);
        for (int v : grouped) ba.push_back({v, Mb});
        mp.add_row(ba, 'G', -Mb);
      }
    // Grouped tasks start together.
    for (std::size_t q = 0; q < groups.size(); ++q) {
      const double M = std::max(latest[static_cast<std::size_t>(groups[q].a)], latest[static_cast<std::size_t>(groups[q].b)]);
      Terms any;
      for (int v : gv[q])
        if (v >= 0) any.push_back({v, M});
      Terms up{{s[static_cast<std::size_t>(groups[q].a)], 1}, {s[static_cast<std::size_t>(groups[q].b)], -1}};
      up.insert(up.end(), any.begin(), any.end());
      mp.add_row(up, 'L', M);
      Terms down{{s[static_cast<std::size_t>(groups[q].b)], 1}, {s[static_cast<std::size_t>(groups[q].a)], -1}};
      down.insert(down.end(), any.begin(), any.end());
      mp.add_row(down, 'L', M);
    }
    // The tie-break is worth at most kTieBreak * horizon: a gap that small is optimal enough.
    const MilpResult r = mp.solve(o.time_limit_s, init, std::max(2 * kTieBreak, o.relative_gap) * horizon);
    ModuleResult out;
    out.status = r.status;
    out.seconds = r.seconds;
    if (r.status == MilpResult::Status::error) out.failure = r.describe();
    Assignment chosen = start;
    if (r.has_solution()) {
      out.bound = (r.bound + t0 - kTieBreak * horizon) / kUnit;
      read_solution(r, x, allowed, groups, gv, chosen);
      for (std::size_t k = 0; k < m; ++k) chosen.start[k] = (r.values[static_cast<std::size_t>(s[k])] + t0) / kUnit;
    } else {
      out.used_fallback = true;
    }
    commit(g, p, objective, module, chosen, st);
    return out;
  }

  // Throughput: the period T bounds every device's load and every device pair's transfers.
  std::vector<double> start_load = st.load;
  for (std::size_t k = 0; k < m; ++k) start_load[static_cast<std::size_t>(start.device[k])] += g.seconds(module[k], start.device[k]);
  double start_period = *std::max_element(start_load.begin(), start_load.end()) * kUnit;
  // Link loads of the start, for T's starting value.
  std::vector<double> start_links = st.link_load;
  const auto device_in_start = [&](int t) { return local[static_cast<std::size_t>(t)] >= 0 ? start.device[static_cast<std::size_t>(local[static_cast<std::size_t>(t)])] : st.placed[static_cast<std::size_t>(t)].device; };
  for (std::size_t k = 0; k < m; ++k)
    for (int e : g.in_edges(module[k])) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      const int a = device_in_start(edge.from), b = start.device[k];
      if (a != b) start_links[static_cast<std::size_t>(a * devices + b)] += p.transfer_seconds(a, b, edge.bytes);
    }
  for (double l : start_links) start_period = std::max(start_period, l * kUnit);
  const int T = var(0, start_period * 1.000001 + 1e-3, 1.0, false, start_period);
  for (int d = 0; d < devices; ++d) {
    Terms load{{T, 1}};
    for (std::size_t k = 0; k < m; ++k)
      if (x[k][static_cast<std::size_t>(d)] >= 0) load.push_back({x[k][static_cast<std::size_t>(d)], -g.seconds(module[k], d) * kUnit});
    for (std::size_t q = 0; q < groups.size(); ++q)
      if (gv[q][static_cast<std::size_t>(d)] >= 0) {
        const double saving = g.seconds(module[static_cast<std::size_t>(groups[q].a)], d) + g.seconds(module[static_cast<std::size_t>(groups[q].b)], d) -
                              groups[q].seconds[static_cast<std::size_t>(d)];
        load.push_back({gv[q][static_cast<std::size_t>(d)], saving * kUnit});
      }
    mp.add_row(load, 'G', st.load[static_cast<std::size_t>(d)] * kUnit);
  }
  std::vector<Terms> link(static_cast<std::size_t>(devices * devices));
  for (std::size_t k = 0; k < m; ++k)
    for (int e : g.in_edges(module[k])) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      const int from_local = local[static_cast<std::size_t>(edge.from)];
      for (int b : allowed[k]) {
        if (from_local < 0) {
          const int a = st.placed[static_cast<std::size_t>(edge.from)].device;
          if (a != b) link[static_cast<std::size_t>(a * devices + b)].push_back({x[k][static_cast<std::size_t>(b)], -p.transfer_seconds(a, b, edge.bytes) * kUnit});
          continue;
        }
        const auto fl = static_cast<std::size_t>(from_local);
        for (int a : allowed[fl]) {
          if (a == b) continue;
          const double c = p.transfer_seconds(a, b, edge.bytes) * kUnit;
          const int z = var(0, 1, 0, false, start.device[fl] == a && start.device[k] == b ? 1 : 0);
          mp.add_row({{z, 1}, {x[fl][static_cast<std::size_t>(a)], -1}, {x[k][static_cast<std::size_t>(b)], -1}}, 'G', -1);
          link[static_cast<std::size_t>(a * devices + b)].push_back({z, -c});
        }
      }
    }
  for (int a = 0; a < devices; ++a)
    for (int b = 0; b < devices; ++b) {
      Terms& terms = link[static_cast<std::size_t>(a * devices + b)];
      if (terms.empty()) continue;
      terms.push_back({T, 1});
      mp.add_row(terms, 'G', st.link_load[static_cast<std::size_t>(a * devices + b)] * kUnit);
    }
  const MilpResult r = mp.solve(o.time_limit_s, init);
  ModuleResult out;
  out.status = r.status;
  out.seconds = r.seconds;
  if (r.status == MilpResult::Status::error) out.failure = r.describe();
  Assignment chosen = start;
  if (r.has_solution()) {
    // The tie-break adds at most kTieBreak times the largest slow-down of a task over its fastest device.
    double slowest = 0;
    for (std::size_t k = 0; k < m; ++k) {
      double worst = 0;
      for (int d : allowed[k]) worst = std::max(worst, g.seconds(module[k], d));
      slowest += worst * kUnit;
    }
    const double slowdown = slowest / std::max(total, 1e-9);
    out.bound = (r.bound - kTieBreak * slowdown) / kUnit;
    read_solution(r, x, allowed, groups, gv, chosen);
  } else {
    out.used_fallback = true;
  }
  commit(g, p, objective, module, chosen, st);
  return out;
}

Schedule schedule_from_state(const TaskGraph& g, const Platform& p, Objective objective, std::string method, const SchedulingState& st) {
  Schedule s;
  if (objective == Objective::latency) {
    s.tasks = st.placed;
    for (const Placement& pl : s.tasks) s.makespan_s = std::max(s.makespan_s, pl.finish);
  } else {
    std::vector<int> device_of, partner, order(static_cast<std::size_t>(g.size()));
    for (const Placement& pl : st.placed) device_of.push_back(pl.device), partner.push_back(pl.partner);
    std::iota(order.begin(), order.end(), 0);
    s = simulate_assignment(g, p, device_of, order, partner);
    s.objective = objective;
    replicate_stages(g, p, s);
  }
  s.method = std::move(method);
  s.objective = objective;
  return s;
}

Schedule schedule_milp(const TaskGraph& g, const Platform& p, Objective objective, const MilpOptions& o, const Schedule* hint) {
  const auto reach = g.reachability();
  std::vector<int> all(static_cast<std::size_t>(g.size()));
  std::iota(all.begin(), all.end(), 0);
  SchedulingState st(g, p);
  const ModuleResult r = solve_module(g, p, objective, all, st, o, reach, hint);
  Schedule s = schedule_from_state(g, p, objective, "milp", st);
  s.solve_s = r.seconds;
  switch (r.status) {
    case MilpResult::Status::optimal: s.status = "optimal"; break;
    case MilpResult::Status::feasible: s.status = "feasible (time limit)"; break;
    case MilpResult::Status::error: s.status = r.failure + ": the starting schedule is returned"; break;
    default: s.status = "no solution in the time limit: the starting schedule is returned"; break;
  }
  if (!r.used_fallback) s.solver_bound_s = r.bound;
  return s;
}

}  // namespace dnnperf
