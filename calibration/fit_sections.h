#pragma once
// Internal to calibration/: the sections of a profile fit, one per family of measurements, shared
// between profile_fit.cc (the whole fit), compute_section.cc and step_section.cc. Each writes its
// fields into the profile JSON being built and narrates to `log`.
#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibration/profile_fit.h"
#include "core/lowering/kernel.h"
#include "fitting/compute/compute_fit.h"
#include "profile/hardware_profile.h"

namespace dnnperf::calibration {

// The share of the roofline's time-weighted held-out error a regression must stay under to
// replace it (fit --family both).
constexpr double kRegressionMargin = 0.9;

// How far (in standard errors) the steps' mean error must lie from none before fit --steps calls it
// a shared error of the calibration rather than chance: with 7 runs, 3 is a two-sided p of ~2%.
constexpr double kBiasStandardErrors = 3;

/// The exponents of the structural fits' time weighting to try (FitOptions::time_weight).
std::vector<double> time_weight_exponents(const FitOptions& o);
/// The compute family --family asks for kernel class `cls`; throws InputError for a bad option.
std::string family_for(const std::string& option, const std::string& cls);
/// --models as a list of kinds; throws InputError naming an unknown one.
std::vector<CommModelKind> parse_models(const std::string& text);
/// A percentage with one decimal.
std::string pct(double v);
/// A kernel's shape as one CSV field (the report's points).
std::string shape_label(const Kernel& kernel);

/// Per GEMM and convolution class, four measured kernels spread over the times of those that take
/// 0.2-20 ms (long enough to time well, short enough to re-time in seconds): `validate` times them
/// again to tell the machine's drift from the model's error, `calibrate --procs` beside co-running
/// processes.
std::vector<std::pair<Kernel, double>> reference_kernels(const std::vector<fitting::ComputeSample>& samples);
/// The PyTorch backend's plain memory passes over buffers of at least kReferencePassBytes in
/// `files`, each at its first file's time: `validate` times them again beside the reference kernels.
std::vector<ReferencePass> reference_passes(const std::vector<std::string>& files);
/// What `files` were measured on, as their context lines name it: `cpu` and `allocator`, each the
/// one most records ran with, with a warning to `log` listing each where they name several.
nlohmann::json measured_on(std::ostream& log, const std::vector<std::string>& files);

/// What fit_compute fitted.
struct ComputeFitted {
  bool models = false;      // GEMM, convolution and memory models
  bool co_running = false;  // device.co_run_slowdown, device.sync_wait
  /// Every GEMM and convolution sample with its time: what re-timed reference kernels kept with
  /// ground-truth runs are compared with (fit_step_spread), whichever of them the profile keeps.
  std::vector<std::pair<Kernel, double>> timed;
  /// The co-running records' DDP steps: DDP's own overhead is fitted on them once the all-reduce is.
  std::vector<fitting::ComputeData::DdpStep> ddp_steps;
};
/// Fits both compute families to the files' GEMM, convolution and memory records, the CPU library
/// models, a step's warmth and the co-running factors, into `profile`.
ComputeFitted fit_compute(std::ostream& log, const FitOptions& o, const HardwareProfile& base, nlohmann::json& profile, const std::string& sources);
/// DDP's own work per step (device.ddp_step_overhead_s), once the all-reduce is fitted.
void fit_ddp_overhead(std::ostream& log, const std::vector<fitting::ComputeData::DdpStep>& steps, nlohmann::json& profile, const std::string& sources);
/// With hot pairs: what a step's warmth saves a convolution against its cold price
/// (device.step_warmth; not enabled without them).
StepWarmth fit_step_warmth(std::ostream& log, const fitting::ComputeData& data, double cache_bytes, const nlohmann::json& measured_on);
/// With --steps (or --step-warmth): the realized warmth shares and the steps' spread beyond their
/// kernels (device.step_sigma). Returns the runs' RMS log error (nullopt without --steps runs).
std::optional<double> fit_step_spread(std::ostream& log, const FitOptions& o, nlohmann::json& profile, const std::vector<std::pair<Kernel, double>>& timed);
/// The map of which algorithm a library's choice runs where, one line per rank count.
std::string describe_library_choices(const std::vector<LibraryChoice>& choices);

}  // namespace dnnperf::calibration
