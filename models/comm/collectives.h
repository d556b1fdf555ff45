#pragma once
// The collectives of model-parallel training beyond all-reduce, priced step by step on the links
// they cross (CommGroup: ranks in blocks of ranks_per_node, intra- and inter-node alpha-beta):
//
//   all_gather, reduce_scatter  the better of a flat ring (p-1 steps of n/p bytes, the slowest
//                               link bounding each step) and NCCL's hierarchical form: a ring
//                               inside each node and, for n/g bytes, a ring across nodes whose g
//                               concurrent flows share the node's NICs
//   all_to_all                  pairwise exchange posted at once (as NCCL and Megatron's token
//                               dispatcher run it): n/p bytes to every peer, the intra-node part
//                               over the node's links and the inter-node part over the NICs
//                               shared by the node's ranks, the two in parallel
//   send_recv                   one message over the node's links, or across nodes with `flows`
//                               of the node's ranks sending at once over its NICs
//
// `bytes` is per rank: the gathered output of an all-gather, the input of a reduce-scatter, what
// a rank sends in all in an all-to-all (its own share included), the message of a send.
#include <string_view>

#include "models/comm/allreduce.h"

namespace dnnperf {

enum class Collective : std::uint8_t { allreduce, all_gather, reduce_scatter, all_to_all };
std::string_view collective_name(Collective c);

/// Seconds for the cheapest algorithm of `collective` on `bytes` per rank over `group`; 0 for one rank.
double collective_seconds(Collective collective, double bytes, const CommGroup& group);

/// Seconds for one point-to-point message of `bytes` (a pipeline's neighbouring stages): inside a
/// node, or across nodes while `flows` ranks of the node send at once.
double send_recv_seconds(double bytes, const CommGroup& group, bool across_nodes, int flows);

}  // namespace dnnperf
