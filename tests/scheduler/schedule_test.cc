// Scheduling methods: every schedule passes the checker, the exact program finds the optimum that
// enumeration finds, the heuristics respect the bounds, and the checker catches broken schedules.
#include <algorithm>
#include <numeric>

#include <catch2/catch.hpp>

#include "networks/import/network_loader.h"
#include "scheduler/bounds.h"
#include "scheduler/list_schedulers.h"
#include "scheduler/split_schedule.h"
#include "tests/scheduler/test_instances.h"

using namespace dnnperf;
using dnnperf::testing::random_task_graph;
using dnnperf::testing::uniform_platform;

namespace {

/// The best latency over every assignment and every topological order (list schedules contain
/// an optimal schedule: simulate the optimum's devices in the order of its start times).
double brute_force_latency(const TaskGraph& g, const Platform& p) {
  const int n = g.size(), D = p.size();
  std::vector<std::vector<int>> orders;
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  do {
    std::vector<int> pos(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) pos[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = k;
    bool topological = true;
    for (const TaskEdge& e : g.edges) topological = topological && pos[static_cast<std::size_t>(e.from)] < pos[static_cast<std::size_t>(e.to)];
    if (topological) orders.push_back(order);
  } while (std::next_permutation(order.begin(), order.end()));
  double best = 1e30;
  std::vector<int> device(static_cast<std::size_t>(n), 0);
  for (;;) {
    for (const auto& o : orders) best = std::min(best, simulate_assignment(g, p, device, o).makespan_s);
    int k = 0;
    while (k < n && ++device[static_cast<std::size_t>(k)] == D) device[static_cast<std::size_t>(k++)] = 0;
    if (k == n) break;
  }
  return best;
}

void require_valid(const TaskGraph& g, const Platform& p, const Schedule& s) {
  INFO(s.method << ": " << s.status);
  REQUIRE(s.found());
  const std::vector<std::string> problems = check_schedule(g, p, s);
  for (const std::string& m : problems) UNSCOPED_INFO(m);
  REQUIRE(problems.empty());
}

}  // namespace

TEST_CASE("the exact program finds the optimum that enumeration finds") {
  const Platform p = uniform_platform(2, 2e-5, 5e9);
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const TaskGraph g = random_task_graph(6, 2, seed);
    MilpOptions o;
    o.groups = false;
    o.time_limit_s = 30;
    const Schedule s = schedule_milp(g, p, Objective::latency, o);
    require_valid(g, p, s);
    REQUIRE(s.status == "optimal");
    CHECK(s.makespan_s == Approx(brute_force_latency(g, p)).epsilon(1e-6));
    REQUIRE(s.solver_bound_s);
    CHECK(*s.solver_bound_s <= s.makespan_s * (1 + 1e-6));
  }
}

TEST_CASE("every method returns a valid schedule no better than the lower bound") {
  const Platform p = uniform_platform(3, 1e-5, 1e10);
  for (unsigned seed = 10; seed <= 12; ++seed) {
    const TaskGraph g = random_task_graph(24, 3, seed, 0.15);
    const LowerBound lb = lower_bound(g, p, true);
    REQUIRE(lb.critical_path_s > 0);
    REQUIRE(lb.load_s > 0);
    MilpOptions mo;
    mo.time_limit_s = 2;
    SplitOptions so;
    so.module_tasks = 8;
    so.time_limit_s = 4;
    for (const Schedule& s : {schedule_single_device(g, p), schedule_greedy(g, p), schedule_heft(g, p), schedule_cpop(g, p),
                              schedule_split(g, p, Objective::latency, so), schedule_milp(g, p, Objective::latency, mo)}) {
      require_valid(g, p, s);
      CHECK(s.makespan_s >= lb.value(Objective::latency) * (1 - 1e-6));
    }
  }
}

TEST_CASE("throughput schedules are valid and replicate stages onto idle devices") {
  const Platform p = uniform_platform(3, 1e-5, 1e10);
  const TaskGraph g = random_task_graph(16, 3, 21, 0.2);
  const LowerBound lb = lower_bound(g, p, true);
  MilpOptions mo;
  mo.time_limit_s = 2;
  SplitOptions so;
  so.module_tasks = 8;
  so.time_limit_s = 4;
  for (Schedule s : {schedule_milp(g, p, Objective::throughput, mo), schedule_split(g, p, Objective::throughput, so)}) {
    s.objective = Objective::throughput;
    require_valid(g, p, s);
    CHECK(s.period_s >= lb.value(Objective::throughput) * (1 - 1e-6));
  }
  // One device alone, then replicated on the other two: the period falls below the single time.
  Schedule single = schedule_single_device(g, p);
  single.objective = Objective::throughput;
  replicate_stages(g, p, single);
  require_valid(g, p, single);
  int replicas = 0;
  for (const auto& r : single.replicas) replicas += static_cast<int>(r.size());
  CHECK(replicas == 2);
  CHECK(single.period_s < single.makespan_s);
}

TEST_CASE("grouping two parallel tasks that leave the device half idle shortens the schedule") {
  const Platform p = uniform_platform(1, 1e-5, 1e10);
  TaskGraph g;
  g.devices = 1;
  for (int i = 0; i < 4; ++i) {
    TaskNode t;
    t.name = "t" + std::to_string(i);
    t.ops = {i};
    t.seconds = {1e-3};
    t.busy = {i == 1 || i == 2 ? 0.4e-3 : 1e-3};  // the two branches keep the device 40% busy
    t.launch = {5e-6};
    g.tasks.push_back(t);
  }
  g.edges = {{0, 1, 1e3}, {0, 2, 1e3}, {1, 3, 1e3}, {2, 3, 1e3}};
  g.index();
  MilpOptions o;
  o.time_limit_s = 10;
  const Schedule with = schedule_milp(g, p, Objective::latency, o);
  o.groups = false;
  const Schedule without = schedule_milp(g, p, Objective::latency, o);
  require_valid(g, p, with);
  require_valid(g, p, without);
  CHECK(without.makespan_s == Approx(4e-3));
  CHECK(with.makespan_s == Approx(3e-3));  // the pair takes max(1 ms, 0.4 + 0.4 + 0.005 ms)
  CHECK(with.tasks[1].partner == 2);
}

TEST_CASE("the checker reports broken schedules") {
  const Platform p = uniform_platform(2, 1e-5, 1e10);
  const TaskGraph g = random_task_graph(8, 2, 5, 0.4);
  const Schedule good = schedule_heft(g, p);
  require_valid(g, p, good);
  const auto first_edge = g.edges.front();

  Schedule early = good;  // a successor starting before its input arrives
  early.tasks[static_cast<std::size_t>(first_edge.to)].start = early.tasks[static_cast<std::size_t>(first_edge.from)].start;
  CHECK_FALSE(check_schedule(g, p, early).empty());

  Schedule short_task = good;  // shorter than its cost
  short_task.tasks[0].finish = short_task.tasks[0].start + g.seconds(0, short_task.tasks[0].device) / 2;
  CHECK_FALSE(check_schedule(g, p, short_task).empty());

  Schedule overlap = good;  // everything on one device at time 0
  for (Placement& pl : overlap.tasks) pl.device = 0;
  CHECK_FALSE(check_schedule(g, p, overlap).empty());

  Platform small = p;  // memory
  for (PlatformDevice& d : small.devices) d.memory_bytes = 1e3;
  CHECK_FALSE(check_schedule(g, small, good).empty());

  Schedule wrong_makespan = good;
  wrong_makespan.makespan_s *= 0.5;
  CHECK_FALSE(check_schedule(g, p, wrong_makespan).empty());
}

TEST_CASE("split modules end at cut points and cover every task once") {
  const Platform p = uniform_platform(3, 1e-5, 1e10);
  TaskGraph g = build_task_graph(load_network("resnet18", {.batch = 1, .image = std::nullopt, .sequence = std::nullopt, .with_loss = false}), [] {
    return load_platform(std::string(DNNPERF_SOURCE_DIR) + "/data/platforms/cpu-v100-a100.json");
  }());
  const auto segments = cut_segments(g);
  REQUIRE(segments.size() > 8);  // residual blocks join at cut points
  for (const auto& seg : segments)
    for (const TaskEdge& e : g.edges) {
      // No edge jumps over a segment's last task.
      CHECK_FALSE((e.from < seg.back() && e.to > seg.back()));
    }
  const auto modules = split_modules(g, 10);
  std::vector<int> seen;
  for (const auto& m : modules) {
    CHECK(m.size() <= 10);
    seen.insert(seen.end(), m.begin(), m.end());
  }
  std::vector<int> all(static_cast<std::size_t>(g.size()));
  std::iota(all.begin(), all.end(), 0);
  CHECK(seen == all);
}

TEST_CASE("a time limit too short to solve still returns a valid schedule") {
  const Platform p = uniform_platform(3, 1e-5, 1e10);
  const TaskGraph g = random_task_graph(40, 3, 33, 0.1);
  MilpOptions o;
  o.time_limit_s = 0.05;
  const Schedule s = schedule_milp(g, p, Objective::latency, o);
  require_valid(g, p, s);
  CHECK(s.status != "optimal");
}

TEST_CASE("memory limits steer the heuristics and stop a single device") {
  Platform p = uniform_platform(2, 1e-5, 1e10);
  TaskGraph g = random_task_graph(10, 2, 7, 0.2);
  double weights = 0, largest = 0;
  for (const TaskNode& t : g.tasks) weights += t.weight_bytes, largest = std::max(largest, t.weight_bytes);
  double activation = 0;
  for (int i = 0; i < g.size(); ++i) {
    double bytes = g.task(i).output_bytes;
    for (int e : g.in_edges(i)) bytes += g.edges[static_cast<std::size_t>(e)].bytes;
    activation = std::max(activation, bytes);
  }
  // Each device holds 60% of the parameters: neither alone can run the network.
  for (PlatformDevice& d : p.devices) d.memory_bytes = activation + 0.6 * weights;
  CHECK_FALSE(schedule_single_device(g, p).found());
  // The exact program finds a placement; list schedulers fill devices greedily and may run out
  // of room, which they must say.
  require_valid(g, p, schedule_milp(g, p, Objective::latency, MilpOptions{.time_limit_s = 2}));
  for (const Schedule& s : {schedule_heft(g, p), schedule_greedy(g, p), schedule_cpop(g, p)}) {
    if (s.found()) require_valid(g, p, s);
    else CHECK_THAT(s.status, Catch::Matchers::Contains("can hold"));
  }
}
