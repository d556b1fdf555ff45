#pragma once
// A calibration in one go: the PyTorch backend's measurements (scripts/torch_bench.py and its
// companions, each a subprocess with its share of the time budget, as the calibration plan says),
// then the fit (calibration/profile_fit.h). Every step resumes: rerun with the same work folder
// to continue an interrupted calibration.
#include <ostream>
#include <string>
#include <vector>

namespace dnnperf::calibration {

/// What to calibrate (the options of `dnnperf calibrate`).
struct CalibrateOptions {
  std::string backend = "torch";
  std::string device = "cpu";
  std::string hardware;
  double time_budget = 0;  // seconds for measuring and fitting together; 0: the plan's
  std::string shapes;  // default: sample:600:1:GFLOP, GFLOP the device's cap (max_gflop)
  int threads = 1;
  std::vector<int> procs;  // process counts for torch.distributed all-reduce measurements, e.g. {2}
  std::vector<std::string> networks;  // also their exact GEMMs and convolutions
  int batch = 0;
  int input = 0;
  std::string work;
  std::string output;
  std::string python = "/usr/bin/python3";
  std::string plan;  // the calibration plan file; empty: data/calibration/torch.json
  std::string caches = "cold";  // GEMMs and convolutions timed after evicting the caches, or warm
};

/// Measures and fits as `options` and the plan say, narrating each step to `log`; writes the
/// profile to options.output and the measurements and report into the work folder. Throws
/// InputError for bad options, a bad plan, a missing PyTorch or CUDA, and a measurement that failed
/// (rerun to resume).
void calibrate(std::ostream& log, const CalibrateOptions& options);

}  // namespace dnnperf::calibration
