#include "fitting/compute/pass_far_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/analysis/step_residency.h"

namespace dnnperf::fitting {
namespace {

constexpr int kReachGrid = 96;

struct Prices {
  double read = 0, written = 0, reach = 0, squared_error = std::numeric_limits<double>::infinity();
};

/// The ramp the step replay prices by (analysis/step_residency.h): 0 up to the eviction, 1 from the reach on.
double far_share(double distance, double eviction, double reach) { return ColdReach{eviction, reach}.far_share(distance); }

/// The reach of least squared error over `records` but the one at `skip` (none: records.size()).
Prices best_prices(const std::vector<ComputeData::PassDistance>& records, double eviction, std::size_t skip) {
  double longest = 0;
  for (std::size_t i = 0; i < records.size(); ++i)
    if (i != skip) longest = std::max(longest, records[i].distance_bytes);
  Prices best;
  if (!(longest > eviction)) return best;
  for (int g = 1; g <= kReachGrid; ++g) {
    const double reach = eviction * std::pow(longest / eviction, static_cast<double>(g) / kReachGrid);
    // Per direction: price = sum x * y / sum x^2 with x the far bytes, y the time beyond hot.
    double xy[2] = {0, 0}, xx[2] = {0, 0};
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (i == skip) continue;
      const ComputeData::PassDistance& r = records[i];
      const double x = far_share(r.distance_bytes, eviction, reach) * r.bytes;
      xy[r.written] += x * (r.seconds - r.hot_seconds), xx[r.written] += x * x;
    }
    Prices p;
    p.reach = reach;
    p.read = xx[0] > 0 ? std::max(xy[0] / xx[0], 0.0) : 0.0;
    p.written = xx[1] > 0 ? std::max(xy[1] / xx[1], 0.0) : 0.0;
    p.squared_error = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (i == skip) continue;
      const ComputeData::PassDistance& r = records[i];
      const double e = r.hot_seconds + (r.written ? p.written : p.read) * far_share(r.distance_bytes, eviction, reach) * r.bytes - r.seconds;
      p.squared_error += e * e;
    }
    if (p.squared_error < best.squared_error) best = p;
  }
  return best;
}

}  // namespace

PassFarFit fit_pass_far_prices(const std::vector<ComputeData::PassDistance>& records, double eviction_bytes) {
  PassFarFit out;
  for (const ComputeData::PassDistance& r : records) ++(r.written ? out.written_records : out.read_records);
  if (!(eviction_bytes > 0)) {
    out.message = "no eviction to measure distances from";
    return out;
  }
  if (out.read_records < kMinPassDistances || out.written_records < kMinPassDistances) {
    out.message = std::to_string(out.read_records) + " read and " + std::to_string(out.written_records) + " written records (" +
                  std::to_string(kMinPassDistances) + " of each needed)";
    return out;
  }
  const bool beyond = std::count_if(records.begin(), records.end(), [&](const ComputeData::PassDistance& r) { return r.distance_bytes > eviction_bytes; }) >= 2;
  if (!beyond) {
    out.message = "fewer than two records beyond the eviction (" + std::to_string(eviction_bytes / 1048576) + " MiB)";
    return out;
  }
  const Prices all = best_prices(records, eviction_bytes, records.size());
  out.fitted = true;
  out.read_s_per_byte = all.read, out.written_s_per_byte = all.written, out.reach_bytes = all.reach;
  std::vector<std::pair<double, double>> held, hot;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const ComputeData::PassDistance& r = records[i];
    const Prices p = best_prices(records, eviction_bytes, i);
    const double price = r.written ? p.written : p.read;
    held.emplace_back(r.seconds, r.hot_seconds + (p.reach > 0 ? price * far_share(r.distance_bytes, eviction_bytes, p.reach) * r.bytes : 0.0));
    hot.emplace_back(r.seconds, r.hot_seconds);
  }
  out.held_out = error_stats(held, 0);
  out.as_hot = error_stats(hot, 0);
  return out;
}

}  // namespace dnnperf::fitting
