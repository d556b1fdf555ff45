#pragma once
// Fits the share of the step warmth's savings that real steps realize (StepWarmth::realized_share,
// models/compute/step_warmth.h) on convolutions timed inside real steps and alone from evicted
// caches (scripts/torch_step_warmth.py), where whole steps would carry every other error of their
// networks too.
//
// Each observation is one convolution shape of one network's step: the share of its cold time
// the profile's warmth saves it with everything realized (f, priced for the step it ran in), its
// operand bytes beyond the cold timing's reach per second of its cold time (h, StepCacheState::far_bytes),
// and the share the step measured (g = 1 - in step / cold). The share s, the excess e and the
// price of a far byte m minimise
//
//   sum over observations  w * (g - s * f + e + m * h)^2    (w: the convolution's cold time per step)
//
// with s in [0, 1], e in [0, kMostExcess] and m in [0, kMostFarSPerByte]: e is what every
// convolution of a step pays beyond its cold calibration (StepWarmth::in_step_excess), which a
// share alone cannot say — on the Intel VM (2026-12-03) the networks whose warmth saved least ran
// slower in their steps than cold — and m what it pays per byte it fetches from memory where the
// cold timing found it in the last-level cache (StepWarmth::far_s_per_byte). A network's
// convolutions share that network's errors (its residency replay, its library's path), so the
// standard errors are clustered by network and a fit needs kMinShareNetworks networks; the excess
// and the far bytes each only where they lower the clustered (leave-one-network-out) error of the
// fit without them.
#include <cstddef>
#include <string>
#include <vector>

namespace dnnperf::fitting {

struct InStepObservation {
  std::string network;
  double full_saving = 0;      // f: saved with the whole of the warmth realized, over the priced cold time
  double measured_saving = 0;  // g: 1 - in-step time / cold time, both timed
  double weight = 0;           // cold seconds per step (calls per step times cold time per call)
  double far_bytes_per_cold_s = 0;  // h: StepCacheState::far_bytes over the priced cold time
};

/// Networks needed before a share is fitted.
inline constexpr std::size_t kMinShareNetworks = 3;
/// The largest excess fitted: a step's convolutions at 1.5x their cold time is no longer warmth.
inline constexpr double kMostExcess = 0.5;
/// The most a far byte is priced: 1 GB/s, a fifth of the slowest single-core memory stream
/// measured (the Intel VM's 2e-10 s per byte beyond its L3).
inline constexpr double kMostFarSPerByte = 1e-9;

struct RealizedShareFit {
  bool fitted = false;
  double share = 1;
  double standard_error = 0;  // clustered by network
  double excess = 0;          // StepWarmth::in_step_excess; 0 where left out
  double far_s_per_byte = 0;  // StepWarmth::far_s_per_byte; 0 where left out
  /// Time-weighted RMS of the held-out networks' g - s * f + e + m * h, each network predicted by
  /// the fit to the others: with the share alone, with the excess, with the far bytes, with both.
  /// The fit keeps the form with the least; a term is added only where it is strictly less.
  double held_out_rms_share_only = 0, held_out_rms_with_excess = 0, held_out_rms_with_far = 0, held_out_rms_with_both = 0;
  std::size_t observations = 0, networks = 0;
  /// Time-weighted RMS of g - s * f + e + m * h, in shares of the cold time: as fitted, and with
  /// neither excess nor far bytes at share 1 and at 0.
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
