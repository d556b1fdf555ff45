#pragma once
// NCCL's own all-reduce, priced as NCCL's tuner prices its choices (src/graph/tuning.cc of NCCL
// 2.7-2.8, github.com/NVIDIA/nccl): for each algorithm (ring, tree) and protocol (LL, LL128,
// Simple) a latency and a bandwidth, the call taking the cheapest of latency + bytes / bandwidth.
//
//   bandwidth   the ring's bus bandwidth (the slower of a device's intra-node link and, across
//               nodes, the node's NICs as the fabric lets them run: fabric.h) turned into the
//               algorithm's: ring p / (2 (p - 1)), tree 1/2 of 0.9 of it, capped at 80 GB/s
//               across more than two nodes (110 on two); LL moves 8 bytes of every 16 (a ring at
//               1/4, a tree at 1/3.8 of the bus bandwidth), LL128 120 of 128 (0.92; 0.7 with one
//               device per node);
//   latency     a base per algorithm and protocol plus each step's hop: a ring's 2 (p - 1) steps,
//               2 (nodes - 1) of them across nodes; a tree's 2 ((p / nodes - 1) intra-node hops +
//               log2(nodes) network hops); LL's intra-node hops 1.8x slower across nodes; a
//               Simple ring across nodes 1.9x its latency on large messages (the ring's plateau).
//
// LL128 runs only where NCCL enables it by default: devices on NVLink with tensor cores (Volta
// and later). The tree's per-size correction table is left out: trees price a little fast between
// 4 kB and 256 MB. Used where a profile has no fitted model of NCCL (`--allreduce nccl` on a
// datasheet GPU profile); fitted models of the measured library replace it.
#include <string>

#include "models/comm/allreduce.h"

namespace dnnperf {

/// What NCCL's tuner sees of the machine beyond the group's links.
struct NcclMachine {
  bool nvlink = true;  // devices of a node on NVLink (else PCIe)
  bool ll128 = true;   // LL128 enabled (NVLink and tensor cores)
};

struct NcclChoice {
  std::string algorithm;  // "nccl:ring/LL128", "nccl:tree/Simple", ...
  double seconds = 0;
};

/// NCCL's all-reduce of `bytes` per rank over `group`; 0 seconds for one rank.
NcclChoice nccl_allreduce(double bytes, const CommGroup& group, const NcclMachine& machine);

}  // namespace dnnperf
