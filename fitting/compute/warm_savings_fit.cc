#include "fitting/compute/warm_savings_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

namespace dnnperf::fitting {
namespace {

constexpr int kTerms = 4;  // call, input, filter, output
constexpr int kFolds = 5;

/// The fixed part's bounds tried (seconds; 0: none), 10 us to 10 ms on a log scale.
std::vector<double> tau_grid() {
  std::vector<double> taus{0.0};
  for (int i = 0; i <= 36; ++i) taus.push_back(1e-5 * std::pow(10.0, i / 12.0));
  return taus;
}

std::array<double, kTerms> features(const ComputeData::HotPair& p, double tau) {
  const ConvOperandBytes b = conv_operand_bytes(p.kernel.conv, dtype_bytes(p.kernel.dtype));
  return {tau > 0 ? p.cold_s / (p.cold_s + tau) : 1.0, b.input, b.weight, b.output};
}

struct Solution {
  std::array<double, kTerms> c{};
  double tau = 0;
  double cost = std::numeric_limits<double>::infinity();
};

/// Non-negative least squares of (cold - hot) / cold on features / cold at one bound of the fixed
/// part: every subset of free coefficients solved unconstrained, the best with none negative kept
/// (four terms: 15 subsets).
Solution solve_at(const std::vector<const ComputeData::HotPair*>& pairs, double tau) {
  Solution best;
  best.tau = tau;
  const auto n = static_cast<Eigen::Index>(pairs.size());
  Eigen::MatrixXd x(n, kTerms);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const ComputeData::HotPair& p = *pairs[static_cast<std::size_t>(i)];
    const auto f = features(p, tau);
    for (int j = 0; j < kTerms; ++j) x(i, j) = f[static_cast<std::size_t>(j)] / p.cold_s;
    y(i) = (p.cold_s - p.hot_s) / p.cold_s;
  }
  // Scale the columns so that bytes and seconds solve alike.
  Eigen::VectorXd scale(kTerms);
  for (int j = 0; j < kTerms; ++j) scale(j) = std::max(x.col(j).norm(), 1e-300);
  for (int subset = 1; subset < (1 << kTerms); ++subset) {
    std::vector<int> free;
    for (int j = 0; j < kTerms; ++j)
      if (subset & (1 << j)) free.push_back(j);
    Eigen::MatrixXd a(n, static_cast<Eigen::Index>(free.size()));
    for (std::size_t c = 0; c < free.size(); ++c) a.col(static_cast<Eigen::Index>(c)) = x.col(free[c]) / scale(free[c]);
    const Eigen::VectorXd b = a.colPivHouseholderQr().solve(y);
    if ((b.array() < 0).any()) continue;
    const double cost = (a * b - y).squaredNorm();
    if (cost < best.cost) {
      best.cost = cost;
      best.c = {};
      for (std::size_t c = 0; c < free.size(); ++c) best.c[static_cast<std::size_t>(free[c])] = b(static_cast<Eigen::Index>(c)) / scale(free[c]);
    }
  }
  return best;
}

/// The bound of the fixed part with the least squared relative error, and its coefficients.
Solution solve(const std::vector<const ComputeData::HotPair*>& pairs) {
  Solution best;
  for (const double tau : tau_grid())
    if (Solution s = solve_at(pairs, tau); s.cost < best.cost) best = s;
  return best;
}

double saved(const Solution& s, const ComputeData::HotPair& p, double most) {
  const auto f = features(p, s.tau);
  double total = 0;
  for (int j = 0; j < kTerms; ++j) total += s.c[static_cast<std::size_t>(j)] * f[static_cast<std::size_t>(j)];
  return std::clamp(total, 0.0, most * p.cold_s);
}

}  // namespace

WarmSavingsFit fit_warm_savings(const std::vector<ComputeData::HotPair>& pairs, double cache_bytes) {
  WarmSavingsFit out;
  if (!(cache_bytes > 0)) {
    out.message = "the profile models no cache (memory.cache_bytes): a step's warmth cannot be replayed";
    return out;
  }
  double most = 0;
  for (const auto& p : pairs) most = std::max(most, 1 - p.hot_s / p.cold_s);
  out.warmth.most_saved = std::clamp(most, 0.0, 0.95);
  bool any = false;
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    const auto d = static_cast<std::size_t>(phase);
    std::vector<const ComputeData::HotPair*> mine;
    for (const auto& p : pairs)
      if (p.kernel.phase == phase && p.cold_s > 0 && p.hot_s > 0) mine.push_back(&p);
    out.pairs[d] = static_cast<int>(mine.size());
    if (out.pairs[d] < kMinHotPairs) continue;
    // Folds by position: torch_bench times a shape set's kernels in a seeded random order.
    std::vector<std::pair<double, double>> held, cold;
    for (int fold = 0; fold < kFolds; ++fold) {
      std::vector<const ComputeData::HotPair*> train, test;
      for (std::size_t i = 0; i < mine.size(); ++i) (static_cast<int>(i % kFolds) == fold ? test : train).push_back(mine[i]);
      const auto c = solve(train);
      for (const auto* p : test) {
        held.emplace_back(p->hot_s, p->cold_s - saved(c, *p, out.warmth.most_saved));
        cold.emplace_back(p->hot_s, p->cold_s);
      }
    }
    out.held_out[d] = error_stats(held, 0);
    out.as_cold[d] = error_stats(cold, 0);
    const Solution s = solve(mine);
    out.warmth.conv[d] = {s.c[0], s.tau, s.c[1], s.c[2], s.c[3]};
    any = true;
  }
  if (any) out.warmth.cache_bytes = cache_bytes;
  else out.message = "fewer than " + std::to_string(kMinHotPairs) + " hot pairs in every direction";
  return out;
}

}  // namespace dnnperf::fitting
