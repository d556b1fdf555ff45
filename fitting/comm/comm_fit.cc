#include "fitting/comm/comm_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include <ceres/ceres.h>

#include "fitting/ceres_solve.h"
#include "models/comm/allreduce.h"

namespace dnnperf::fitting {
namespace {

struct LogResidual {
  const FittedCommModel* model;
  double bytes;
  int ranks;
  double log_measured;

  template <typename T>
  bool operator()(T const* const* p, T* residual) const {
    const T t = comm_seconds_with(*model, p[0], bytes, ranks);
    if (!(t > T(0))) return false;
    residual[0] = log(t) - T(log_measured);
    return true;
  }
};

/// Rough starting values from the smallest and largest messages.
std::vector<double> initial(CommModelKind kind, const std::vector<CommSample>& s) {
  const auto small = *std::min_element(s.begin(), s.end(), [](auto& a, auto& b) { return a.bytes < b.bytes; });
  const auto large = *std::max_element(s.begin(), s.end(), [](auto& a, auto& b) { return a.bytes < b.bytes; });
  const double alpha = std::max(small.seconds / 4, 1e-8);
  const double beta = std::max(large.seconds / (4 * large.bytes), 1e-13);
  switch (kind) {
    case CommModelKind::hockney: return {alpha, beta, beta / 2};
    case CommModelKind::loggp: return {alpha, alpha / 2, beta, beta / 2};
    case CommModelKind::dnnperf: return {alpha, beta, 2 * alpha, beta, beta / 4, beta / 2, alpha, 0.2, beta / 4, alpha, alpha / 2};
  }
  return {};
}

/// Indices of w_a, w_b and w_c in the dnnperf model's parameters.
const std::vector<int> kOversubscriptionParameters = {6, 7, 9};

struct Solved {
  std::vector<double> params;
  double cost = std::numeric_limits<double>::infinity();
  bool converged = false;
  bool usable = false;
  std::string message;
  std::vector<double> covariance;
};

Solved solve(FittedCommModel& m, const std::vector<CommSample>& s, bool with_covariance) {
  Solved out;
  std::vector<double> p = initial(m.kind, s);
  ceres::Problem problem;
  for (const CommSample& x : s) {
    auto* cost = new ceres::DynamicAutoDiffCostFunction<LogResidual, 11>(new LogResidual{&m, x.bytes, x.ranks, std::log(x.seconds)});
    cost->AddParameterBlock(static_cast<int>(p.size()));
    cost->SetNumResiduals(1);
    problem.AddResidualBlock(cost, new ceres::HuberLoss(0.1), p.data());
  }
  for (std::size_t i = 0; i < p.size(); ++i) problem.SetParameterLowerBound(p.data(), static_cast<int>(i), 0.0);
  problem.SetParameterLowerBound(p.data(), 0, 1e-9);  // a latency: the model stays positive
  // Without a sample past P the data say nothing of oversubscription: its terms stay at 0 rather
  // than at their starting guesses, so that predictions for more ranks do not invent a cost. With
  // one rank count they are constants the latencies and bandwidths already hold (a fit of one
  // count alone): free, they would only wander.
  const bool oversubscribed = std::any_of(s.begin(), s.end(), [&](const CommSample& x) { return x.ranks > m.oversubscribed_from; });
  const bool one_count = std::all_of(s.begin(), s.end(), [&](const CommSample& x) { return x.ranks == s.front().ranks; });
  if (m.kind == CommModelKind::dnnperf && (!oversubscribed || one_count)) {
    for (int i : kOversubscriptionParameters) p[static_cast<std::size_t>(i)] = 0;
    problem.SetManifold(p.data(), new ceres::SubsetManifold(static_cast<int>(p.size()), kOversubscriptionParameters));
  }
  // The search's many solves may stop early: they rank choices. The kept one runs to convergence.
  const SolveResult solved = solve_quietly(problem, with_covariance ? 2000 : 200);
  out.params = p;
  out.cost = solved.cost;
  out.converged = solved.converged;
  out.usable = solved.usable;
  out.message = solved.message;
  if (with_covariance && out.usable) {
    ceres::Covariance::Options co;
    co.algorithm_type = ceres::DENSE_SVD;
    co.null_space_rank = -1;  // tolerate parameters the data cannot pin down
    ceres::Covariance covariance(co);
    const std::vector<std::pair<const double*, const double*>> blocks = {{p.data(), p.data()}};
    if (covariance.Compute(blocks, &problem)) {
      out.covariance.assign(p.size() * p.size(), 0.0);
      covariance.GetCovarianceBlock(p.data(), p.data(), out.covariance.data());
    }
  }
  return out;
}

double residual_sigma(const FittedCommModel& m, const std::vector<CommSample>& s) {
  double sum = 0;
  for (const CommSample& x : s) {
    const double r = std::log(comm_seconds(m, x.bytes, x.ranks) / x.seconds);
    sum += r * r;
  }
  return std::sqrt(sum / std::max<std::size_t>(1, s.size() - std::min(s.size() - 1, m.params.size())));
}

}  // namespace

std::vector<CommSample> of_algorithm(const std::vector<CommSample>& samples, const std::string& algorithm, CommMode mode) {
  std::vector<CommSample> out;
  for (const CommSample& s : samples)
    if (s.algorithm == algorithm && s.mode == mode) out.push_back(s);
  return out;
}

std::vector<LibraryChoice> infer_library_choices(const std::vector<CommSample>& library, const std::vector<CommSample>& alternatives) {
  // (ranks, bytes) -> the library's seconds, and each alternative's log distance from it there.
  std::map<std::pair<int, double>, double> measured;
  for (const CommSample& x : library) measured[{x.ranks, x.bytes}] = x.seconds;
  std::vector<std::string> names;
  std::map<std::pair<int, double>, std::map<std::string, double>> distance;
  for (const CommSample& x : alternatives) {
    const auto parsed = parse_allreduce(x.algorithm);
    if (!parsed || allreduce_name(*parsed) != x.algorithm) continue;
    const auto it = measured.find({x.ranks, x.bytes});
    if (it == measured.end()) continue;
    distance[it->first][x.algorithm] = std::abs(std::log(x.seconds / it->second));
    if (std::find(names.begin(), names.end(), x.algorithm) == names.end()) names.push_back(x.algorithm);
  }
  // Per rank count, the sequence of picks that matches the library's times best with a price on
  // every switch: two algorithms a few percent apart swap places from run to run, which a
  // library's decision table does not; where it switches between algorithms that differ clearly,
  // the match pays for the switch. An alternative not timed at a point matches it badly.
  constexpr double kSwitch = 0.2, kUntimed = 2.0;
  std::vector<LibraryChoice> choices;
  auto it = distance.begin();
  while (it != distance.end()) {
    const int ranks = it->first.first;
    std::vector<double> sizes;
    std::vector<std::vector<double>> cost;   // [point][algorithm]: the best sequence ending there
    std::vector<std::vector<int>> from;      // the previous point's algorithm on that sequence
    for (; it != distance.end() && it->first.first == ranks; ++it) {
      std::vector<double> here(names.size());
      std::vector<int> back(names.size(), -1);
      for (std::size_t a = 0; a < names.size(); ++a) {
        const auto d = it->second.find(names[a]);
        here[a] = d == it->second.end() ? kUntimed : d->second;
        if (cost.empty()) continue;
        int best = static_cast<int>(a);
        double lowest = cost.back()[a];
        for (std::size_t b = 0; b < names.size(); ++b)
          if (cost.back()[b] + kSwitch < lowest) lowest = cost.back()[b] + kSwitch, best = static_cast<int>(b);
        here[a] += lowest;
        back[a] = best;
      }
      sizes.push_back(it->first.second);
      cost.push_back(std::move(here));
      from.push_back(std::move(back));
    }
    std::vector<int> pick(sizes.size());
    pick.back() = static_cast<int>(std::min_element(cost.back().begin(), cost.back().end()) - cost.back().begin());
    for (std::size_t i = sizes.size() - 1; i > 0; --i) pick[i - 1] = from[i][static_cast<std::size_t>(pick[i])];
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::string& a = names[static_cast<std::size_t>(pick[i])];
      if (i == 0) choices.push_back({ranks, 0.0, a});
      else if (choices.back().algorithm != a) choices.push_back({ranks, std::sqrt(sizes[i - 1] * sizes[i]), a});
    }
  }
  return choices;
}

FitOutcome fit_comm_model(CommModelKind kind, const std::string& algorithm, const std::vector<CommSample>& s,
                          const std::vector<CommSample>& alternatives, bool size_corrections) {
  FitOutcome f;
  f.points = static_cast<int>(s.size());
  f.model.kind = kind;
  f.model.algorithm = algorithm;
  if (!s.empty()) f.model.mode = s.front().mode;  // one mode's samples (of_algorithm)
  if (is_library_choice(algorithm) && !alternatives.empty()) f.model.library_choices = infer_library_choices(s, alternatives);
  const std::size_t parameters = comm_model_parameters(kind).size();
  if (s.size() < parameters + 2) {
    f.message = std::to_string(s.size()) + " points for " + std::to_string(parameters) + " parameters: not fitted";
    return f;
  }
  FittedCommModel& m = f.model;
  m.eager_limit = m.fast_limit = m.cache_bytes = m.memory_bytes = std::numeric_limits<double>::infinity();
  int max_ranks = 0;
  std::set<double> sizes;
  for (const CommSample& x : s) {
    max_ranks = std::max(max_ranks, x.ranks);
    sizes.insert(x.bytes);
  }
  m.oversubscribed_from = max_ranks;
  // The protocol switch where the library told it (MPI_T, in the records' layout) and every sample
  // agrees; otherwise it is searched for like the cache sizes.
  std::set<double> limits;
  for (const CommSample& x : s) limits.insert(x.eager_limit);
  const bool eager_known = limits.size() == 1 && *limits.begin() > 0;
  if (eager_known) m.eager_limit = *limits.begin();
  // Oversubscription starts past the node's CPUs, where the records say how many there are and
  // every sample ran on one node (the model counts ranks, not ranks per node).
  std::set<int> cpus;
  bool one_node = true;
  for (const CommSample& x : s) cpus.insert(x.cpus_per_node), one_node = one_node && x.nodes == 1;
  const bool cpus_known = one_node && cpus.size() == 1 && *cpus.begin() > 0;
  if (cpus_known) m.oversubscribed_from = *cpus.begin();
  Solved best;
  if (kind == CommModelKind::dnnperf) {
    // Coordinate search over the discrete choices; Ceres fits the rest at each.
    // Candidate thresholds: halfway (geometrically) between consecutive measured sizes, where
    // the data cannot tell where in the gap a switch lies; and none.
    // A campaign of many sizes (a file of 10^6 records) keeps the search bounded: at most
    // kMaxThresholds gaps, evenly over the sorted sizes, each tried on at most kMaxSearchSamples
    // samples evenly over the sorted ones; the final solve below takes every sample. Bench's
    // grids (30 sizes, a few hundred samples) are searched whole, as before.
    constexpr std::size_t kMaxThresholds = 32, kMaxSearchSamples = 256;
    const std::vector<double> sorted(sizes.begin(), sizes.end());
    std::vector<double> thresholds;
    const std::size_t gaps = sorted.size() - 1, stride = (gaps + kMaxThresholds - 1) / kMaxThresholds;
    for (std::size_t i = 0; i < gaps; i += std::max<std::size_t>(stride, 1)) thresholds.push_back(std::sqrt(sorted[i] * sorted[i + 1]));
    thresholds.push_back(std::numeric_limits<double>::infinity());
    std::vector<CommSample> thinned;
    const std::vector<CommSample>* search = &s;
    if (s.size() > kMaxSearchSamples) {
      std::vector<CommSample> ordered = s;
      std::sort(ordered.begin(), ordered.end(), [](const CommSample& a, const CommSample& b) { return std::tie(a.ranks, a.bytes) < std::tie(b.ranks, b.bytes); });
      for (std::size_t i = 0; i < kMaxSearchSamples; ++i) thinned.push_back(ordered[i * ordered.size() / kMaxSearchSamples]);
      search = &thinned;
    }
    const auto try_fit = [&] {
      Solved r = solve(m, *search, false);
      if (r.cost < best.cost) best = r;
      return r.cost;
    };
    for (int round = 0; round < 2; ++round) {
      double chosen = m.oversubscribed_from, lowest = std::numeric_limits<double>::infinity();
      for (int from = 1; from <= max_ranks && !cpus_known; ++from) {
        m.oversubscribed_from = from;
        if (const double c = try_fit(); c < lowest) lowest = c, chosen = from;
      }
      m.oversubscribed_from = chosen;
      for (double* knob : {&m.eager_limit, &m.fast_limit, &m.cache_bytes, &m.memory_bytes}) {
        if (knob == &m.eager_limit && eager_known) continue;
        double pick = *knob;
        lowest = std::numeric_limits<double>::infinity();
        for (double t : thresholds) {
          // A fast path at or past the eager limit changes nothing: not worth a solve.
          if (knob == &m.fast_limit && t >= m.eager_limit && std::isfinite(t)) continue;
          *knob = t;
          if (const double c = try_fit(); c < lowest) lowest = c, pick = t;
        }
        *knob = pick;
      }
      // How the copies slow with ranks sharing cores, where two oversubscribed counts can tell
      // the forms apart (with one, both fit alike): the busiest core's extra ranks only where
      // they fit clearly better, since a form picked from noise extrapolates to other rank counts
      // worse than either fits.
      std::set<int> oversubscribed_counts;
      for (const CommSample& x : s)
        if (x.ranks > m.oversubscribed_from) oversubscribed_counts.insert(x.ranks);
      if (oversubscribed_counts.size() >= 2) {
        constexpr double kClearGain = 0.8;
        m.busiest_core_load = false;
        const double extra_ranks = try_fit();
        m.busiest_core_load = true;
        const double busiest_core = try_fit();
        m.busiest_core_load = busiest_core < kClearGain * extra_ranks;
        // Whether only a step's active ranks share the cores: on the VM Rabenseifner on 3 ranks
        // (a fold, then 2 ranks) copies as fast as on 2.
        m.active_ranks_load = false;
        const double all_ranks = try_fit();
        m.active_ranks_load = true;
        const double active_ranks = try_fit();
        m.active_ranks_load = active_ranks < kClearGain * all_ranks;
      }
    }
  }
  best = solve(m, s, true);
  m.params = best.params;
  m.covariance = best.covariance;
  m.residual_sigma = residual_sigma(m, s);
  // Ceres' covariance is (J'J)^-1, which is the parameters' covariance only for residuals of unit
  // variance; log errors have the residual spread's: sigma^2 (J'J)^-1. Unscaled, a fit to 2% noise
  // claimed its parameters 2,500 times as uncertain in variance, and intervals of x2.5.
  for (double& c : m.covariance) c *= m.residual_sigma * m.residual_sigma;
  f.converged = best.converged;
  f.usable = best.usable;
  f.message = best.converged ? "converged" : "did not converge: " + best.message;
  // Each measured rank count alone, where it has enough sizes; a count whose fit fails is left to
  // the joint model.
  std::set<int> counts;
  for (const CommSample& x : s) counts.insert(x.ranks);
  if (f.converged && counts.size() > 1)
    for (const int p : counts) {
      std::vector<CommSample> only, only_alternatives;
      for (const CommSample& x : s)
        if (x.ranks == p) only.push_back(x);
      for (const CommSample& x : alternatives)
        if (x.ranks == p) only_alternatives.push_back(x);
      if (only.size() < parameters + 2) continue;
      FitOutcome local = fit_comm_model(kind, algorithm, only, only_alternatives, size_corrections);
      // One count alone has fewer points and flatter valleys: a fit stopped at the iteration
      // limit is still far closer to that count than the joint model is.
      if (!local.usable) continue;
      local.model.fitted_ranks = p;
      m.at_ranks.push_back(std::move(local.model));
    }
  // What the form missed at the sizes of the counts no model of their own prices (those carry
  // their own). The median over a size's runs is the sample already.
  if (size_corrections && f.usable) {
    std::vector<SizeCorrection> corrections;  // set at the end: comm_seconds applies the model's own
    for (const CommSample& x : s)
      if (&m.for_ranks(x.ranks) == &m) {
        const double form = comm_seconds(m, x.bytes, x.ranks);
        if (form > 0 && x.seconds > 0) corrections.push_back({x.ranks, x.bytes, std::clamp(std::log(x.seconds / form), -4.9, 4.9)});
      }
    std::sort(corrections.begin(), corrections.end(),
              [](const SizeCorrection& a, const SizeCorrection& b) { return std::tie(a.ranks, a.bytes) < std::tie(b.ranks, b.bytes); });
    m.size_corrections = std::move(corrections);
  }
  return f;
}

CrossValidation cross_validate(CommModelKind kind, const std::string& algorithm, const std::vector<CommSample>& s,
                               const std::vector<CommSample>& alternatives, bool size_corrections) {
  CrossValidation cv;
  std::vector<double> sizes;
  std::set<int> ranks;
  for (const CommSample& x : s) {
    sizes.push_back(x.bytes);
    ranks.insert(x.ranks);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  bool by_ranks = false;
  const auto evaluate = [&](const std::function<bool(const CommSample&)>& held_out) {
    std::vector<CommSample> train, test, train_alternatives;
    for (const CommSample& x : s) (held_out(x) ? test : train).push_back(x);
    for (const CommSample& x : alternatives)
      if (!held_out(x)) train_alternatives.push_back(x);
    std::vector<std::pair<double, double>> pairs;  // measured, predicted
    int inside = 0;
    if (test.empty()) return std::pair{pairs, inside};
    const FitOutcome f = fit_comm_model(kind, algorithm, train, train_alternatives, size_corrections);
    if (!f.converged) return std::pair{pairs, inside};
    for (const CommSample& x : test) {
      const CommPrediction p = comm_prediction(f.model, x.bytes, x.ranks);
      pairs.emplace_back(x.seconds, p.seconds);
      inside += x.seconds >= p.low && x.seconds <= p.high;
      cv.points.push_back({x, p, by_ranks});
    }
    return std::pair{pairs, inside};
  };
  std::vector<std::pair<double, double>> all;
  int inside = 0;
  for (std::size_t fold = 0; fold < 4; ++fold) {
    auto [pairs, in] = evaluate([&](const CommSample& x) {
      const auto index = static_cast<std::size_t>(std::lower_bound(sizes.begin(), sizes.end(), x.bytes) - sizes.begin());
      return index % 4 == fold;
    });
    all.insert(all.end(), pairs.begin(), pairs.end());
    inside += in;
  }
  cv.held_out_sizes = error_stats(all, inside);
  if (ranks.size() > 1) {
    by_ranks = true;
    all.clear();
    inside = 0;
    for (int p : ranks) {
      auto [pairs, in] = evaluate([p](const CommSample& x) { return x.ranks == p; });
      all.insert(all.end(), pairs.begin(), pairs.end());
      inside += in;
    }
    cv.held_out_ranks = error_stats(all, inside);
    double sum = 0;
    for (const auto& [measured, predicted] : all) sum += std::log(predicted / measured) * std::log(predicted / measured);
    if (!all.empty()) cv.held_out_ranks_sigma = std::sqrt(sum / static_cast<double>(all.size()));
  }
  return cv;
}

}  // namespace dnnperf::fitting
