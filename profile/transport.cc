#include "profile/transport.h"

#include <array>

namespace dnnperf {
namespace {

// Bus bandwidth over line rate, from NCCL's maintainers and users' nccl-tests runs:
//  * InfiniBand: 12.2 GB/s all-reduce bus bandwidth over one 100 Gb/s EDR adapter, "as good as you
//    can get" (NVIDIA/nccl-tests issue #29, 2019): 0.976 of 12.5 GB/s.
//  * RoCE: 600 Gb/s over 8 x 100 Gb/s RoCE adapters on two A100 nodes, "roughly matching our
//    expectation" (NVIDIA/nccl issue #495, 2021): 0.75.
//  * TCP sockets: 4-6 GB/s bus bandwidth over 100 Gb/s Ethernet, four nodes of 8 V100s, after
//    tuning sockets and threads (NVIDIA/nccl issue #450, 2021), and at most 60% of the wire over
//    32 Gb/s (NVIDIA/nccl issue #209, 2019): 0.45, the middle of those.
constexpr std::array<TransportFigures, 3> kTransports{{
    {"infiniband", 0.976, "NVIDIA/nccl-tests#29: 12.2 of 12.5 GB/s (EDR)"},
    {"roce", 0.75, "NVIDIA/nccl#495: 600 of 800 Gb/s (8 x 100 GbE RoCE, A100 nodes)"},
    {"tcp", 0.45, "NVIDIA/nccl#450: 4-6 of 12.5 GB/s (100 GbE sockets); NVIDIA/nccl#209: <= 60% of 32 Gb/s"},
}};

}  // namespace

std::span<const TransportFigures> transports() { return kTransports; }

std::optional<TransportFigures> find_transport(const std::string& name) {
  for (const TransportFigures& t : kTransports)
    if (name == t.name) return t;
  return std::nullopt;
}

std::optional<TransportFigures> transport_of_link_kind(const std::string& kind) {
  const auto starts = [&](const char* prefix) { return kind.rfind(prefix, 0) == 0; };
  if (starts("infiniband")) return find_transport("infiniband");
  if (starts("roce")) return find_transport("roce");
  if (starts("ethernet") || starts("tcp")) return find_transport("tcp");
  return std::nullopt;
}

}  // namespace dnnperf
