#pragma once
// Fits the share of the step warmth's savings that real steps realize (StepWarmth::realized_share,
// models/compute/step_warmth.h) on convolutions timed inside real steps and alone from evicted
// caches (scripts/torch_step_warmth.py), where whole steps would carry every other error of their
// networks too.
//
// Each observation is one convolution shape of one network's step: the share of its cold time
// the profile's warmth saves it with everything realized (f, priced for the step it ran in), and
// the share the step measured (g = 1 - in step / cold). The share s minimises
//
//   sum over observations  w * (g - s * f)^2        (w: the convolution's cold time per step)
//
// in [0, 1]. A network's convolutions share that network's errors (its residency replay, its
// library's path), so the standard error is clustered by network and a share needs
// kMinShareNetworks networks.
#include <cstddef>
#include <string>
#include <vector>

namespace dnnperf::fitting {

struct InStepObservation {
  std::string network;
  double full_saving = 0;      // f: saved with the whole of the warmth realized, over the priced cold time
  double measured_saving = 0;  // g: 1 - in-step time / cold time, both timed
  double weight = 0;           // cold seconds per step (calls per step times cold time per call)
};

/// Networks needed before a share is fitted.
inline constexpr std::size_t kMinShareNetworks = 3;

struct RealizedShareFit {
  bool fitted = false;
  double share = 1;
  double standard_error = 0;  // clustered by network
  std::size_t observations = 0, networks = 0;
  /// Time-weighted RMS of g - s * f, in shares of the cold time: at the fitted share, at 1 and at 0.
  double rms_fitted = 0, rms_full = 0, rms_none = 0;
  struct Network {
    std::string name;
    std::size_t observations = 0;
    double full_saving = 0, measured_saving = 0;  // time-weighted means
    double share = 0;                             // the network's own least-squares share (unclamped)
  };
  std::vector<Network> per_network;  // by name
  std::string message;               // why nothing was fitted, if so
};

RealizedShareFit fit_realized_share(const std::vector<InStepObservation>& observations);

}  // namespace dnnperf::fitting
