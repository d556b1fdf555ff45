#include "models/comm/fitted_comm_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace dnnperf {

double size_correction(const FittedCommModel& model, double bytes, int ranks) {
  const auto& c = model.size_corrections;
  const auto first = std::lower_bound(c.begin(), c.end(), ranks, [](const SizeCorrection& s, int r) { return s.ranks < r; });
  const auto last = std::upper_bound(first, c.end(), ranks, [](int r, const SizeCorrection& s) { return r < s.ranks; });
  if (first == last) return 0;
  const auto above = std::lower_bound(first, last, bytes, [](const SizeCorrection& s, double b) { return s.bytes < b; });
  if (above == first) return first->log_ratio;
  if (above == last) return std::prev(last)->log_ratio;
  const SizeCorrection& below = *std::prev(above);
  const double share = std::log(bytes / below.bytes) / std::log(above->bytes / below.bytes);
  return below.log_ratio + share * (above->log_ratio - below.log_ratio);
}

namespace {

double seconds_at(const FittedCommModel& model, double bytes, int ranks) {
  const FittedCommModel& m = model.for_ranks(ranks);
  const double form = comm_seconds_with(m, m.params.data(), bytes, ranks);
  return m.size_corrections.empty() ? form : form * std::exp(size_correction(m, bytes, ranks));
}

}  // namespace

double comm_seconds(const FittedCommModel& model, double bytes, int ranks) {
  // Never faster than over half the ranks (and a half of that, ...): a form fitted on a few rank
  // counts need not be monotone past them. The dnnperf form's cache terms follow the chunk one
  // step moves, which shrinks with the ranks, and on the 2-core VM's profile it priced 25 MB over
  // 16 ranks at half its time over 4, so that scale drew efficiencies above 1. Halving keeps the
  // cost at log2(ranks) evaluations and makes the time monotone along every doubling of ranks
  // (the node counts scale sweeps by default).
  double t = seconds_at(model, bytes, ranks);
  for (int fewer = ranks / 2; fewer >= 2; fewer /= 2) t = std::max(t, seconds_at(model, bytes, fewer));
  return t;
}

CommPrediction comm_prediction(const FittedCommModel& model, double bytes, int ranks) {
  if (const FittedCommModel& local = model.for_ranks(ranks); &local != &model) return comm_prediction(local, bytes, ranks);
  const std::vector<double>& params = model.params;
  const std::vector<double>& covariance = model.covariance;
  CommPrediction r;
  r.seconds = comm_seconds(model, bytes, ranks);
  // Delta method in log space: var(log t) = g' S g + sigma^2, g the gradient of log t.
  double variance = model.residual_sigma * model.residual_sigma;
  if (!model.at_ranks.empty()) variance += model.unmeasured_ranks_sigma * model.unmeasured_ranks_sigma;  // a count not measured
  const std::size_t n = params.size();
  if (covariance.size() == n * n && r.seconds > 0) {
    std::vector<double> g(n), q = params;
    for (std::size_t i = 0; i < n; ++i) {
      const double h = std::max(std::abs(params[i]) * 1e-4, 1e-18);
      q[i] = params[i] + h;
      const double up = comm_seconds_with(model, q.data(), bytes, ranks);
      q[i] = std::max(0.0, params[i] - h);
      const double down = comm_seconds_with(model, q.data(), bytes, ranks);
      q[i] = params[i];
      g[i] = (std::log(std::max(up, 1e-30)) - std::log(std::max(down, 1e-30))) / (params[i] + h - std::max(0.0, params[i] - h));
    }
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) variance += g[i] * covariance[i * n + j] * g[j];
  }
  const double spread = 1.96 * std::sqrt(std::max(variance, 0.0));
  r.low = r.seconds * std::exp(-spread);
  r.high = r.seconds * std::exp(spread);
  return r;
}

}  // namespace dnnperf
