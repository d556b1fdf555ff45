// The fabric's sharing of links between nodes: which collectives an oversubscribed fat tree, a
// rail-optimized fabric and a torus slow, and which they leave alone.
#include "models/comm/fabric.h"

#include <catch2/catch.hpp>

#include "models/comm/allreduce.h"
#include "models/comm/collectives.h"
#include "profile/hardware_profile.h"

using namespace dnnperf;

namespace {

CommGroup nodes_of_eight(int nodes, const Fabric& fabric) {
  CommGroup g;
  g.ranks = nodes * 8;
  g.ranks_per_node = 8;
  g.intra = {3e-6, 1.0 / 150e9};
  g.inter = {5e-6, 1.0 / 25e9};
  g.nics_per_node = 8;
  g.fabric = fabric;
  g.gamma = 1.0 / 1e12;
  return g;
}

Fabric tree(double oversubscription, int nodes_per_leaf) {
  Fabric f;
  f.oversubscription = oversubscription;
  f.nodes_per_leaf = nodes_per_leaf;
  return f;
}

}  // namespace

TEST_CASE("A full-bisection fabric only shares each node's NICs", "[models][fabric]") {
  const Fabric full = tree(1, 4);
  for (const Traffic t : {Traffic::exchange, Traffic::ring, Traffic::all_to_all}) {
    CHECK(fabric_beta_factor(full, t, 64, 1.0, 32) == 1.0);
    CHECK(fabric_beta_factor(full, t, 64, 2.0, 32) == 2.0);  // two flows to a NIC
    CHECK(fabric_beta_factor(full, t, 64, 0.5, 32) == 1.0);  // a NIC idles, no flow goes faster
  }
}

TEST_CASE("An oversubscribed fat tree slows the steps whose partners are in other leaves", "[models][fabric]") {
  const Fabric f = tree(4, 8);
  // Exchanges within a leaf of 8 nodes keep the NIC's rate; from a leaf's distance on, the whole
  // leaf's traffic shares uplinks of a quarter of its NICs' bandwidth.
  CHECK(fabric_beta_factor(f, Traffic::exchange, 64, 1.0, 4) == 1.0);
  CHECK(fabric_beta_factor(f, Traffic::exchange, 64, 1.0, 8) == 4.0);
  CHECK(fabric_beta_factor(f, Traffic::exchange, 64, 1.0, 32) == 4.0);
  // A ring leaves each leaf by one edge: 8 nodes' uplinks carry it at full rate.
  CHECK(fabric_beta_factor(f, Traffic::ring, 64, 1.0) == 1.0);
  CHECK(fabric_beta_factor(tree(16, 8), Traffic::ring, 64, 1.0) == 2.0);
  // All-to-all: 56 of the other 63 nodes are outside a leaf.
  CHECK(fabric_beta_factor(f, Traffic::all_to_all, 64, 1.0) == Approx(4.0 * 56 / 63));
  // Within one leaf nothing crosses the spine.
  CHECK(fabric_beta_factor(f, Traffic::exchange, 8, 1.0, 4) == 1.0);
  // A leaf of a size other than a power of two: exchanges partly cross it.
  CHECK(fabric_beta_factor(tree(4, 6), Traffic::exchange, 64, 1.0, 2) == Approx(4.0 * 2 / 6));
}

TEST_CASE("Oversubscription costs recursive halving across leaves, not the hierarchical rings", "[models][fabric]") {
  const double n = 256e6;
  const CommGroup full = nodes_of_eight(64, tree(1, 4));
  const CommGroup over = nodes_of_eight(64, tree(4, 4));
  CHECK(allreduce_seconds(AllReduceAlgorithm::rabenseifner, n, over) > 2 * allreduce_seconds(AllReduceAlgorithm::rabenseifner, n, full));
  CHECK(allreduce_seconds(AllReduceAlgorithm::hierarchical, n, over) == Approx(allreduce_seconds(AllReduceAlgorithm::hierarchical, n, full)));
  CHECK(collective_seconds(Collective::all_to_all, n, over) > 3 * collective_seconds(Collective::all_to_all, n, full));
  // The best algorithm moves to the rings that avoid the spine.
  CHECK(best_allreduce(n, over).first == AllReduceAlgorithm::hierarchical);
}

TEST_CASE("A rail-optimized fabric keeps a rail group's traffic off the spine where a fat tree's leaf would not", "[models][fabric]") {
  ClusterSpec c;
  c.nics_per_node = 8;
  c.switch_ports = 32;
  c.oversubscription = 2;
  const Fabric fat = fabric_of(c);
  c.topology = "rail-optimized";
  const Fabric rail = fabric_of(c);
  CHECK(fat.nodes_per_leaf == 4);    // 32 ports hold 4 nodes of 8 NICs
  CHECK(rail.nodes_per_leaf == 32);  // one port per node on each rail
  CHECK(fabric_beta_factor(fat, Traffic::exchange, 16, 1.0, 8) == 2.0);
  CHECK(fabric_beta_factor(rail, Traffic::exchange, 16, 1.0, 8) == 1.0);
}

TEST_CASE("On a torus rings follow the links and exchanges share them by their hops", "[models][fabric]") {
  Fabric t;
  t.kind = FabricKind::torus;
  t.torus = {8, 4};
  CHECK(fabric_beta_factor(t, Traffic::ring, 32, 1.0) == 1.0);
  CHECK(fabric_beta_factor(t, Traffic::exchange, 32, 1.0, 1) == 1.0);
  CHECK(fabric_beta_factor(t, Traffic::exchange, 32, 1.0, 2) == 2.0);
  CHECK(fabric_beta_factor(t, Traffic::exchange, 32, 1.0, 4) == 4.0);  // half way round the first ring
  CHECK(fabric_beta_factor(t, Traffic::exchange, 32, 1.0, 8) == 1.0);  // the next dimension's neighbour
  CHECK(fabric_beta_factor(t, Traffic::exchange, 32, 1.0, 16) == 2.0);
  CHECK(fabric_beta_factor(t, Traffic::exchange, 32, 2.0, 16) == 4.0);  // and two flows to a NIC
  // All-to-all: mean hops 8/4 + 4/4 = 3 over 4 links a node injects into: no slower than its NIC.
  CHECK(fabric_beta_factor(t, Traffic::all_to_all, 32, 1.0) == 1.0);
  t.torus = {16, 16};  // mean hops 8 over 4 links
  CHECK(fabric_beta_factor(t, Traffic::all_to_all, 256, 1.0) == 2.0);
}

TEST_CASE("Without GPUDirect RDMA an inter-node flow is bound by the slower of its NIC share and the host copy", "[models][fabric]") {
  CommGroup g = nodes_of_eight(4, tree(1, 0));
  g.nics_per_node = 1;  // eight GPUs behind one 25 GB/s NIC: 3.1 GB/s each in the rings across nodes
  const double direct = allreduce_seconds(AllReduceAlgorithm::hierarchical, 1e9, g);
  g.staging_beta = 1.0 / 12e9;  // a 12 GB/s host link: faster than the NIC's share, no change
  CHECK(allreduce_seconds(AllReduceAlgorithm::hierarchical, 1e9, g) == Approx(direct));
  g.nics_per_node = 8;  // a NIC per GPU: now the host copy bounds each flow
  const double own_nics = inter_node_link(nodes_of_eight(4, tree(1, 0)), Traffic::ring, 8).beta;
  CHECK(inter_node_link(g, Traffic::ring, 8).beta == Approx(1.0 / 12e9));
  CHECK(own_nics == Approx(1.0 / 25e9));
}

TEST_CASE("A dragonfly's groups share their global links as a leaf its uplinks", "[models][fabric]") {
  ClusterSpec c;
  c.topology = "dragonfly";
  c.nics_per_node = 1;
  c.group_nodes = 16;
  c.global_links = 4;  // 16 NICs' traffic over 4 global links: 4:1
  const Fabric d = fabric_of(c);
  CHECK(d.kind == FabricKind::dragonfly);
  CHECK(d.nodes_per_leaf == 16);
  CHECK(d.oversubscription == 4.0);
  CHECK(fabric_beta_factor(d, Traffic::exchange, 64, 1.0, 8) == 1.0);   // inside a group
  CHECK(fabric_beta_factor(d, Traffic::exchange, 64, 1.0, 16) == 4.0);  // between groups
  CHECK(fabric_beta_factor(d, Traffic::ring, 64, 1.0) == 1.0);          // one edge leaves a group
  c.global_links = 32;  // more global links than NICs: no taper
  CHECK(fabric_of(c).oversubscription == 1.0);
}
