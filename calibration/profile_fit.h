#pragma once
// Calibration: measurement files in, a calibrated profile out. fit_profile_files() is what
// `dnnperf fit` runs: it loads the records (records/measurement.h), fits each model family with
// fitting/ (compute families, CPU library models, a step's warmth, co-running ranks, collectives),
// prices whole --steps runs with the predictor to fit what only steps show, writes the profile and
// the --report folder, and narrates every fit and its held-out error to a stream the caller gives.
#include <ostream>
#include <string>
#include <vector>

namespace dnnperf::calibration {

/// What to fit and where to write it (the options of `dnnperf fit`).
struct FitOptions {
  std::vector<std::string> files;
  std::string hardware = "cpu";  // the base profile: name or path
  std::string output;
  std::string collective = "allreduce";
  std::string models = "hockney,loggp,dnnperf";
  std::string plots;
  bool measured_kernels = false;
  std::string family = "both";  // compute family: FAMILY or CLASS=FAMILY,... (family_for)
  bool per_image_gemms = false;  // apply the measuring framework's per-image GEMM rule (conv_as_gemm.h)
  std::string dtype;  // element type of the GEMMs and convolutions fitted; empty: f32 where measured
  std::string steps;          // ground-truth runs of networks not validated: the step's own spread
  std::string step_networks;  // where their network files are, if not where the runs recorded them
  std::string step_warmth;    // convolutions timed inside steps and alone (scripts/torch_step_warmth.py)
  std::string time_weight = "auto";  // the structural fits' time weighting: an exponent, or auto (time_weight_exponents)
  double time_exponent = 0;          // the exponent of this fit (weigh_by_time)
};

/// Fits the profile options.files describe onto options.hardware, writes it to options.output
/// (when set) and the report to options.plots (when set), and narrates to `log`. With
/// --time-weight auto and --steps runs, fits twice and keeps the fit whose predictions of the runs
/// err least; only the kept fit's narrative reaches `log`. Throws InputError for bad options,
/// unreadable files or files with nothing to fit.
void fit_profile_files(std::ostream& log, const FitOptions& options);

}  // namespace dnnperf::calibration
