#pragma once
// How much of a network link's nominal bandwidth collectives achieve over each transport, as
// published measurements of NCCL's bus bandwidth show it (nccl-tests all_reduce_perf, large
// messages, one NIC per flow). A datasheet profile's `cluster.inter.bandwidth` is the NIC's line
// rate; the collectives are priced at that times the transport's achieved fraction, unless the
// profile names its own (`cluster.achieved_fraction`, e.g. from `dnnperf bench` over that fabric).
#include <optional>
#include <span>
#include <string>

namespace dnnperf {

struct TransportFigures {
  const char* name;             // as `cluster.transport` names it
  double achieved_fraction;     // of the line rate, large messages
  const char* source;           // the published measurement behind it
};

/// Every transport a profile may name.
std::span<const TransportFigures> transports();
/// The transport called `name`, or nullopt.
std::optional<TransportFigures> find_transport(const std::string& name);
/// The transport a link kind implies where a profile names none ("infiniband-hdr" → infiniband,
/// "roce-..." → roce, "ethernet-..." or "tcp-..." → tcp); nullopt for anything else (priced at
/// its line rate).
std::optional<TransportFigures> transport_of_link_kind(const std::string& kind);

}  // namespace dnnperf
