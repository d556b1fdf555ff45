// NCCL's all-reduce as its tuner prices it: the latency-bound protocols for small messages, the
// bandwidth-bound ones for large, trees where many nodes make a ring's steps add up.
#include "models/comm/nccl_tuning.h"

#include <catch2/catch.hpp>

using namespace dnnperf;

namespace {

CommGroup dgx(int nodes) {
  CommGroup g;
  g.ranks = 8 * nodes;
  g.ranks_per_node = 8;
  g.intra = {3e-6, 1.0 / 150e9};
  g.inter = {5e-6, 1.0 / 24.4e9};
  g.nics_per_node = 8;
  return g;
}

}  // namespace

TEST_CASE("NCCL's tuner inside a node: LL for small messages, LL128 for medium ones, Simple for the largest", "[models][nccl]") {
  const NcclMachine nvlink;
  // 8 bytes on one 8-GPU node: ring/LL, 3.6 us base + 14 NVLink hops of 0.47 us.
  const NcclChoice tiny = nccl_allreduce(8, dgx(1), nvlink);
  CHECK(tiny.algorithm == "nccl:ring/LL");
  CHECK(tiny.seconds == Approx((3.6 + 14 * 0.47) * 1e-6).epsilon(0.01));
  // 4 MB: LL128's lower latency outweighs its 0.92 of the bus.
  const NcclChoice medium = nccl_allreduce(4e6, dgx(1), nvlink);
  CHECK(medium.algorithm == "nccl:ring/LL128");
  CHECK(medium.seconds == Approx((10.0 + 14 * 1.9) * 1e-6 + 4e6 * 2 * 7 / 8 / (0.92 * 150e9)).epsilon(0.01));
  // 1 GB: Simple, the whole bus bandwidth.
  const NcclChoice large = nccl_allreduce(1e9, dgx(1), nvlink);
  CHECK(large.algorithm == "nccl:ring/Simple");
  CHECK(large.seconds == Approx((8.4 + 14 * 3.4) * 1e-6 + 1e9 * 2 * 7 / 8 / 150e9).epsilon(0.01));
  // Without LL128 (PCIe, or no tensor cores) the medium message runs another protocol, slower.
  NcclMachine pcie;
  pcie.nvlink = pcie.ll128 = false;
  CHECK(nccl_allreduce(4e6, dgx(1), pcie).algorithm.find("LL128") == std::string::npos);
  CHECK(nccl_allreduce(4e6, dgx(1), pcie).seconds > medium.seconds);
}

TEST_CASE("NCCL's tuner: on many nodes a tree's log2 hops beat a ring's 2(nodes - 1)", "[models][nccl]") {
  const NcclMachine nvlink;
  const NcclChoice mid = nccl_allreduce(4e6, dgx(512), nvlink);
  CHECK(mid.algorithm.rfind("nccl:tree/", 0) == 0);
  // The ring's latency grows with the ranks: 8 MB on 512 nodes costs more than on 8.
  CHECK(nccl_allreduce(8e6, dgx(512), nvlink).seconds > nccl_allreduce(8e6, dgx(8), nvlink).seconds);
  // One rank or nothing to send: free.
  CommGroup one = dgx(1);
  one.ranks = 1;
  CHECK(nccl_allreduce(1e6, one, nvlink).seconds == 0);
  CHECK(nccl_allreduce(0, dgx(2), nvlink).seconds == 0);
}
