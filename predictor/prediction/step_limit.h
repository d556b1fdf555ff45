#pragma once
// What bounds a predicted training step beyond its own computation, so that a scalability curve
// says why it bends where it bends:
//
//   const StepLimit l = step_limit(prediction, hardware);
//   std::cout << step_limit_name(l.limit);   // "compute", "network", "latency", "straggler", "host"
//
// The parts of the step that are not the kernels' own work: the exposed gradient communication,
// split into its latency part (each all-reduce priced at one byte: what no bandwidth removes) and
// its bandwidth part (the rest, with what overlapping the collectives cost the kernels), the wait
// for the slowest rank (Prediction::sync_wait: jitter and persistent stragglers), and the device
// idling for the host to queue kernels. When those together take less than a tenth of the
// step, the step is compute-bound; otherwise the largest of them names the limit.
#include "predictor/prediction/predict.h"

namespace dnnperf {

enum class StepLimitKind { compute, network, latency, straggler, host };

struct StepLimit {
  StepLimitKind limit = StepLimitKind::compute;
  double network_s = 0;    // exposed communication's bandwidth part, and the overlap's cost
  double latency_s = 0;    // exposed communication's latency part
  double straggler_s = 0;  // waiting for the slowest rank
  double host_s = 0;       // the device waiting for the host
};

/// The share of the step below which the parts beyond computation leave it compute-bound.
inline constexpr double kComputeBoundShare = 0.1;

StepLimit step_limit(const Prediction& prediction, const HardwareProfile& hardware);
const char* step_limit_name(StepLimitKind kind);

}  // namespace dnnperf
