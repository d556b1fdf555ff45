#include "models/comm/fitted_comm_model.h"

#include <cmath>

namespace dnnperf {

bool is_library_choice(std::string_view algorithm) {
  return algorithm == "default" || algorithm.find(':') != std::string_view::npos;
}

bool is_library_name(std::string_view name) { return name == "mpi" || name == "gloo" || name == "nccl"; }

std::string library_choice_name(std::string_view library) {
  return library == "mpi" ? "default" : std::string(library) + ":default";
}

std::string_view comm_model_name(CommModelKind kind) {
  switch (kind) {
    case CommModelKind::hockney: return "hockney";
    case CommModelKind::loggp: return "loggp";
    case CommModelKind::dnnperf: return "dnnperf";
  }
  return "?";
}

std::optional<CommModelKind> parse_comm_model(std::string_view name) {
  for (CommModelKind k : {CommModelKind::hockney, CommModelKind::loggp, CommModelKind::dnnperf})
    if (comm_model_name(k) == name) return k;
  return std::nullopt;
}

const std::vector<std::string>& comm_model_parameters(CommModelKind kind) {
  static const std::vector<std::string> hockney = {"alpha_s", "beta_s_per_byte", "gamma_s_per_byte"};
  static const std::vector<std::string> loggp = {"latency_s", "gap_s", "G_s_per_byte", "gamma_s_per_byte"};
  static const std::vector<std::string> dnnperf = {"alpha_eager_s", "beta_eager_s_per_byte", "alpha_rendezvous_s",
                                                   "beta_rendezvous_s_per_byte", "beta_out_of_cache_s_per_byte",
                                                   "gamma_s_per_byte", "oversubscribed_latency_s_per_rank",
                                                   "oversubscribed_slowdown_per_rank", "beta_out_of_last_cache_s_per_byte", "oversubscribed_call_latency_s_per_rank",
                                                   "alpha_past_fast_path_s"};
  switch (kind) {
    case CommModelKind::hockney: return hockney;
    case CommModelKind::loggp: return loggp;
    case CommModelKind::dnnperf: return dnnperf;
  }
  return hockney;
}

int comm_model_later_parameters(CommModelKind kind) { return kind == CommModelKind::dnnperf ? 2 : 0; }

std::string_view FittedCommModel::steps_of(double bytes, int ranks) const {
  if (library_choices.empty()) return algorithm;
  int nearest = library_choices.front().ranks;
  for (const LibraryChoice& c : library_choices)
    if (std::abs(c.ranks - ranks) < std::abs(nearest - ranks)) nearest = c.ranks;
  std::string_view pick = algorithm;
  for (const LibraryChoice& c : library_choices)
    if (c.ranks == nearest && (c.from_bytes <= bytes || pick == algorithm)) pick = c.algorithm;
  return pick;
}

const FittedCommModel& FittedCommModel::for_ranks(int count) const {
  for (const FittedCommModel& m : at_ranks)
    if (m.fitted_ranks == count) return m;
  return *this;
}

CommPrediction FittedCommModel::predict(double bytes, int ranks) const {
  if (const FittedCommModel& local = for_ranks(ranks); &local != this) return local.predict(bytes, ranks);
  CommPrediction r;
  r.seconds = seconds(bytes, ranks);
  // Delta method in log space: var(log t) = g' S g + sigma^2, g the gradient of log t.
  double variance = residual_sigma * residual_sigma;
  if (!at_ranks.empty()) variance += unmeasured_ranks_sigma * unmeasured_ranks_sigma;  // a count not measured
  const std::size_t n = params.size();
  if (covariance.size() == n * n && r.seconds > 0) {
    std::vector<double> g(n), q = params;
    for (std::size_t i = 0; i < n; ++i) {
      const double h = std::max(std::abs(params[i]) * 1e-4, 1e-18);
      q[i] = params[i] + h;
      const double up = seconds_with(q.data(), bytes, ranks);
      q[i] = std::max(0.0, params[i] - h);
      const double down = seconds_with(q.data(), bytes, ranks);
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
