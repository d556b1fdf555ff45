#include "fitting/compute/realized_share_fit.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace dnnperf::fitting {

namespace {

struct Sums {
  std::size_t n = 0;
  double w = 0, wf = 0, wg = 0, wff = 0, wfg = 0;
  void add(const InStepObservation& o) {
    ++n;
    w += o.weight, wf += o.weight * o.full_saving, wg += o.weight * o.measured_saving;
    wff += o.weight * o.full_saving * o.full_saving, wfg += o.weight * o.full_saving * o.measured_saving;
  }
};

struct ShareAndExcess {
  double share = 1, excess = 0;
};

/// The weighted least-squares share (and, with `excess`, the excess) within their bounds: the
/// problem is a convex quadratic in two variables, so alternating the two within bounds converges.
ShareAndExcess solve(const Sums& s, bool excess) {
  ShareAndExcess x;
  if (!(s.wff > 0)) return x;
  x.share = std::clamp(s.wfg / s.wff, 0.0, 1.0);
  if (!excess || !(s.w > 0)) return x;
  for (int i = 0; i < 100; ++i) {
    // Over e for the share: e = (s Wf - Wg) / W; over s for the excess: s = (Wfg + e Wf) / Wff.
    x.excess = std::clamp((x.share * s.wf - s.wg) / s.w, 0.0, kMostExcess);
    x.share = std::clamp((s.wfg + x.excess * s.wf) / s.wff, 0.0, 1.0);
  }
  return x;
}

double residual(const InStepObservation& o, const ShareAndExcess& x) { return o.measured_saving - x.share * o.full_saving + x.excess; }

}  // namespace

RealizedShareFit fit_realized_share(const std::vector<InStepObservation>& observations) {
  RealizedShareFit fit;
  // Observations without weight or price say nothing: left out once, here.
  std::vector<InStepObservation> kept;
  for (const InStepObservation& o : observations)
    if (o.weight > 0 && std::isfinite(o.full_saving) && std::isfinite(o.measured_saving)) kept.push_back(o);
  std::map<std::string, Sums> by_network;
  Sums all;
  for (const InStepObservation& o : kept) by_network[o.network].add(o), all.add(o);
  fit.observations = all.n;
  fit.networks = by_network.size();
  for (const auto& [name, s] : by_network)
    fit.per_network.push_back({name, s.n, s.wf / s.w, s.wg / s.w, s.wff > 0 ? s.wfg / s.wff : 0.0});
  if (fit.networks < kMinShareNetworks) {
    fit.message = std::to_string(fit.networks) + " networks timed (" + std::to_string(kMinShareNetworks) + " needed)";
    return fit;
  }
  if (!(all.wff > 0)) {
    fit.message = "the profile's warmth saves none of these convolutions anything";
    return fit;
  }
  // Each network predicted by the others' fit, with the excess and without: the excess is kept
  // only where it predicts networks it did not see better.
  double held[2] = {0, 0};
  for (const auto& [name, s] : by_network) {
    Sums others;
    for (const InStepObservation& o : kept)
      if (o.network != name) others.add(o);
    for (const bool excess : {false, true}) {
      const ShareAndExcess x = solve(others, excess);
      for (const InStepObservation& o : kept)
        if (o.network == name) held[excess] += o.weight * residual(o, x) * residual(o, x);
    }
  }
  fit.held_out_rms_share_only = std::sqrt(held[0] / all.w);
  fit.held_out_rms_with_excess = std::sqrt(held[1] / all.w);
  const ShareAndExcess x = solve(all, fit.held_out_rms_with_excess < fit.held_out_rms_share_only);
  fit.share = x.share;
  fit.excess = x.excess;
  // Clustered (sandwich) variance of the share: each network's score, summed over its convolutions.
  std::map<std::string, double> score;
  for (const InStepObservation& o : kept) score[o.network] += o.weight * o.full_saving * residual(o, x);
  double spread = 0;
  for (const auto& [name, sc] : score) spread += sc * sc;
  const double clusters = static_cast<double>(score.size());
  fit.standard_error = std::sqrt(clusters / (clusters - 1) * spread) / all.wff;
  const auto rms = [&](const ShareAndExcess& at) {
    double sum = 0;
    for (const InStepObservation& o : kept) sum += o.weight * residual(o, at) * residual(o, at);
    return std::sqrt(sum / all.w);
  };
  fit.rms_fitted = rms(x);
  fit.rms_full = rms({1.0, 0.0});
  fit.rms_none = rms({0.0, 0.0});
  fit.fitted = true;
  return fit;
}

}  // namespace dnnperf::fitting
