#pragma once
// Validation: a profile's predictions against real PyTorch runs of the same cases (networks,
// batches, process counts, training or inference), each run twice by scripts/torch_train.py or
// read back from runs kept earlier, with the error, the runs' own noise floor, how many runs fall
// inside the 95% intervals, and the machine's drift against the calibration (docs/validation.md).
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dnnperf::validation {

/// What to validate (the options of `dnnperf validate`).
struct ValidateOptions {
  std::string hardware = "cpu";
  std::vector<std::string> networks;
  std::vector<std::int64_t> batches;
  std::vector<int> procs{1};
  std::vector<std::int64_t> input{64, 64};
  std::int64_t sequence = 64;
  int iterations = 10;
  int timeout = 600;
  bool inference = false;
  /// Training runs of this many micro-batches per optimizer step (gradient accumulation; DDP's
  /// no_sync on all but the last), predicted and run alike.
  int accumulate = 1;
  /// The precision predicted and run (dnnperf's --dtype: fp32, tf32, fp16 or bf16; the runs'
  /// mixed precision is torch.autocast's).
  std::string dtype = "fp32";
  bool json = false;
  std::string python = "/usr/bin/python3";
  /// Ground truth measured elsewhere (scripts/gpu_validate.sh): DIR/<case>_run0.json and _run1.json.
  std::string measured;
  /// Where to keep the ground truth this run measures, under the same names, so that other
  /// profiles can be judged against the very same runs (`--measured DIR`).
  std::string save_measured;
  /// With save_measured: a case whose two runs DIR already keeps (an interrupted validation's) is
  /// read from there instead of being run again.
  bool resume = false;
  /// Each run also times the profile's references beside its iterations (run_reference_kernels).
  bool run_reference = true;
  /// A predicted-vs-measured plot (PNG) to write, beside its data (PATH.json); empty: none.
  std::string plot;
  /// Where that list is written for torch_train.py (set by run_validate; empty: none).
  std::string reference_list;
};

/// Predicts and runs (or reads back) every case of `options`, prints the table (or with
/// options.json one JSON object) to `out` and notes to `notes`; with options.plot also writes the
/// predicted-vs-measured plot there. Throws InputError for bad options, and after printing
/// everything when any case failed.
void validate(std::ostream& out, std::ostream& notes, ValidateOptions options);

}  // namespace dnnperf::validation
