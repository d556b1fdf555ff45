#include "fitting/error_stats.h"

#include <algorithm>

namespace dnnperf::fitting {

ErrorStats error_stats(std::vector<double> ape, int inside) {
  ErrorStats e;
  e.count = static_cast<int>(ape.size());
  if (ape.empty()) return e;
  std::sort(ape.begin(), ape.end());
  double sum = 0;
  for (double a : ape) sum += a;
  e.mape = sum / static_cast<double>(ape.size());
  e.median = ape[ape.size() / 2];
  e.p90 = ape[std::min(ape.size() - 1, static_cast<std::size_t>(0.9 * static_cast<double>(ape.size())))];
  e.coverage = static_cast<double>(inside) / static_cast<double>(ape.size());
  return e;
}

}  // namespace dnnperf::fitting
