#include "fitting/error_stats.h"

#include <algorithm>
#include <cmath>
#include <map>

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

double shared_log_sigma(const std::vector<std::pair<std::string, double>>& pairs) {
  std::map<std::string, std::pair<double, int>> families;  // sum, count
  double total = 0, squares = 0;
  for (const auto& [family, e] : pairs) {
    families[family].first += e;
    ++families[family].second;
    total += e;
    squares += e * e;
  }
  const double n = static_cast<double>(pairs.size()), f = static_cast<double>(families.size());
  if (families.size() < 2 || n <= f) return 0;
  // Unbalanced one-way ANOVA: E[between mean square] = within variance + n0 * shared variance.
  const double mean = total / n;
  double between = 0, within = 0, n_squares = 0;
  for (const auto& [family, sc] : families) {
    const double m = sc.first / sc.second;
    between += sc.second * (m - mean) * (m - mean);
    n_squares += static_cast<double>(sc.second) * sc.second;
  }
  for (const auto& [family, e] : pairs) {
    const auto& sc = families.at(family);
    within += (e - sc.first / sc.second) * (e - sc.first / sc.second);
  }
  const double ms_between = between / (f - 1), ms_within = within / (n - f);
  const double n0 = (n - n_squares / n) / (f - 1);
  const double shared = std::max(0.0, (ms_between - ms_within) / n0);
  return std::min(std::sqrt(shared), std::sqrt(squares / n));
}

}  // namespace dnnperf::fitting
