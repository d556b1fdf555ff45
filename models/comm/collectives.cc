#include "models/comm/collectives.h"

#include <algorithm>

namespace dnnperf {
namespace {

// p - 1 ring steps of `chunk` bytes, each reducing it when `reduce`.
double ring_steps(int p, double chunk, const LinkCost& link, double gamma, bool reduce) {
  if (p <= 1) return 0;
  return (p - 1) * (link.alpha + chunk * link.beta + (reduce ? chunk * gamma : 0.0));
}

double gather_or_scatter(double n, const CommGroup& g, bool reduce) {
  const int p = g.ranks, per_node = std::min(g.ranks_per_node, g.ranks), nodes = g.nodes();
  if (nodes <= 1) return ring_steps(p, n / p, g.intra, g.gamma, reduce);
  // A flat ring: each step as slow as its slowest edge; one edge per node leaves it.
  const LinkCost out = inter_node_link(g, Traffic::ring, 1);
  const LinkCost slowest{std::max(g.intra.alpha, out.alpha), std::max(g.intra.beta, out.beta)};
  const double flat = ring_steps(p, n / p, per_node > 1 ? slowest : out, g.gamma, reduce);
  // Hierarchical: inside the node over n, then across nodes over each rank's n / g slice
  // (reduce-scatter in that order; an all-gather runs it backwards, at the same cost).
  const double inside = ring_steps(per_node, n / per_node, g.intra, g.gamma, reduce);
  const double across = ring_steps(nodes, n / per_node / nodes, inter_node_link(g, Traffic::ring, per_node), g.gamma, reduce);
  return std::min(flat, inside + across);
}

double all_to_all(double n, const CommGroup& g) {
  const int p = g.ranks, per_node = std::min(g.ranks_per_node, g.ranks);
  const double chunk = n / p;
  const double inside = (per_node - 1) * chunk * g.intra.beta + (per_node > 1 ? g.intra.alpha : 0.0);
  if (g.nodes() <= 1) return inside;
  const LinkCost nic = inter_node_link(g, Traffic::all_to_all, per_node);
  const double across = (p - per_node) * chunk * nic.beta + nic.alpha;
  return std::max(inside, across);
}

}  // namespace

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::all_gather: return "allgather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::all_to_all: return "alltoall";
  }
  return "?";
}

double collective_seconds(Collective c, double bytes, const CommGroup& g) {
  if (g.ranks <= 1 || bytes <= 0) return 0;
  switch (c) {
    case Collective::allreduce: return best_allreduce(bytes, g).second;
    case Collective::all_gather: return gather_or_scatter(bytes, g, false);
    case Collective::reduce_scatter: return gather_or_scatter(bytes, g, true);
    case Collective::all_to_all: return all_to_all(bytes, g);
  }
  return 0;
}

double send_recv_seconds(double bytes, const CommGroup& g, bool across_nodes, int flows) {
  if (bytes <= 0) return 0;
  const LinkCost link = across_nodes ? inter_node_link(g, Traffic::ring, flows) : g.intra;  // neighbouring stages' nodes
  return link.alpha + bytes * link.beta;
}

}  // namespace dnnperf
