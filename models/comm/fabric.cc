#include "models/comm/fabric.h"

#include <algorithm>

#include "profile/hardware_profile.h"

namespace dnnperf {
namespace {

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

/// The share of a leaf's nodes whose partner of this pattern is in another leaf.
double crossing_share(const Fabric& f, Traffic pattern, int nodes, int distance) {
  const int leaf = f.nodes_per_leaf;
  if (leaf <= 0 || nodes <= leaf) return 0;
  switch (pattern) {
    case Traffic::exchange:
      if (power_of_two(leaf)) return distance >= leaf ? 1.0 : 0.0;
      return std::min(1.0, static_cast<double>(distance) / leaf);
    case Traffic::ring: return 1.0 / leaf;
    case Traffic::all_to_all: return static_cast<double>(nodes - leaf) / (nodes - 1);
  }
  return 0;
}

/// The links a torus flow of this pattern shares: the hops of an exchange along the dimension its
/// distance falls in (the whole distance a multiple of that dimension's stride), 1 for a ring,
/// for all-to-all the mean hops over the 2k links a node injects into.
double torus_sharing(const Fabric& f, Traffic pattern, int distance) {
  if (pattern == Traffic::ring || f.torus.empty()) return 1;
  if (pattern == Traffic::all_to_all) {
    double hops = 0;
    int links = 0;
    for (int size : f.torus) {
      if (size <= 1) continue;
      hops += size / 4.0;  // mean distance on a ring of `size`, either way round
      links += 2;
    }
    return links > 0 ? std::max(1.0, hops / links) : 1.0;
  }
  std::int64_t stride = 1;
  for (int size : f.torus) {
    if (distance < stride * size) {
      const std::int64_t along = (distance / stride) % size;
      return static_cast<double>(std::max<std::int64_t>(1, std::min(along, size - along)));
    }
    stride *= size;
  }
  return 1;
}

}  // namespace

Fabric fabric_of(const ClusterSpec& c) {
  Fabric f;
  f.oversubscription = c.oversubscription;
  if (c.topology == "rail-optimized") {
    f.kind = FabricKind::rail_optimized;
    f.nodes_per_leaf = c.switch_ports;
  } else if (c.topology == "dragonfly") {
    f.kind = FabricKind::dragonfly;
    f.nodes_per_leaf = c.group_nodes;
    f.oversubscription = std::max(1.0, static_cast<double>(c.group_nodes) * std::max(1, c.nics_per_node) / std::max(1, c.global_links));
  } else if (c.topology == "torus") {
    f.kind = FabricKind::torus;
    f.torus = c.torus_dims;
  } else {
    f.nodes_per_leaf = c.switch_ports > 0 ? std::max(1, c.switch_ports / std::max(1, c.nics_per_node)) : 0;
  }
  return f;
}

double fabric_beta_factor(const Fabric& f, Traffic pattern, int nodes, double per_nic, int distance) {
  if (f.kind == FabricKind::torus) return std::max(1.0, per_nic) * torus_sharing(f, pattern, distance);
  const double uplinks = per_nic * f.oversubscription * crossing_share(f, pattern, nodes, distance);
  return std::max({1.0, per_nic, uplinks});
}

}  // namespace dnnperf
