#include "fitting/compute/realized_share_fit.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace dnnperf::fitting {

RealizedShareFit fit_realized_share(const std::vector<InStepObservation>& observations) {
  RealizedShareFit fit;
  struct Sums {
    std::size_t n = 0;
    double w = 0, wf = 0, wg = 0, wff = 0, wfg = 0;
  };
  // Observations without weight or price say nothing: left out once, here.
  std::vector<InStepObservation> kept;
  for (const InStepObservation& o : observations)
    if (o.weight > 0 && std::isfinite(o.full_saving) && std::isfinite(o.measured_saving)) kept.push_back(o);
  std::map<std::string, Sums> by_network;
  Sums all;
  for (const InStepObservation& o : kept) {
    for (Sums* s : {&by_network[o.network], &all}) {
      ++s->n;
      s->w += o.weight;
      s->wf += o.weight * o.full_saving;
      s->wg += o.weight * o.measured_saving;
      s->wff += o.weight * o.full_saving * o.full_saving;
      s->wfg += o.weight * o.full_saving * o.measured_saving;
    }
  }
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
  fit.share = std::clamp(all.wfg / all.wff, 0.0, 1.0);
  // Clustered (sandwich) variance: each network's score, summed over its convolutions.
  std::map<std::string, double> score;
  for (const InStepObservation& o : kept) score[o.network] += o.weight * o.full_saving * (o.measured_saving - fit.share * o.full_saving);
  double spread = 0;
  for (const auto& [name, s] : score) spread += s * s;
  const double clusters = static_cast<double>(score.size());
  fit.standard_error = std::sqrt(clusters / (clusters - 1) * spread) / all.wff;
  const auto rms = [&](double s) {
    double sum = 0;
    for (const InStepObservation& o : kept) sum += o.weight * (o.measured_saving - s * o.full_saving) * (o.measured_saving - s * o.full_saving);
    return std::sqrt(sum / all.w);
  };
  fit.rms_fitted = rms(fit.share);
  fit.rms_full = rms(1.0);
  fit.rms_none = rms(0.0);
  fit.fitted = true;
  return fit;
}

}  // namespace dnnperf::fitting
