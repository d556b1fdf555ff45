#include "predictor/prediction/step_limit.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "models/comm/allreduce.h"

namespace dnnperf {

StepLimit step_limit(const Prediction& p, const HardwareProfile& hw) {
  StepLimit l;
  // Exposed communication, split as the calls split: each call's latency is its price at one byte.
  // A datasheet-priced call's latency is its own algorithm's alpha terms (bandwidths and the
  // reduction made free); a fitted model's, its price at one byte.
  double total = 0, latency = 0;
  if (!p.allreduces.empty()) {
    CommGroup free_bytes = comm_group(hw, p.config.plan);
    free_bytes.intra.beta = free_bytes.inter.beta = free_bytes.gamma = 0;
    const double floor = allreduce_pricer(hw, p.config.plan)(1.0).second;
    for (const AllReduceCall& c : p.allreduces) {
      const std::optional<AllReduceAlgorithm> a = p.fitted_communication ? std::nullopt : parse_allreduce(c.algorithm);
      total += c.seconds;
      latency += std::min(c.seconds, a ? allreduce_seconds(*a, c.bytes, free_bytes) : floor);
    }
  }
  const double latency_share = total > 0 ? latency / total : 0.0;
  l.latency_s = p.comm_exposed_s * latency_share;
  // What overlapping the collectives cost the kernels is the network's too.
  l.network_s = p.comm_exposed_s - l.latency_s + p.overlap_cost_s;
  // compute_s holds the stretch for the slowest rank (sync_wait times the kernels' own time) and
  // the overlap's cost.
  l.straggler_s = p.sync_wait > 1 ? (p.compute_s - p.overlap_cost_s) * (1 - 1 / p.sync_wait) : 0.0;
  l.host_s = p.device_waiting_s;
  const std::array<std::pair<StepLimitKind, double>, 4> parts{
      {{StepLimitKind::network, l.network_s}, {StepLimitKind::latency, l.latency_s}, {StepLimitKind::straggler, l.straggler_s}, {StepLimitKind::host, l.host_s}}};
  double beyond = 0;
  for (const auto& part : parts) beyond += part.second;
  if (p.iteration_s > 0 && beyond >= kComputeBoundShare * p.iteration_s)
    l.limit = std::max_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  return l;
}

const char* step_limit_name(StepLimitKind kind) {
  switch (kind) {
    case StepLimitKind::compute: return "compute";
    case StepLimitKind::network: return "network";
    case StepLimitKind::latency: return "latency";
    case StepLimitKind::straggler: return "straggler";
    case StepLimitKind::host: return "host";
  }
  return "compute";
}

}  // namespace dnnperf
