#include "scheduler/schedule.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "core/common/error.h"

namespace dnnperf {
namespace {

double largest_activation(const TaskGraph& g) {
  double largest = 0;
  for (int i = 0; i < g.size(); ++i) {
    double bytes = g.task(i).output_bytes;
    for (int e : g.in_edges(i)) bytes += g.edges[static_cast<std::size_t>(e)].bytes;
    largest = std::max(largest, bytes);
  }
  return largest;
}

/// Time task `i` occupies `device`: alone, or its group's time.
double occupied(const TaskGraph& g, int i, int device, const std::vector<int>& partner) {
  const int j = partner.empty() ? -1 : partner[static_cast<std::size_t>(i)];
  return j < 0 ? g.seconds(i, device) : group_seconds(g.task(i), g.task(j), device);
}

/// Load of a stage's tasks (those on `stage_device`) if they ran on `device`.
std::vector<double> stage_loads(const TaskGraph& g, const std::vector<int>& device_of, const std::vector<int>& partner, int stage_device, int devices) {
  std::vector<double> load(static_cast<std::size_t>(devices), 0.0);
  for (int i = 0; i < g.size(); ++i) {
    if (device_of[static_cast<std::size_t>(i)] != stage_device) continue;
    const int j = partner.empty() ? -1 : partner[static_cast<std::size_t>(i)];
    if (j >= 0 && j < i) continue;  // the pair is counted once, at its first task
    for (int d = 0; d < devices; ++d) load[static_cast<std::size_t>(d)] += occupied(g, i, d, partner);
  }
  return load;
}

}  // namespace

double weight_capacity(const TaskGraph& graph, const Platform& platform, int device) {
  return platform.devices[static_cast<std::size_t>(device)].memory_bytes - largest_activation(graph);
}

void extend_schedule(const TaskGraph& g, const Platform& platform, const std::vector<int>& device_of, const std::vector<int>& order,
                     const std::vector<int>& partner_in, std::vector<Placement>& placed, std::vector<double>& free) {
  const auto n = order.size();
  std::vector<int> partner = partner_in;
  const auto is_placed = [&](int t) { return placed[static_cast<std::size_t>(t)].device >= 0; };
  const auto preds_done = [&](int i) {
    for (int e : g.in_edges(i))
      if (!is_placed(g.edges[static_cast<std::size_t>(e)].from)) return false;
    return true;
  };
  const auto ready = [&](int i, int device) {
    double t = 0;
    for (int e : g.in_edges(i)) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      const Placement& p = placed[static_cast<std::size_t>(edge.from)];
      t = std::max(t, p.finish + platform.transfer_seconds(p.device, device, edge.bytes));
    }
    return t;
  };
  std::size_t first = 0, done = 0;
  while (done < n) {
    while (first < n && is_placed(order[first])) ++first;
    bool progressed = false;
    for (std::size_t k = first; k < n; ++k) {
      const int i = order[k];
      if (is_placed(i) || !preds_done(i)) continue;
      const int j = partner.empty() ? -1 : partner[static_cast<std::size_t>(i)];
      if (j >= 0 && !preds_done(j)) continue;
      const int d = device_of[static_cast<std::size_t>(i)];
      if (d < 0 || d >= platform.size()) throw InputError("schedule: task '" + g.task(i).name + "' has no device");
      if (j >= 0 && device_of[static_cast<std::size_t>(j)] != d) throw InputError("schedule: grouped tasks must share a device");
      double start = std::max(free[static_cast<std::size_t>(d)], ready(i, d));
      if (j >= 0) start = std::max(start, ready(j, d));
      const double finish = start + occupied(g, i, d, partner);
      for (int t : {i, j}) {
        if (t < 0) continue;
        placed[static_cast<std::size_t>(t)] = {d, start, finish, t == i ? j : i};
        ++done;
      }
      free[static_cast<std::size_t>(d)] = finish;
      progressed = true;
      break;
    }
    if (progressed) continue;
    // Two groups each waiting for a member of the other (a -> d, c -> b for groups {a,b} and
    // {c,d}): the first group in the order runs its members separately.
    for (std::size_t k = first; k < n && !progressed; ++k) {
      const int i = order[k];
      const int j = partner.empty() ? -1 : partner[static_cast<std::size_t>(i)];
      if (!is_placed(i) && j >= 0 && preds_done(i)) partner[static_cast<std::size_t>(i)] = partner[static_cast<std::size_t>(j)] = -1, progressed = true;
    }
    if (!progressed) throw InputError("schedule: the task order deadlocks (a task waits for one outside it)");
  }
}

Schedule simulate_assignment(const TaskGraph& g, const Platform& platform, const std::vector<int>& device_of,
                             const std::vector<int>& order, const std::vector<int>& partner) {
  const auto n = static_cast<std::size_t>(g.size());
  if (device_of.size() != n || order.size() != n) throw InputError("schedule: an assignment must place every task");
  Schedule s;
  s.tasks.assign(n, Placement{});
  std::vector<double> free(static_cast<std::size_t>(platform.size()), 0.0);
  extend_schedule(g, platform, device_of, order, partner, s.tasks, free);
  for (const Placement& p : s.tasks) s.makespan_s = std::max(s.makespan_s, p.finish);
  return s;
}

double pipeline_period(const TaskGraph& g, const Platform& platform, const std::vector<int>& device_of,
                       const std::vector<int>& partner, const std::vector<std::vector<int>>& replicas) {
  const int devices = platform.size();
  std::vector<int> copies(static_cast<std::size_t>(devices), 1);
  double period = 0;
  for (int p = 0; p < devices; ++p) {
    if (std::find(device_of.begin(), device_of.end(), p) == device_of.end()) continue;
    const std::vector<double> load = stage_loads(g, device_of, partner, p, devices);
    double rate = 1.0 / load[static_cast<std::size_t>(p)];
    if (!replicas.empty())
      for (int r : replicas[static_cast<std::size_t>(p)]) rate += 1.0 / load[static_cast<std::size_t>(r)];
    if (!replicas.empty()) copies[static_cast<std::size_t>(p)] += static_cast<int>(replicas[static_cast<std::size_t>(p)].size());
    period = std::max(period, std::isfinite(rate) ? 1.0 / rate : 0.0);
  }
  // Each direction of each device pair carries its edges' tensors once per inference, shared by
  // the replicas of the stages at its ends.
  std::vector<double> link(static_cast<std::size_t>(devices * devices), 0.0);
  for (const TaskEdge& e : g.edges) {
    const int a = device_of[static_cast<std::size_t>(e.from)], b = device_of[static_cast<std::size_t>(e.to)];
    if (a != b) link[static_cast<std::size_t>(a * devices + b)] += platform.transfer_seconds(a, b, e.bytes);
  }
  for (int a = 0; a < devices; ++a)
    for (int b = 0; b < devices; ++b)
      period = std::max(period, link[static_cast<std::size_t>(a * devices + b)] / std::min(copies[static_cast<std::size_t>(a)], copies[static_cast<std::size_t>(b)]));
  return period;
}

void replicate_stages(const TaskGraph& g, const Platform& platform, Schedule& s) {
  const int devices = platform.size();
  std::vector<int> device_of, partner;
  for (const Placement& p : s.tasks) device_of.push_back(p.device), partner.push_back(p.partner);
  s.replicas.assign(static_cast<std::size_t>(devices), {});
  std::vector<bool> used(static_cast<std::size_t>(devices), false);
  for (int d : device_of) used[static_cast<std::size_t>(d)] = true;
  std::vector<double> weights(static_cast<std::size_t>(devices), 0.0);
  for (int i = 0; i < g.size(); ++i) weights[static_cast<std::size_t>(device_of[static_cast<std::size_t>(i)])] += g.task(i).weight_bytes;
  s.period_s = pipeline_period(g, platform, device_of, partner, s.replicas);
  for (;;) {
    int best_stage = -1, best_replica = -1;
    double best = s.period_s;
    for (int r = 0; r < devices; ++r) {
      if (used[static_cast<std::size_t>(r)]) continue;
      for (int p = 0; p < devices; ++p) {
        if (std::find(device_of.begin(), device_of.end(), p) == device_of.end()) continue;
        if (weights[static_cast<std::size_t>(p)] > weight_capacity(g, platform, r)) continue;
        bool runs = true;
        for (int i = 0; i < g.size() && runs; ++i)
          if (device_of[static_cast<std::size_t>(i)] == p && !g.task(i).runs_on(r)) runs = false;
        if (!runs) continue;
        s.replicas[static_cast<std::size_t>(p)].push_back(r);
        const double period = pipeline_period(g, platform, device_of, partner, s.replicas);
        s.replicas[static_cast<std::size_t>(p)].pop_back();
        if (period < best * (1 - 1e-9)) best = period, best_stage = p, best_replica = r;
      }
    }
    if (best_stage < 0) return;
    s.replicas[static_cast<std::size_t>(best_stage)].push_back(best_replica);
    used[static_cast<std::size_t>(best_replica)] = true;
    s.period_s = best;
  }
}

std::vector<std::string> check_schedule(const TaskGraph& g, const Platform& platform, const Schedule& s) {
  std::vector<std::string> errors;
  const auto say = [&](const std::string& m) {
    if (errors.size() < 20) errors.push_back(s.method + ": " + m);
  };
  const auto name = [&](int i) { return "task " + std::to_string(i) + " '" + g.task(i).name + "'"; };
  if (s.tasks.size() != static_cast<std::size_t>(g.size())) {
    say("places " + std::to_string(s.tasks.size()) + " of " + std::to_string(g.size()) + " tasks");
    return errors;
  }
  const double tol = 1e-9 * std::max(s.makespan_s, 1e-6);
  std::vector<int> device_of, partner;
  double makespan = 0;
  for (int i = 0; i < g.size(); ++i) {
    const Placement& p = s.tasks[static_cast<std::size_t>(i)];
    device_of.push_back(p.device);
    partner.push_back(p.partner);
    if (p.device < 0 || p.device >= platform.size()) {
      say(name(i) + " has no device");
      return errors;
    }
    if (!g.task(i).runs_on(p.device)) say(name(i) + " is on device '" + platform.devices[static_cast<std::size_t>(p.device)].name + "', which cannot run it");
    makespan = std::max(makespan, p.finish);
    if (p.partner >= 0) {
      const Placement& q = s.tasks[static_cast<std::size_t>(p.partner)];
      if (q.partner != i || q.device != p.device || std::abs(q.start - p.start) > tol || std::abs(q.finish - p.finish) > tol)
        say(name(i) + " and its partner do not form one group on one device");
    }
    if (p.finish - p.start < occupied(g, i, p.device, partner) - tol) say(name(i) + " runs shorter than its cost");
    for (int e : g.in_edges(i)) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      const Placement& from = s.tasks[static_cast<std::size_t>(edge.from)];
      if (p.start < from.finish + platform.transfer_seconds(from.device, p.device, edge.bytes) - tol)
        say(name(i) + " starts before the tensor of " + name(edge.from) + " arrives");
    }
  }
  for (int d = 0; d < platform.size(); ++d) {
    std::vector<int> on;
    double weights = 0;
    for (int i = 0; i < g.size(); ++i)
      if (device_of[static_cast<std::size_t>(i)] == d) {
        weights += g.task(i).weight_bytes;
        if (partner[static_cast<std::size_t>(i)] < i) on.push_back(i);  // a group once
      }
    if (s.objective == Objective::throughput && !s.replicas.empty())
      for (int p = 0; p < platform.size(); ++p)
        for (int r : s.replicas[static_cast<std::size_t>(p)])
          if (r == d)
            for (int i = 0; i < g.size(); ++i)
              if (device_of[static_cast<std::size_t>(i)] == p) weights += g.task(i).weight_bytes;
    if (weights > weight_capacity(g, platform, d) * (1 + 1e-12))
      say("device '" + platform.devices[static_cast<std::size_t>(d)].name + "' holds " + std::to_string(weights) + " bytes of parameters, more than its memory allows");
    // Two runs overlap when one starts before another has finished. A zero-cost task (a view
    // such as flatten) occupies no time, so it may start where another starts or ends; the
    // check must not depend on how ties in start time happen to sort.
    const auto& at = [&](int i) -> const Placement& { return s.tasks[static_cast<std::size_t>(i)]; };
    std::sort(on.begin(), on.end(), [&](int a, int b) { return std::pair{at(a).start, at(a).finish} < std::pair{at(b).start, at(b).finish}; });
    int reach = -1;  // of the runs so far, the one that finishes last
    for (int i : on) {
      if (at(i).finish - at(i).start <= tol) continue;
      if (reach >= 0 && at(i).start < at(reach).finish - tol)
        say(name(i) + " overlaps " + name(reach) + " on device '" + platform.devices[static_cast<std::size_t>(d)].name + "'");
      if (reach < 0 || at(i).finish > at(reach).finish) reach = i;
    }
  }
  if (std::abs(makespan - s.makespan_s) > tol) say("reports makespan " + std::to_string(s.makespan_s) + " s, its tasks finish at " + std::to_string(makespan) + " s");
  if (s.objective == Objective::throughput) {
    const double period = pipeline_period(g, platform, device_of, partner, s.replicas);
    if (std::abs(period - s.period_s) > 1e-9 * std::max(period, 1e-9)) say("reports period " + std::to_string(s.period_s) + " s, its stages give " + std::to_string(period) + " s");
  }
  return errors;
}

}  // namespace dnnperf
