// Every scheduling method's schedule passes the checker (check_schedule) on generated task
// graphs and platforms, for both objectives (RapidCheck; a failure shrinks to the smallest graph).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include "scheduler/run_methods.h"
#include "scheduler/schedule.h"
#include "tests/scheduler/test_instances.h"

using namespace dnnperf;

namespace {

/// A DAG of 1-12 tasks on `devices` devices: costs from 0 (a free reshape) to 1 ms, each device
/// up to 8x slower than another, random weights, outputs and forward edges.
TaskGraph task_graph(int devices) {
  const int n = *rc::gen::inRange(1, 13);
  TaskGraph g;
  g.network = "generated";
  g.devices = devices;
  for (int i = 0; i < n; ++i) {
    TaskNode t;
    t.name = "t" + std::to_string(i);
    t.ops = {i};
    const double base = *rc::gen::element(0.0, 1e-6, 1e-5, 1e-4, 1e-3);
    for (int d = 0; d < devices; ++d) {
      const double s = base * *rc::gen::inRange(1, 9);
      t.seconds.push_back(s);
      t.busy.push_back(s * *rc::gen::inRange(1, 11) / 10.0);
      t.launch.push_back(std::min(5e-6, s / 2));
    }
    t.weight_bytes = *rc::gen::inRange(0, 1 << 20);
    t.output_bytes = *rc::gen::inRange(1, 1 << 20);
    g.tasks.push_back(t);
    for (int j = 0; j < i; ++j)
      if (*rc::gen::inRange(0, 10) < 3) g.edges.push_back({j, i, g.tasks[static_cast<std::size_t>(j)].output_bytes});
  }
  g.index();
  return g;
}

}  // namespace

TEST_CASE("Every method's schedule of a generated graph passes the checker") {
  rc::prop("schedules are valid", [] {
    const int devices = *rc::gen::inRange(1, 5);
    const TaskGraph g = task_graph(devices);
    const Platform p = testing::uniform_platform(devices, *rc::gen::element(0.0, 1e-6, 1e-5), *rc::gen::element(1e9, 1e10, 1e11));
    const Objective objective = *rc::gen::element(Objective::latency, Objective::throughput);
    MethodOptions options;
    options.time_limit_s = 2;
    options.module_time_limit_s = 0.2;
    for (const Schedule& s : schedule_methods(g, p, objective, {"single", "greedy", "heft", "cpop", "split"}, options)) {
      if (!s.found()) continue;
      const std::vector<std::string> problems = check_schedule(g, p, s);
      if (!problems.empty()) RC_FAIL(s.method + ": " + problems.front());
    }
  });
}
