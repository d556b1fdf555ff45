#pragma once
// Scalability sweeps: one prediction per node count, under weak scaling (fixed batch per device)
// or strong scaling (fixed global batch, split over the devices).
#include <functional>
#include <string>
#include <vector>

#include "predictor/prediction/predict.h"
#include "predictor/prediction/step_limit.h"

namespace dnnperf {

enum class Scaling { weak, strong };

struct ScalePoint {
  int nodes = 1;
  Prediction prediction;
  double speedup = 1;     // throughput relative to the first point
  double efficiency = 1;  // speedup / (devices relative to the first point)
  StepLimit limit;        // what bounds the point's step
};

/// Node counts from "1,2,8", "1..4096" (powers of two from 1 to 4096) or "2..64:2" (a step of 2);
/// throws InputError naming the text for anything else or a non-positive count.
std::vector<int> parse_node_counts(const std::string& text);

/// `build(batch_per_device)` makes the per-device graph. `batch` is the per-device batch (weak)
/// or the global batch (strong, which must divide evenly over every point's devices). With
/// gradient accumulation (RunConfig::accumulation_steps K), weak scaling runs K micro-batches of
/// `batch` per step at every point; strong scaling splits the first point's share into K
/// micro-batches and keeps that micro-batch, so more devices take fewer micro-batches each (the
/// global batch fixed, as runs scale), down to one, below which the micro-batch shrinks.
std::vector<ScalePoint> scale(const std::function<Graph(std::int64_t)>& build, const HardwareProfile& hardware,
                              const RunConfig& base, std::int64_t batch, const std::vector<int>& nodes, Scaling scaling);

}  // namespace dnnperf
