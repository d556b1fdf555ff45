#pragma once
// The network between nodes as collectives feel it: which flows of a step share which links.
//
//   fat-tree         nodes under leaf switches of `switch_ports` ports, the leaves joined by
//                    spine switches with an oversubscription ratio r (a leaf's downlink
//                    bandwidth over its uplink bandwidth; 1: full bisection). A leaf holds
//                    switch_ports / nics_per_node nodes.
//   rail-optimized   NIC i of every node on rail switch i (DGX SuperPOD's layout): a rail switch
//                    holds switch_ports nodes, and traffic between GPUs of the same index stays
//                    on their rail; beyond one rail group it crosses the spine, as in a fat tree.
//   dragonfly        groups of `group_nodes` nodes joined all-to-all inside, `global_links`
//                    links at the NIC's rate leaving each group (Kim et al., ISCA 2008): traffic
//                    between groups shares them as a leaf's uplinks, a ratio of the group's NICs
//                    over its global links.
//   torus            nodes on a k-dimensional torus of the given sizes, placed in order (first
//                    dimension fastest), each link at the NIC's rate; a flow crosses as many links
//                    as its partner is hops away, and links are shared by the flows crossing them.
//
// A step's inter-node flow then runs slower than alone on its NIC by
//   fat tree, rail   max(1, F/N, F/N * r * c),   c = the share of a leaf's (group's) nodes whose
//   and dragonfly:                               partner is in another leaf (how much of the
//                                                leaf's traffic wants its uplinks)
//   torus:           max(1, F/N) * h,            h = links each flow shares, per the pattern
// with F flows of a node over its N NICs. The pattern decides c and h:
//   exchange     every node with the node `distance` away, as XOR partners (recursive doubling
//                and halving, trees): for a fat tree c = 1 once the distance reaches a leaf's
//                size (0 below it, leaves of a power of two nodes; distance / leaf otherwise); on
//                a torus h = the hops along the dimension the distance falls in;
//   ring         every node with the next (rings of NCCL and MPI, a pipeline's stages): c = 1 /
//                leaf (one edge leaves each leaf), h = 1 (rings follow the torus's links);
//   all_to_all   every node with every other: c = the share of the other nodes outside one's
//                leaf, and on a torus h = the mean hops over the 2k links a node injects into.
#include <cstdint>
#include <vector>

namespace dnnperf {

struct ClusterSpec;

enum class FabricKind : std::uint8_t { fat_tree, rail_optimized, torus, dragonfly };
enum class Traffic : std::uint8_t { exchange, ring, all_to_all };

struct Fabric {
  FabricKind kind = FabricKind::fat_tree;
  double oversubscription = 1;
  int nodes_per_leaf = 0;     // fat tree, rail and dragonfly groups; 0: one switch holds every node
  std::vector<int> torus;     // torus: nodes per dimension
};

/// The fabric a profile's cluster section describes.
Fabric fabric_of(const ClusterSpec& cluster);

/// The factor on an inter-node flow's time per byte for a step of `pattern` among `nodes` nodes,
/// when each node runs `flows_per_nic` such flows on each of its NICs (F / N above; below 1 where
/// some NICs idle); `distance` (in nodes) for an exchange. At least 1.
double fabric_beta_factor(const Fabric& fabric, Traffic pattern, int nodes, double flows_per_nic, int distance = 1);

}  // namespace dnnperf
