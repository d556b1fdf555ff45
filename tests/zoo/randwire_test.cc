#include <catch2/catch.hpp>

#include "networks/zoo/zoo.h"

using namespace dnnperf;

namespace {

std::vector<std::vector<int>> wiring(const Graph& g) {
  std::vector<std::vector<int>> w;
  for (const Op& op : g.ops()) w.push_back(op.inputs);
  return w;
}

}  // namespace

TEST_CASE("Randomly wired networks are reproducible from their seed", "[zoo][randwire]") {
  for (const std::string gen : {"randwire-ws", "randwire-er", "randwire-ba"}) {
    INFO(gen);
    const Graph a = build_zoo_network(gen + ":seed=3");
    const Graph b = build_zoo_network(gen + ":seed=3");
    const Graph c = build_zoo_network(gen + ":seed=4");
    CHECK(wiring(a) == wiring(b));
    CHECK(a.parameter_count() == b.parameter_count());
    CHECK(wiring(a) != wiring(c));
  }
}

TEST_CASE("Random stages have the requested number of nodes and aggregate several inputs", "[zoo][randwire]") {
  const Graph g = build_zoo_network("randwire-ws:nodes=1000,stages=1,seed=1");
  int depthwise = 0, aggregates = 0;
  for (const Op& op : g.ops()) {
    depthwise += op.kind == OpKind::conv2d && op.attrs.groups > 1;
    aggregates += op.kind == OpKind::weighted_sum;
  }
  CHECK(depthwise == 1000);
  // A WS graph with k=4 gives most nodes two or more predecessors.
  CHECK(aggregates > 500);
  CHECK_THROWS_WITH(build_zoo_network("randwire-ws:k=3"), Catch::Contains("k must be even"));
  CHECK_THROWS_WITH(build_zoo_network("randwire-ba:m=40"), Catch::Contains("m must be in"));
}
