#pragma once
// Searching every model-parallel plan of a transformer on a number of GPUs: each valid (TP, PP,
// interleave, DP, EP, ZeRO stage, micro-batch, recompute, sequence parallelism) is checked for
// memory first (cheap: the parts are priced once per tensor-parallel degree and micro-batch), and
// only the plans that fit are simulated. The best K come back with their intervals and the chance
// each is the fastest of them.
#include <cstdint>
#include <optional>
#include <vector>

#include "predictor/large_model/model_parallel.h"

namespace dnnperf {

struct PlanSearchSpace {
  int gpus = 8;
  /// What every plan shares: GPUs per node, global batch, sequence, precision, the overlaps and
  /// the fragmentation allowance. Its degrees (tp, pp, ..., nodes) are what the search sets.
  ModelParallelPlan shape;
  std::int64_t max_micro_batch = 16;
  int max_interleave = 8;
};

struct RankedPlan {
  ModelParallelPrediction prediction;
  /// The chance this plan is the fastest of those returned, from their intervals (each plan's
  /// error taken as independent and log-normal: shared model errors would make the ranking surer).
  double chance_fastest = 0;
};

struct PlanSearchResult {
  std::vector<RankedPlan> best;          // fastest first
  std::int64_t configs_evaluated = 0;    // valid plans whose memory was checked
  std::int64_t configs_fitting = 0;      // of those, the ones that fit in memory
  std::int64_t configs_simulated = 0;    // of those, the ones whose bound could beat the best found: simulated
  double seconds = 0;                    // wall time of the search
  /// When nothing fits: the plan that misses memory by the least, and its memory.
  std::optional<ModelParallelPlan> closest;
  ModelParallelMemory closest_memory;
};

/// Every valid plan of the space (each passes ModelParallelPlan::validate), in a fixed order.
std::vector<ModelParallelPlan> enumerate_plans(const TransformerSpec& spec, const HardwareProfile& hardware, const PlanSearchSpace& space);

/// The best `top` plans, exactly: plans that fit are taken in order of a lower bound on their
/// time (their busiest GPU's own work), simulated, and the search stops when the next bound is no
/// better than the top-th time found. Throws InputError naming the field for a space with no valid plan at all (GPUs not a
/// multiple of a node, a batch no data-parallel degree divides).
PlanSearchResult search_plans(ModelParallelEvaluator& evaluator, const PlanSearchSpace& space, int top);

}  // namespace dnnperf
