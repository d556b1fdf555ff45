#pragma once
// CalibrationPlan: what `dnnperf calibrate` measures and how it splits its time budget, read from
// a plan file (data/calibration/torch.json is the default; docs/calibration.md). The plan is data
// so that a machine unlike the one it was tuned on (a GPU node, a many-core CPU) gets its own
// budgets without a rebuild; docs/models/calibration-plan.md says why each default is what it is.
#include <cstdint>
#include <string>
#include <vector>

namespace dnnperf::calibration {

/// A corner of the shape space the generic sample rarely reaches, timed on its own (CPU only).
struct CornerSet {
  std::string set;    // a shape set of scripts/torch_bench.py --shapes ("wide:24:1")
  std::string what;   // what it measures, for the log
  std::string file;   // the records' file: torch_<device>_<file>.jsonl
  bool capped = true;         // kernels above the sample's GFLOP cap skipped, as in the sample
  bool anchored = true;       // begun with the anchor kernels that put files on one speed
  bool gflop_suffix = false;  // the set takes the cap as its last field ("late:180:1:2")
  double reserve_s = 0;       // seconds kept for it out of the kernels' time
};

struct CalibrationPlan {
  double time_budget_s = 570;  // measuring and fitting together, unless --time-budget says otherwise
  // Seconds kept out of the kernels' share for what follows them.
  double fit_reserve_s = 80;                // the fit and its report
  double co_running_reserve_s = 40;         // ranks sharing the node (CPU, --procs > 1)
  double composition_reserve_s = 135;       // the composition networks' steps and inferences
  double composition_inferences_s = 25;     // of that, the inferences
  double large_batch_inferences_s = 20;     // of that too, the inferences' convolutions at a larger batch (CPU)
  double hot_pairs_reserve_s = 45;          // convolutions cold, then back to back (CPU)
  // Memory-bound passes: buffer sizes (bytes) and their share of the budget (at least min_s).
  std::vector<std::int64_t> memory_sizes, gpu_memory_sizes, cpu_parameter_sizes;
  double memory_share = 0.1, memory_min_s = 20;
  double collectives_share = 0.1, collectives_min_s = 20;  // per process count (--procs)
  // GEMMs and convolutions: the largest worth timing (GFLOP), the sets and their shares.
  int max_gflop_cpu = 2, max_gflop_cuda = 200;
  std::string sample = "sample:600:1", cnn = "cnn:200:4", hot_pairs = "cnn:120:9";
  double cnn_share = 0.2;          // of the kernels' time, to convolutions drawn as CNN layers
  int gemms_first = 70;            // GEMMs of the sample timed first (CPU), for the cache-blocked model
  double gemms_first_share = 0.6;  // at most this share of the sample's time
  std::vector<CornerSet> corners;
  // The composition networks' batches: as validated on each device, and the larger inference batch.
  int composition_cpu_batch = 4, composition_cuda_batch = 32, large_inference_batch = 16;
};

/// Reads and checks a plan file: unknown fields, missing fields, shares outside [0, 1] and
/// budgets that leave nothing to measure are InputErrors naming the file and the field.
CalibrationPlan read_calibration_plan(const std::string& path);

/// The shipped plan (DNNPERF_DATA_DIR or the source tree's data/calibration/torch.json).
std::string default_calibration_plan_path();

}  // namespace dnnperf::calibration
