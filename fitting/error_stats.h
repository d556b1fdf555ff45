#pragma once
// Error statistics of predictions on held-out data.
#include <string>
#include <utility>
#include <vector>

namespace dnnperf::fitting {

struct ErrorStats {
  int count = 0;
  double mape = 0;       // mean absolute percentage error
  double median = 0;     // median absolute percentage error
  double p90 = 0;        // 90th percentile of the absolute percentage error
  double coverage = 0;   // fraction of measured values inside the 95% prediction interval
  /// Time-weighted error, sum |predicted - measured| / sum measured, in percent: what a sum of
  /// such times (an iteration is one) can be off by; large kernels dominate it as they do a step.
  double weighted = 0;
  /// Root mean square of log(predicted / measured): the spread a 95% interval of +-1.96 of it covers.
  double log_sigma = 0;
};

/// From (measured, predicted) pairs and how many measured values fell inside their interval.
ErrorStats error_stats(const std::vector<std::pair<double, double>>& measured_predicted, int inside_interval);

/// The part of the log error that kernels of one family share (models/compute/error_family.h):
/// the between-family standard deviation of a one-way random-effects model fitted by the method
/// of moments to (family, log(predicted / measured)) pairs — 0 when families differ no more than
/// their members do, at most the pairs' root mean square. Needs two families or more.
double shared_log_sigma(const std::vector<std::pair<std::string, double>>& family_log_errors);

}  // namespace dnnperf::fitting
