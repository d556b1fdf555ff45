#include "fitting/compute/warm_savings_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include "models/compute/direct_conv.h"

namespace dnnperf::fitting {
namespace {

constexpr int kTerms = 5;  // call, input, filter, output, the native path's call
constexpr int kFolds = 5;

/// The fixed part's bounds tried (seconds; 0: none), 10 us to 10 ms on a log scale.
std::vector<double> tau_grid() {
  std::vector<double> taus{0.0};
  for (int i = 0; i <= 36; ++i) taus.push_back(1e-5 * std::pow(10.0, i / 12.0));
  return taus;
}

bool on_native_path(const ComputeData::HotPair& p) { return conv_path(p.kernel.conv, p.kernel.phase) == ConvPath::native; }

/// With `native_call`, the native path's fixed part is a term of its own (the last).
std::array<double, kTerms> features(const ComputeData::HotPair& p, double tau, bool native_call) {
  const ConvOperandBytes b = conv_operand_bytes(p.kernel.conv, dtype_bytes(p.kernel.dtype));
  const double fixed = tau > 0 ? p.cold_s / (p.cold_s + tau) : 1.0;
  const bool own = native_call && on_native_path(p);
  return {own ? 0.0 : fixed, b.input, b.weight, b.output, own ? fixed : 0.0};
}

struct Solution {
  std::array<double, kTerms> c{};
  double tau = 0;
  bool native_call = false;
  double cost = std::numeric_limits<double>::infinity();
};

/// Non-negative least squares of (cold - hot) / cold on features / cold at one bound of the fixed
/// part: every subset of free coefficients solved unconstrained, the best with none negative kept
/// (four terms: 15 subsets; with the native path's own fixed part, five: 31).
Solution solve_at(const std::vector<const ComputeData::HotPair*>& pairs, double tau, bool native_call) {
  Solution best;
  best.tau = tau;
  best.native_call = native_call;
  const int terms = native_call ? kTerms : kTerms - 1;
  const auto n = static_cast<Eigen::Index>(pairs.size());
  Eigen::MatrixXd x(n, terms);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const ComputeData::HotPair& p = *pairs[static_cast<std::size_t>(i)];
    const auto f = features(p, tau, native_call);
    for (int j = 0; j < terms; ++j) x(i, j) = f[static_cast<std::size_t>(j)] / p.cold_s;
    y(i) = (p.cold_s - p.hot_s) / p.cold_s;
  }
  // Scale the columns so that bytes and seconds solve alike.
  Eigen::VectorXd scale(terms);
  for (int j = 0; j < terms; ++j) scale(j) = std::max(x.col(j).norm(), 1e-300);
  for (int subset = 1; subset < (1 << terms); ++subset) {
    std::vector<int> free;
    for (int j = 0; j < terms; ++j)
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
Solution solve(const std::vector<const ComputeData::HotPair*>& pairs, bool native_call) {
  Solution best;
  for (const double tau : tau_grid())
    if (Solution s = solve_at(pairs, tau, native_call); s.cost < best.cost) best = s;
  return best;
}

double saved(const Solution& s, const ComputeData::HotPair& p, double most) {
  const auto f = features(p, s.tau, s.native_call);
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
    out.native_pairs[d] = static_cast<int>(std::count_if(mine.begin(), mine.end(), [](const auto* p) { return on_native_path(*p); }));
    // Folds by position: torch_bench times a shape set's kernels in a seeded random order.
    const auto held_out = [&](bool native_call) {
      std::vector<std::pair<double, double>> held;
      for (int fold = 0; fold < kFolds; ++fold) {
        std::vector<const ComputeData::HotPair*> train, test;
        for (std::size_t i = 0; i < mine.size(); ++i) (static_cast<int>(i % kFolds) == fold ? test : train).push_back(mine[i]);
        const auto c = solve(train, native_call);
        for (const auto* p : test) held.emplace_back(p->hot_s, p->cold_s - saved(c, *p, out.warmth.most_saved));
      }
      return error_stats(held, 0);
    };
    std::vector<std::pair<double, double>> cold;
    for (const auto* p : mine) cold.emplace_back(p->hot_s, p->cold_s);
    out.as_cold[d] = error_stats(cold, 0);
    out.held_out[d] = held_out(false);
    // The native path's own fixed part where enough pairs take it and it predicts held-out pairs
    // better: a term more is a fit to noise unless the pairs it is fitted on say otherwise.
    bool native_call = false;
    if (out.native_pairs[d] >= kMinNativeHotPairs && out.pairs[d] - out.native_pairs[d] >= kMinNativeHotPairs) {
      out.held_out_one_call[d] = out.held_out[d];
      if (const ErrorStats own = held_out(true); own.mape < out.held_out[d].mape) out.held_out[d] = own, native_call = true;
    }
    const Solution s = solve(mine, native_call);
    out.warmth.conv[d] = {s.c[0], s.tau, s.c[1], s.c[2], s.c[3], native_call ? std::optional<double>(s.c[4]) : std::nullopt};
    any = true;
  }
  if (any) out.warmth.cache_bytes = cache_bytes;
  else out.message = "fewer than " + std::to_string(kMinHotPairs) + " hot pairs in every direction";
  return out;
}

}  // namespace dnnperf::fitting
