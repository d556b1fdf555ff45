#pragma once
// AllReduce algorithms priced by their alpha-beta-gamma cost (Hockney's model extended with a
// per-byte reduction cost), step by step:
//
//   ring                 2(p-1) steps of n/p bytes (Patarasuk & Yuan 2009)
//   recursive_doubling   lg p exchanges of n bytes; p not a power of two adds a fold-in step and
//                        a send-back step (Thakur, Rabenseifner & Gropp 2005)
//   rabenseifner         reduce-scatter by recursive halving + allgather by recursive doubling
//                        (Rabenseifner 2004; same paper for non-powers of two)
//   binomial_tree        binomial reduce to rank 0, then binomial broadcast
//   hierarchical         ring reduce-scatter inside each node, ring allreduce of each 1/g slice
//                        across nodes (one flow per GPU over the node's NICs), ring allgather
//                        inside each node (NCCL's 2-D scheme)
//
// Each step is priced on the link it crosses: ranks are placed in blocks of ranks_per_node, and a
// step whose partner is in another node pays the inter-node latency and a bandwidth shared by the
// node's concurrent flows over its NICs and, beyond them, by the fabric's links (fabric.h). With one node, or one rank per node, the step sums reduce
// to the closed forms of the papers (tests/models/allreduce_test.cc checks that).
#include <optional>
#include <string_view>
#include <vector>

#include "models/comm/fabric.h"
#include "profile/comm_model.h"

namespace dnnperf {


/// One kind of link: latency alpha (s) and time per byte beta (s/byte) of one flow.
struct LinkCost {
  double alpha = 0;
  double beta = 0;
};

/// The processes taking part and the links between them.
struct CommGroup {
  int ranks = 1;
  int ranks_per_node = 1;  // ranks are placed in consecutive blocks of this size
  LinkCost intra;          // between ranks of one node
  LinkCost inter;          // one flow between nodes, alone on a NIC
  int nics_per_node = 1;
  Fabric fabric;           // which inter-node flows share which links (fabric.h)
  /// Where the NICs cannot read GPU memory (no GPUDirect RDMA), each inter-node flow is staged
  /// through host memory over its GPU's host link: its time per byte there (0: no staging). The
  /// copy is pipelined with the NIC's transfer, so the slower of the two bounds the flow.
  double staging_beta = 0;
  double gamma = 0;        // reduction time per byte

  int nodes() const { return (ranks + ranks_per_node - 1) / ranks_per_node; }
};

/// One inter-node flow of a step of `pattern` while `flows` of each node's ranks send across at
/// once (`node_distance` apart for an exchange): the NIC's latency, its time per byte shared with
/// the node's other flows and by the fabric's links, or the staging copy's where slower.
LinkCost inter_node_link(const CommGroup& group, Traffic pattern, int flows, int node_distance = 1);

/// Seconds to all-reduce `bytes` bytes (per rank) over `group`. 0 for one rank.
double allreduce_seconds(AllReduceAlgorithm algorithm, double bytes, const CommGroup& group);

/// The cheapest algorithm for this size and group, and its time.
std::pair<AllReduceAlgorithm, double> best_allreduce(double bytes, const CommGroup& group);

}  // namespace dnnperf
