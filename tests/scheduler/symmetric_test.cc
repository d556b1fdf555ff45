// The symmetric multi-server schedule: repeated layers are found, the small program agrees with
// the full one, and its schedules are valid.
#include <catch2/catch.hpp>

#include "networks/import/network_loader.h"
#include "scheduler/milp_schedule.h"
#include "scheduler/symmetric_pipeline.h"

using namespace dnnperf;

namespace {
Platform two_generations() {
  return load_platform(std::string(DNNPERF_SOURCE_DIR) + "/data/platforms/dgx-h100-a100.json");
}
}  // namespace

TEST_CASE("a decoder's identical layers are found") {
  const Platform p = two_generations();
  const TaskGraph g = build_task_graph(load_network("gpt:layers=12,hidden=1024,heads=16", {.batch = 1, .image = std::nullopt, .sequence = 256, .with_loss = false}), p);
  const LayerStructure ls = find_repeated_layers(g);
  CHECK(ls.layers.size() == 12);
  CHECK_FALSE(ls.prefix.empty());
  CHECK_FALSE(ls.suffix.empty());
  std::size_t covered = ls.prefix.size() + ls.suffix.size();
  for (const auto& l : ls.layers) covered += l.size();
  CHECK(covered == static_cast<std::size_t>(g.size()));
}

TEST_CASE("the symmetric program matches the full program at a fraction of its size") {
  const Platform p = two_generations();
  const TaskGraph g = build_task_graph(load_network("gpt:layers=24,hidden=2048,heads=16", {.batch = 4, .image = std::nullopt, .sequence = 512, .with_loss = false}), p,
                                       {.precision = Precision::fp16});
  const ServerLevelProblem pr = server_level_problem(g, p, find_repeated_layers(g));
  REQUIRE(pr.platform.size() == 8);
  // H100 servers run a layer faster than A100 servers.
  CHECK(pr.graph.seconds(1, 0) < pr.graph.seconds(1, 7));
  for (Objective objective : {Objective::throughput, Objective::latency}) {
    const SymmetricResult sym = schedule_symmetric(pr, objective, 10);
    REQUIRE(sym.schedule.found());
    CHECK(check_schedule(pr.graph, pr.platform, sym.schedule).empty());
    CHECK(sym.program_variables < sym.full_program_binaries);
    int layers = 0;
    for (int n : sym.layers_per_server) layers += n;
    CHECK(layers == 24);
    MilpOptions o;
    o.time_limit_s = 10;
    o.groups = false;
    const Schedule full = schedule_milp(pr.graph, pr.platform, objective, o);
    REQUIRE(full.found());
    // Symmetry loses nothing the full program finds in its time limit (1% for rounding of shares).
    CHECK(sym.schedule.objective_value() <= full.objective_value() * 1.01);
  }
}

TEST_CASE("a network without repeated layers is refused with a clear message") {
  const Platform p = two_generations();
  const TaskGraph g = build_task_graph(load_network("alexnet", {.batch = 1, .image = std::nullopt, .sequence = std::nullopt, .with_loss = false}), p);
  CHECK_THROWS_WITH(server_level_problem(g, p, find_repeated_layers(g)), Catch::Matchers::Contains("no repeated layers"));
}
