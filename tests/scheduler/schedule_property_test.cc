// Every method's schedule passes the checker on generated graphs (randomly wired networks of
// several sizes and seeds on every shipped platform; random DAGs with zero-cost tasks, tiny tasks
// and ties in cost), and the checker does not depend on how ties in start time sort.
#include <algorithm>
#include <filesystem>
#include <random>

#include <catch2/catch.hpp>

#include "networks/import/network_loader.h"
#include "scheduler/run_methods.h"
#include "tests/scheduler/test_instances.h"

using namespace dnnperf;
using dnnperf::testing::random_task_graph;
using dnnperf::testing::uniform_platform;

namespace {

std::vector<std::string> shipped_platforms() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(DNNPERF_SOURCE_DIR "/data/platforms"))
    if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

void require_all_valid(const TaskGraph& g, const Platform& p, const std::vector<Schedule>& schedules, const std::string& where) {
  for (const Schedule& s : schedules) {
    INFO(where << ": " << s.method << " (" << s.status << ")");
    REQUIRE(s.found());
    const std::vector<std::string> problems = check_schedule(g, p, s);
    for (const std::string& m : problems) UNSCOPED_INFO(m);
    REQUIRE(problems.empty());
  }
}

/// A network as one inference (no loss), the way `dnnperf schedule` loads it.
Graph inference(const std::string& spec) {
  LoadOptions o;
  o.with_loss = false;
  return load_network(spec, o);
}

MethodOptions quick_methods() {
  MethodOptions o;
  o.time_limit_s = 0.5;
  o.module_time_limit_s = 0.05;
  o.split_passes = 1;
  return o;
}

const std::vector<std::string> kListMethods = {"single", "greedy", "heft", "cpop"};
const std::vector<std::string> kDeviceMethods = {"single", "greedy", "heft", "cpop", "split", "milp"};

/// A copy of `g` where every third task costs nothing anywhere (views, reshapes), every fifth
/// costs a nanosecond, and the rest take one of two costs, so that starts and finishes tie.
TaskGraph with_zero_tiny_and_tied_costs(TaskGraph g) {
  for (int i = 0; i < g.size(); ++i) {
    TaskNode& t = g.tasks[static_cast<std::size_t>(i)];
    const double cost = i % 3 == 0 ? 0.0 : i % 5 == 0 ? 1e-9 : (i % 2 == 0 ? 1e-4 : 2e-4);
    for (std::size_t d = 0; d < t.seconds.size(); ++d) t.seconds[d] = t.busy[d] = cost, t.launch[d] = 0;
  }
  return g;
}

}  // namespace

TEST_CASE("Inception-v3's zero-cost flatten on the CPU+V100+A100 platform: every list method is valid") {
  // Regression: HEFT placed the aux branch's flatten (no cost) and its fc at one start time; the
  // checker sorted the tie either way and reported an overlap.
  const Platform p = load_platform(DNNPERF_SOURCE_DIR "/data/platforms/cpu-v100-a100.json");
  const TaskGraph g = build_task_graph(inference("inception_v3"), p);
  require_all_valid(g, p, schedule_methods(g, p, Objective::latency, kListMethods, quick_methods()), "inception_v3");
}

TEST_CASE("randomly wired networks of several sizes and seeds get valid schedules on every shipped platform") {
  for (const std::string& path : shipped_platforms()) {
    const Platform p = load_platform(path);
    // The exact and split programs on the platforms of a few devices; on larger ones their
    // programs take far beyond a unit test's time to build, whatever the time limit.
    const std::vector<std::string>& methods = p.size() <= 4 ? kDeviceMethods : kListMethods;
    for (const std::string spec : {"randwire-er:nodes=6,stages=1,seed=1", "randwire-ws:nodes=10,stages=2,seed=7",
                                   "randwire-ba:nodes=14,stages=2,seed=3"}) {
      TaskGraph g = build_task_graph(inference(spec), p);
      coarsen(g, 40);
      for (Objective objective : {Objective::latency, Objective::throughput})
        require_all_valid(g, p, schedule_methods(g, p, objective, methods, quick_methods()), path + " " + spec);
    }
  }
}

TEST_CASE("random DAGs with zero-cost, tiny and tied tasks get valid schedules from every method") {
  for (unsigned seed = 1; seed <= 4; ++seed)
    for (int devices : {1, 2, 3}) {
      const Platform p = uniform_platform(devices, seed % 2 == 0 ? 0.0 : 1e-6, 1e10);
      const TaskGraph g = with_zero_tiny_and_tied_costs(random_task_graph(18, devices, seed, 0.2));
      for (Objective objective : {Objective::latency, Objective::throughput})
        require_all_valid(g, p, schedule_methods(g, p, objective, kDeviceMethods, quick_methods()),
                          "seed " + std::to_string(seed) + ", " + std::to_string(devices) + " devices");
    }
}

TEST_CASE("the checker's overlap test does not depend on how ties sort, and catches a task inside a long one") {
  const Platform p = uniform_platform(1, 0, 1e10);
  TaskGraph g;
  g.devices = 1;
  for (double cost : {0.0, 1e-3, 1e-2, 1e-3}) {
    TaskNode t;
    t.name = "t" + std::to_string(g.tasks.size());
    t.ops = {static_cast<int>(g.tasks.size())};
    t.seconds = t.busy = {cost};
    t.launch = {0};
    g.tasks.push_back(t);
  }
  g.index();
  Schedule s;
  s.method = "by hand";
  s.tasks = {{0, 0.0, 0.0, -1}, {0, 0.0, 1e-3, -1}, {0, 1e-3, 1.1e-2, -1}, {0, 1.1e-2, 1.2e-2, -1}};
  s.makespan_s = 1.2e-2;
  CHECK(check_schedule(g, p, s).empty());  // a zero-cost task where another starts
  std::swap(s.tasks[0], s.tasks[1]);        // the same tie, listed the other way round
  std::swap(g.tasks[0], g.tasks[1]);
  CHECK(check_schedule(g, p, s).empty());
  s.tasks[3] = {0, 4e-3, 5e-3, -1};  // inside the long task 2
  s.makespan_s = 1.1e-2;
  CHECK_FALSE(check_schedule(g, p, s).empty());
}
