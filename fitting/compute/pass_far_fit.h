#pragma once
// Fits what a memory-bound pass pays for bytes a step last touched far back, from a distance curve
// (ComputeData::pass_distances: a 4 MiB pass read or written where it was last touched D bytes
// ago, beside the same pass timed hot; scripts/torch_bench.py --pass-distances):
//
//   far - hot = price(direction) * far_share(D) * bytes
//   far_share(D) = clamp((D - eviction) / (reach - eviction), 0, 1)
//
// The eviction is the cold timings' (StepWarmth::cold_eviction_bytes): below it calibration's own
// state was as near. The reach, where a byte is wholly far, is fitted: not the last-level cache the
// CPU reports but how much of it this machine's neighbours leave (on the Intel VM, L3 480 MiB,
// 2026-12-04: the ramp ended near 450 MiB at 00:55 UTC, near 215 MiB at 03:10, at 128-144 MiB
// in four calibrations after). One reach
// for both directions, searched on a log grid between the eviction and the longest distance
// measured; at each, the two prices by least squares (non-negative), the reach of least squared
// error kept. Held out record by record: the far times as hot + price * far bytes, beside taking
// them as hot (what the profile's passes, timed hot, say without it).
#include <string>
#include <vector>

#include "fitting/compute/compute_fit.h"
#include "fitting/error_stats.h"

namespace dnnperf::fitting {

/// Fewer records than this in a direction fit nothing.
inline constexpr int kMinPassDistances = 4;

struct PassFarFit {
  bool fitted = false;
  double read_s_per_byte = 0, written_s_per_byte = 0;
  double reach_bytes = 0;             // from where a byte is wholly far
  int read_records = 0, written_records = 0;
  ErrorStats held_out;                // far times as hot + price * far bytes, each record left out of its own fit
  ErrorStats as_hot;                  // far times taken as the hot ones
  std::string message;                // why nothing was fitted, if so
};

/// `eviction_bytes`: where the ramp starts (the cold timings' eviction, > 0).
PassFarFit fit_pass_far_prices(const std::vector<ComputeData::PassDistance>& records, double eviction_bytes);

}  // namespace dnnperf::fitting
