#pragma once
// Fits models/compute/step_warmth.h: what a convolution saves when timed back to back instead of
// from evicted caches, per direction, from hot pairs (ComputeData::hot_pairs).
//
//   cold - hot = call_s * cold / (cold + call_tau_s) + input_s_per_byte * input_bytes
//                + weight_s_per_byte * filter_bytes + output_s_per_byte * output_bytes
//
// by least squares on the differences relative to the cold time (a 0.1 ms kernel counts as much as
// a 100 ms one), every coefficient kept non-negative (the best of the subsets of free ones), at
// each call_tau_s of a grid (none, and 10 us to 10 ms on a log scale): the best is kept. Held
// out by five folds: the error of the hot times it predicts (cold - saved) beside that of taking
// them as cold, which is what a profile without it does. Where at least kMinNativeHotPairs pairs
// take PyTorch's native path and as many do not, the native path's fixed part is also fitted as a
// term of its own (native_call_s), and kept where its held-out error is the lower.
#include <array>
#include <string>
#include <vector>

#include "fitting/compute/compute_fit.h"
#include "fitting/error_stats.h"
#include "models/compute/step_warmth.h"

namespace dnnperf::fitting {

/// Fewer pairs of a direction than this fit nothing for it (its savings stay 0).
inline constexpr int kMinHotPairs = 12;
/// Pairs on the native path, and off it, that a direction needs before its native fixed part is tried.
inline constexpr int kMinNativeHotPairs = 8;

struct WarmSavingsFit {
  StepWarmth warmth;                  // cache_bytes as given; enabled only where some direction was fitted
  std::array<int, 3> pairs{};         // per direction (Phase order)
  std::array<int, 3> native_pairs{};  // of those, on PyTorch's native path
  std::array<ErrorStats, 3> held_out{};   // hot times as cold - saved, held out (the form kept)
  std::array<ErrorStats, 3> held_out_one_call{};  // the same with one fixed part for every path, where the other was tried
  std::array<ErrorStats, 3> as_cold{};    // hot times taken as the cold ones
  std::string message;                // why nothing was fitted, if so
};

/// `cache_bytes`: the cache a step is replayed through (the profile's fitted memory.cache_bytes).
WarmSavingsFit fit_warm_savings(const std::vector<ComputeData::HotPair>& pairs, double cache_bytes);

}  // namespace dnnperf::fitting
