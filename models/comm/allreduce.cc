#include "models/comm/allreduce.h"

#include "models/comm/comm_steps.h"

#include <algorithm>
#include <cmath>

namespace dnnperf {
namespace {

/// The link a step between partners `distance` apart (r and r xor distance, or r and r + distance
/// for r a multiple of 2 distance) crosses, when `flows` ranks of each node send across at once.
/// With blocks of ranks_per_node ranks, the partners share a node iff 2 distance divides it.
LinkCost step_link(const CommGroup& g, int distance, int flows) {
  if (g.nodes() <= 1 || g.ranks_per_node % (2 * distance) == 0) return g.intra;
  return inter_node_link(g, Traffic::exchange, flows, std::max(1, distance / g.ranks_per_node));
}

double step(const LinkCost& l, double bytes, double gamma_bytes, double gamma) {
  return l.alpha + bytes * l.beta + gamma_bytes * gamma;
}

/// A ring over `p` ranks: 2(p-1) steps of n/p bytes, reductions in the first half.
double ring(double n, int p, const LinkCost& link, double gamma, bool reduce_scatter, bool allgather) {
  if (p <= 1) return 0;
  const double chunk = n / p, steps = p - 1;
  double t = 0;
  if (reduce_scatter) t += steps * step(link, chunk, chunk, gamma);
  if (allgather) t += steps * step(link, chunk, 0, 0);
  return t;
}

double ring_allreduce(double n, const CommGroup& g) {
  // Every ring step moves one chunk over every edge at once, so a step takes as long as its slowest
  // edge; one ring edge leaves each node, alone on a NIC.
  LinkCost link = g.intra;
  if (g.nodes() > 1 && g.ranks_per_node == 1) link = inter_node_link(g, Traffic::ring, 1);
  if (g.nodes() > 1 && g.ranks_per_node > 1) {
    const LinkCost out = inter_node_link(g, Traffic::ring, 1);
    link = {std::max(g.intra.alpha, out.alpha), std::max(g.intra.beta, out.beta)};
  }
  return ring(n, g.ranks, link, g.gamma, true, true);
}

double recursive_doubling(double n, const CommGroup& g) {
  const int p = g.ranks, p2 = 1 << floor_log2(p), rest = p - p2;
  double t = 0;
  if (rest > 0) {  // ranks beyond the power of two fold their data into a partner, and get the result back
    const LinkCost fold = step_link(g, 1, g.ranks_per_node / 2);
    t += step(fold, n, n, g.gamma) + step(fold, n, 0, 0);
  }
  for (int d = 1; d < p2; d *= 2) t += step(step_link(g, d, g.ranks_per_node), n, n, g.gamma);
  return t;
}

double rabenseifner(double n, const CommGroup& g) {
  const int p = g.ranks, p2 = 1 << floor_log2(p), rest = p - p2;
  double t = 0;
  if (rest > 0) {
    const LinkCost fold = step_link(g, 1, g.ranks_per_node / 2);
    t += step(fold, n, n, g.gamma) + step(fold, n, 0, 0);
  }
  // Recursive halving: distances p2/2, p2/4, ..., 1 with n/2, n/4, ... bytes; recursive doubling
  // mirrors it for the allgather.
  double bytes = n / 2;
  for (int d = p2 / 2; d >= 1; d /= 2, bytes /= 2) {
    const LinkCost l = step_link(g, d, g.ranks_per_node);
    t += step(l, bytes, bytes, g.gamma) + step(l, bytes, 0, 0);
  }
  return t;
}

double binomial_tree(double n, const CommGroup& g) {
  double t = 0;
  const int steps = ceil_log2(g.ranks);
  for (int k = 0; k < steps; ++k) {
    const LinkCost l = step_link(g, 1 << k, 1);
    t += step(l, n, n, g.gamma) + step(l, n, 0, 0);  // one reduce step, one broadcast step
  }
  return t;
}

double hierarchical(double n, const CommGroup& g) {
  const int per_node = std::min(g.ranks_per_node, g.ranks), nodes = g.nodes();
  double t = ring(n, per_node, g.intra, g.gamma, true, false);
  if (nodes > 1) {
    // Each GPU all-reduces its 1/g slice with its peers of the other nodes: g rings at once,
    // sharing the node's NICs.
    t += ring(n / per_node, nodes, inter_node_link(g, Traffic::ring, per_node), g.gamma, true, true);
  }
  return t + ring(n, per_node, g.intra, 0, false, true);
}

}  // namespace

LinkCost inter_node_link(const CommGroup& g, Traffic pattern, int flows, int node_distance) {
  const double per_nic = static_cast<double>(flows) / std::max(1, g.nics_per_node);
  return {g.inter.alpha, std::max(g.inter.beta * fabric_beta_factor(g.fabric, pattern, g.nodes(), per_nic, node_distance), g.staging_beta)};
}

double allreduce_seconds(AllReduceAlgorithm a, double bytes, const CommGroup& g) {
  if (g.ranks <= 1 || bytes <= 0) return 0;
  switch (a) {
    case AllReduceAlgorithm::ring: return ring_allreduce(bytes, g);
    case AllReduceAlgorithm::recursive_doubling: return recursive_doubling(bytes, g);
    case AllReduceAlgorithm::rabenseifner: return rabenseifner(bytes, g);
    case AllReduceAlgorithm::binomial_tree: return binomial_tree(bytes, g);
    case AllReduceAlgorithm::hierarchical: return hierarchical(bytes, g);
  }
  return 0;
}

std::pair<AllReduceAlgorithm, double> best_allreduce(double bytes, const CommGroup& g) {
  std::pair<AllReduceAlgorithm, double> best{AllReduceAlgorithm::ring, allreduce_seconds(AllReduceAlgorithm::ring, bytes, g)};
  for (AllReduceAlgorithm a : kAllReduceAlgorithms) {
    const double t = allreduce_seconds(a, bytes, g);
    if (t < best.second) best = {a, t};
  }
  return best;
}

}  // namespace dnnperf
