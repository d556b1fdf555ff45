#pragma once
// Error statistics of predictions on held-out data.
#include <vector>

namespace dnnperf::fitting {

struct ErrorStats {
  int count = 0;
  double mape = 0;       // mean absolute percentage error
  double median = 0;     // median absolute percentage error
  double p90 = 0;        // 90th percentile of the absolute percentage error
  double coverage = 0;   // fraction of measured values inside the 95% prediction interval
};

/// From absolute percentage errors and how many measured values fell inside their interval.
ErrorStats error_stats(std::vector<double> absolute_percentage_errors, int inside_interval);

}  // namespace dnnperf::fitting
