#include "fitting/compute/realized_share_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace dnnperf::fitting {

namespace {

struct Sums {
  std::size_t n = 0;
  double w = 0, wf = 0, wg = 0, wh = 0, wff = 0, wfg = 0, wfh = 0, whh = 0, wgh = 0;
  void add(const InStepObservation& o) {
    const double f = o.full_saving, g = o.measured_saving, h = o.far_bytes_per_cold_s;
    ++n;
    w += o.weight, wf += o.weight * f, wg += o.weight * g, wh += o.weight * h;
    wff += o.weight * f * f, wfg += o.weight * f * g, wfh += o.weight * f * h, whh += o.weight * h * h, wgh += o.weight * g * h;
  }
};

struct Terms {
  double share = 1, excess = 0, far = 0;
};

/// Which terms beside the share a fit has.
struct Form {
  bool excess = false, far = false;
};

/// The weighted least-squares share and the terms of `form` within their bounds: a convex
/// quadratic in at most three variables over a box, which cyclic minimisation along each
/// variable, clamped, solves.
Terms solve(const Sums& s, Form form) {
  Terms x;
  if (!(s.wff > 0)) return x;
  x.share = std::clamp(s.wfg / s.wff, 0.0, 1.0);
  form.excess = form.excess && s.w > 0;
  form.far = form.far && s.whh > 0;
  if (!form.excess && !form.far) return x;
  for (int i = 0; i < 300; ++i) {
    // The residual g - s f + e + m h is zero-mean against each variable's own column.
    if (form.excess) x.excess = std::clamp((x.share * s.wf - s.wg - x.far * s.wh) / s.w, 0.0, kMostExcess);
    if (form.far) x.far = std::clamp((x.share * s.wfh - s.wgh - x.excess * s.wh) / s.whh, 0.0, kMostFarSPerByte);
    x.share = std::clamp((s.wfg + x.excess * s.wf + x.far * s.wfh) / s.wff, 0.0, 1.0);
  }
  return x;
}

double residual(const InStepObservation& o, const Terms& x) {
  return o.measured_saving - x.share * o.full_saving + x.excess + x.far * o.far_bytes_per_cold_s;
}

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
  // Each network predicted by the others' fit, in each form: a term is kept only where it
  // predicts networks it did not see better.
  constexpr std::array<Form, 4> forms{Form{false, false}, Form{true, false}, Form{false, true}, Form{true, true}};
  std::array<double, 4> held{};
  for (const auto& [name, s] : by_network) {
    Sums others;
    for (const InStepObservation& o : kept)
      if (o.network != name) others.add(o);
    for (std::size_t f = 0; f < forms.size(); ++f) {
      const Terms x = solve(others, forms[f]);
      for (const InStepObservation& o : kept)
        if (o.network == name) held[f] += o.weight * residual(o, x) * residual(o, x);
    }
  }
  for (double& h : held) h = std::sqrt(h / all.w);
  fit.held_out_rms_share_only = held[0], fit.held_out_rms_with_excess = held[1], fit.held_out_rms_with_far = held[2], fit.held_out_rms_with_both = held[3];
  std::size_t best = 0;
  for (std::size_t f = 1; f < forms.size(); ++f)
    if (held[f] < held[best]) best = f;
  const Terms x = solve(all, forms[best]);
  fit.share = x.share;
  fit.excess = x.excess;
  fit.far_s_per_byte = x.far;
  // Clustered (sandwich) variance of the share: each network's score, summed over its convolutions.
  std::map<std::string, double> score;
  for (const InStepObservation& o : kept) score[o.network] += o.weight * o.full_saving * residual(o, x);
  double spread = 0;
  for (const auto& [name, sc] : score) spread += sc * sc;
  const double clusters = static_cast<double>(score.size());
  fit.standard_error = std::sqrt(clusters / (clusters - 1) * spread) / all.wff;
  const auto rms = [&](const Terms& at) {
    double sum = 0;
    for (const InStepObservation& o : kept) sum += o.weight * residual(o, at) * residual(o, at);
    return std::sqrt(sum / all.w);
  };
  fit.rms_fitted = rms(x);
  fit.rms_full = rms({1.0, 0.0, 0.0});
  fit.rms_none = rms({0.0, 0.0, 0.0});
  fit.fitted = true;
  return fit;
}

}  // namespace dnnperf::fitting
