#include "models/comm/nccl_tuning.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace dnnperf {
namespace {

enum Algorithm { kTree = 0, kRing = 1 };
enum Protocol { kLL = 0, kLL128 = 1, kSimple = 2 };
constexpr std::array<const char*, 2> kAlgorithmNames{"tree", "ring"};
constexpr std::array<const char*, 3> kProtocolNames{"LL", "LL128", "Simple"};

// NCCL's tuner constants, microseconds (tuning.cc: baseLat, hwLat).
constexpr double kBaseLatency[2][3] = {{4.4, 4.4, 0.0}, {3.6, 10.0, 8.4}};
constexpr double kHopLatency[3][2][3] = {
    {{0.52, 1.2, 28}, {0.47, 1.9, 3.4}},  // NVLink: tree, ring
    {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},    // PCIe
    {{5.0, 8.5, 50}, {2.7, 4.0, 9.6}},    // network
};
constexpr int kNvlink = 0, kPcie = 1, kNetwork = 2;

}  // namespace

NcclChoice nccl_allreduce(double bytes, const CommGroup& g, const NcclMachine& m) {
  NcclChoice best;
  if (g.ranks <= 1 || bytes <= 0) return best;
  const int ranks = g.ranks, nodes = g.nodes();
  const double per_node = static_cast<double>(ranks) / nodes;
  // The rings' bus bandwidth: through every device's intra-node link and, across nodes, out of
  // each node by its NICs, one ring per NIC.
  double bus = 1.0 / g.intra.beta;
  if (nodes > 1) {
    const int nics = std::max(1, g.nics_per_node);
    bus = std::min(bus, nics / inter_node_link(g, Traffic::ring, nics).beta);
    if (per_node <= 1) bus = 1.0 / inter_node_link(g, Traffic::ring, 1).beta;
  }
  const int steps = 2 * (ranks - 1), inter_steps = 2 * (nodes - 1);
  const int intra_hw = m.nvlink ? kNvlink : kPcie;
  for (int a : {kTree, kRing}) {
    for (int p : {kLL, kLL128, kSimple}) {
      if (p == kLL128 && !m.ll128) continue;
      double bw = bus;
      if (a == kRing && p == kLL) bw *= 0.25;
      if (a == kRing && p == kLL128) bw *= per_node < 2 ? 0.7 : 0.92;
      if (a == kTree) bw = std::min(bw * 0.9, (nodes > 2 ? 80e9 : 110e9));
      if (a == kTree && p == kLL) bw /= 3.8;
      if (a == kTree && p == kLL128) bw *= nodes == 1 ? 7.0 / 9.0 : 0.915;
      const double algorithm_bw = a == kRing ? bw * ranks / steps : bw * 0.5;
      double intra_lat = kHopLatency[intra_hw][a][p];
      const double inter_lat = kHopLatency[kNetwork][a][p];
      if (nodes > 1 && p == kLL) intra_lat *= 1.8;
      double latency = kBaseLatency[a][p];
      if (a == kRing) {
        latency += (steps - inter_steps) * intra_lat + inter_steps * inter_lat;
        if (p == kSimple && nodes > 1 && bytes >= ranks / 16.0 * 65536) latency *= 1.9;
      } else {
        latency += 2 * ((per_node - 1) * intra_lat + std::log2(static_cast<double>(nodes)) * inter_lat);
      }
      const double seconds = latency * 1e-6 + bytes / algorithm_bw;
      if (best.algorithm.empty() || seconds < best.seconds)
        best = {std::string("nccl:") + kAlgorithmNames[a] + "/" + kProtocolNames[p], seconds};
    }
  }
  return best;
}

}  // namespace dnnperf
