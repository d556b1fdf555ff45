#include "scheduler/list_schedulers.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <queue>

#include "core/common/error.h"

namespace dnnperf {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Busy intervals of each device, kept sorted, with the parameter memory still free.
class DeviceTimelines {
 public:
  DeviceTimelines(const TaskGraph& g, const Platform& p) : g_(g), p_(p), busy_(static_cast<std::size_t>(p.size())) {
    for (int d = 0; d < p.size(); ++d) room_.push_back(weight_capacity(g, p, d));
    placed_.assign(static_cast<std::size_t>(g.size()), Placement{});
  }

  double ready(int task, int device) const {
    double t = 0;
    for (int e : g_.in_edges(task)) {
      const TaskEdge& edge = g_.edges[static_cast<std::size_t>(e)];
      const Placement& from = placed_[static_cast<std::size_t>(edge.from)];
      t = std::max(t, from.finish + p_.transfer_seconds(from.device, device, edge.bytes));
    }
    return t;
  }
  bool fits(int task, int device) const {
    return g_.task(task).runs_on(device) && g_.task(task).weight_bytes <= room_[static_cast<std::size_t>(device)];
  }
  /// Earliest start on `device` at or after `after` for `length` seconds: in an idle gap when
  /// `insertion`, else after the device's last task.
  double earliest_start(int device, double after, double length, bool insertion) const {
    const auto& b = busy_[static_cast<std::size_t>(device)];
    if (!insertion) return b.empty() ? after : std::max(after, b.back().second);
    double t = after;
    for (const auto& [s, f] : b) {
      if (t + length <= s) return t;
      t = std::max(t, f);
    }
    return t;
  }
  void place(int task, int device, double start) {
    const double finish = start + g_.seconds(task, device);
    placed_[static_cast<std::size_t>(task)] = {device, start, finish, -1};
    auto& b = busy_[static_cast<std::size_t>(device)];
    b.insert(std::upper_bound(b.begin(), b.end(), std::pair{start, finish}), {start, finish});
    room_[static_cast<std::size_t>(device)] -= g_.task(task).weight_bytes;
  }
  /// Device and start that finish `task` earliest (device -1 if none can take it).
  std::pair<int, double> best(int task, bool insertion) const {
    int best_d = -1;
    double best_start = 0, best_finish = 0;
    for (int d = 0; d < p_.size(); ++d) {
      if (!fits(task, d)) continue;
      const double start = earliest_start(d, ready(task, d), g_.seconds(task, d), insertion);
      const double finish = start + g_.seconds(task, d);
      if (best_d < 0 || finish < best_finish) best_d = d, best_start = start, best_finish = finish;
    }
    return {best_d, best_start};
  }
  Schedule result(std::string method) const {
    Schedule s;
    s.method = std::move(method);
    s.tasks = placed_;
    for (const Placement& p : placed_) s.makespan_s = std::max(s.makespan_s, p.finish);
    return s;
  }

 private:
  const TaskGraph& g_;
  const Platform& p_;
  std::vector<std::vector<std::pair<double, double>>> busy_;
  std::vector<double> room_;
  std::vector<Placement> placed_;
};

Schedule failed(std::string method, std::string why) {
  Schedule s;
  s.method = std::move(method);
  s.status = std::move(why);
  return s;
}

std::string no_room(const TaskGraph& g, int task) {
  return "no device can hold task '" + g.task(task).name + "' (memory full or op unsupported)";
}

double mean_seconds(const TaskNode& t) {
  double sum = 0;
  int n = 0;
  for (double s : t.seconds)
    if (s < kCannotRun) sum += s, ++n;
  return sum / n;
}

double mean_transfer(const Platform& p, double bytes) {
  if (p.size() < 2) return 0;
  double sum = 0;
  for (int a = 0; a < p.size(); ++a)
    for (int b = 0; b < p.size(); ++b)
      if (a != b) sum += p.transfer_seconds(a, b, bytes);
  return sum / (p.size() * (p.size() - 1));
}

std::vector<double> upward_rank(const TaskGraph& g, const Platform& p) {
  std::vector<double> rank(static_cast<std::size_t>(g.size()), 0.0);
  for (int i = g.size() - 1; i >= 0; --i) {
    double tail = 0;
    for (int e : g.out_edges(i)) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      tail = std::max(tail, mean_transfer(p, edge.bytes) + rank[static_cast<std::size_t>(edge.to)]);
    }
    rank[static_cast<std::size_t>(i)] = mean_seconds(g.task(i)) + tail;
  }
  return rank;
}

std::vector<double> downward_rank(const TaskGraph& g, const Platform& p) {
  std::vector<double> rank(static_cast<std::size_t>(g.size()), 0.0);
  for (int i = 0; i < g.size(); ++i)
    for (int e : g.in_edges(i)) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      rank[static_cast<std::size_t>(i)] = std::max(rank[static_cast<std::size_t>(i)], rank[static_cast<std::size_t>(edge.from)] +
                                                                                         mean_seconds(g.task(edge.from)) + mean_transfer(p, edge.bytes));
    }
  return rank;
}

}  // namespace

Schedule schedule_single_device(const TaskGraph& g, const Platform& p) {
  const auto t0 = Clock::now();
  std::vector<int> order(static_cast<std::size_t>(g.size()));
  std::iota(order.begin(), order.end(), 0);
  Schedule best = failed("single", "no single device can run and hold the whole network");
  for (int d = 0; d < p.size(); ++d) {
    double weights = 0;
    bool runs = true;
    for (int i = 0; i < g.size(); ++i) weights += g.task(i).weight_bytes, runs = runs && g.task(i).runs_on(d);
    if (!runs || weights > weight_capacity(g, p, d)) continue;
    Schedule s = simulate_assignment(g, p, std::vector<int>(static_cast<std::size_t>(g.size()), d), order);
    if (!best.found() || s.makespan_s < best.makespan_s) best = std::move(s);
  }
  best.method = "single";
  best.solve_s = since(t0);
  return best;
}

Schedule schedule_heft(const TaskGraph& g, const Platform& p) {
  const auto t0 = Clock::now();
  const std::vector<double> rank = upward_rank(g, p);
  std::vector<int> order(static_cast<std::size_t>(g.size()));
  std::iota(order.begin(), order.end(), 0);
  // Decreasing rank is topological except for ties (zero-cost tasks): the index breaks them.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank[static_cast<std::size_t>(a)] > rank[static_cast<std::size_t>(b)]; });
  std::vector<int> position(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) position[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  for (const TaskEdge& e : g.edges)
    if (position[static_cast<std::size_t>(e.from)] > position[static_cast<std::size_t>(e.to)]) {
      std::stable_sort(order.begin(), order.end());  // cannot happen with positive costs; stay safe
      break;
    }
  DeviceTimelines timelines(g, p);
  for (int i : order) {
    const auto [d, start] = timelines.best(i, true);
    if (d < 0) return failed("heft", no_room(g, i));
    timelines.place(i, d, start);
  }
  Schedule s = timelines.result("heft");
  s.solve_s = since(t0);
  return s;
}

Schedule schedule_cpop(const TaskGraph& g, const Platform& p) {
  const auto t0 = Clock::now();
  const std::vector<double> up = upward_rank(g, p), down = downward_rank(g, p);
  std::vector<double> priority(static_cast<std::size_t>(g.size()));
  for (std::size_t i = 0; i < priority.size(); ++i) priority[i] = up[i] + down[i];
  // The critical path: from the entry task of highest priority, follow successors of equal priority.
  std::vector<bool> critical(static_cast<std::size_t>(g.size()), false);
  int entry = -1;
  for (int i = 0; i < g.size(); ++i)
    if (g.in_edges(i).empty() && (entry < 0 || priority[static_cast<std::size_t>(i)] > priority[static_cast<std::size_t>(entry)])) entry = i;
  const double cp = priority[static_cast<std::size_t>(entry)];
  const double tol = 1e-9 * std::max(cp, 1e-12);
  for (int i = entry; i >= 0;) {
    critical[static_cast<std::size_t>(i)] = true;
    int next = -1;
    for (int e : g.out_edges(i)) {
      const int j = g.edges[static_cast<std::size_t>(e)].to;
      if (std::abs(priority[static_cast<std::size_t>(j)] - cp) <= tol && (next < 0 || j < next)) next = j;
    }
    i = next;
  }
  // The critical-path device: runs the whole path, holds its parameters, and does so fastest.
  int cp_device = -1;
  double cp_time = 0;
  for (int d = 0; d < p.size(); ++d) {
    double t = 0, w = 0;
    bool ok = true;
    for (int i = 0; i < g.size(); ++i)
      if (critical[static_cast<std::size_t>(i)]) ok = ok && g.task(i).runs_on(d), t += g.seconds(i, d), w += g.task(i).weight_bytes;
    if (!ok || w > weight_capacity(g, p, d)) continue;
    if (cp_device < 0 || t < cp_time) cp_device = d, cp_time = t;
  }
  DeviceTimelines timelines(g, p);
  std::vector<int> waiting(static_cast<std::size_t>(g.size()));
  for (int i = 0; i < g.size(); ++i) waiting[static_cast<std::size_t>(i)] = static_cast<int>(g.in_edges(i).size());
  const auto lower = [&](int a, int b) {
    return priority[static_cast<std::size_t>(a)] < priority[static_cast<std::size_t>(b)] ||
           (priority[static_cast<std::size_t>(a)] == priority[static_cast<std::size_t>(b)] && a > b);
  };
  std::priority_queue<int, std::vector<int>, decltype(lower)> ready(lower);
  for (int i = 0; i < g.size(); ++i)
    if (waiting[static_cast<std::size_t>(i)] == 0) ready.push(i);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    int d = -1;
    double start = 0;
    if (critical[static_cast<std::size_t>(i)] && cp_device >= 0 && timelines.fits(i, cp_device)) {
      d = cp_device;
      start = timelines.earliest_start(d, timelines.ready(i, d), g.seconds(i, d), true);
    } else {
      std::tie(d, start) = timelines.best(i, true);
    }
    if (d < 0) return failed("cpop", no_room(g, i));
    timelines.place(i, d, start);
    for (int e : g.out_edges(i)) {
      const int j = g.edges[static_cast<std::size_t>(e)].to;
      if (--waiting[static_cast<std::size_t>(j)] == 0) ready.push(j);
    }
  }
  Schedule s = timelines.result("cpop");
  s.solve_s = since(t0);
  return s;
}

Schedule schedule_greedy(const TaskGraph& g, const Platform& p) {
  const auto t0 = Clock::now();
  DeviceTimelines timelines(g, p);
  std::vector<int> waiting(static_cast<std::size_t>(g.size()));
  std::vector<int> ready;
  for (int i = 0; i < g.size(); ++i)
    if ((waiting[static_cast<std::size_t>(i)] = static_cast<int>(g.in_edges(i).size())) == 0) ready.push_back(i);
  while (!ready.empty()) {
    std::size_t pick = 0;
    int best_d = -1;
    double best_start = 0, best_finish = 0;
    for (std::size_t k = 0; k < ready.size(); ++k) {
      const auto [d, start] = timelines.best(ready[k], false);
      if (d < 0) return failed("greedy", no_room(g, ready[k]));
      const double finish = start + g.seconds(ready[k], d);
      if (best_d < 0 || finish < best_finish) pick = k, best_d = d, best_start = start, best_finish = finish;
    }
    const int i = ready[pick];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
    timelines.place(i, best_d, best_start);
    for (int e : g.out_edges(i)) {
      const int j = g.edges[static_cast<std::size_t>(e)].to;
      if (--waiting[static_cast<std::size_t>(j)] == 0) ready.push_back(j);
    }
  }
  Schedule s = timelines.result("greedy");
  s.solve_s = since(t0);
  return s;
}

}  // namespace dnnperf
