#include "fitting/error_stats.h"

#include <algorithm>
#include <cmath>

namespace dnnperf::fitting {

ErrorStats error_stats(const std::vector<std::pair<double, double>>& pairs, int inside) {
  ErrorStats e;
  e.count = static_cast<int>(pairs.size());
  if (pairs.empty()) return e;
  std::vector<double> ape;
  double sum = 0, deviation = 0, measured = 0, squares = 0;
  for (const auto& [m, p] : pairs) {
    if (m > 0 && p > 0) squares += std::log(p / m) * std::log(p / m);
    ape.push_back(100 * std::abs(p - m) / m);
    sum += ape.back();
    deviation += std::abs(p - m);
    measured += m;
  }
  std::sort(ape.begin(), ape.end());
  e.mape = sum / static_cast<double>(ape.size());
  e.median = ape[ape.size() / 2];
  e.p90 = ape[std::min(ape.size() - 1, static_cast<std::size_t>(0.9 * static_cast<double>(ape.size())))];
  e.coverage = static_cast<double>(inside) / static_cast<double>(ape.size());
  e.weighted = measured > 0 ? 100 * deviation / measured : 0;
  e.log_sigma = std::sqrt(squares / static_cast<double>(pairs.size()));
  return e;
}

}  // namespace dnnperf::fitting
