#pragma once
// Ground truth for `validate` and `fit --steps`: the runs of scripts/torch_train.py as files, the
// machine's drift against a profile's calibration, and the error a whole step carries beside its
// kernels'.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph/graph.h"
#include "profile/hardware_profile.h"
#include "networks/import/network_loader.h"

namespace dnnperf {

/// The file stem a case's runs are kept under (DIR/<stem>_run0.json, _run1.json): a zoo name as
/// it is, a network file by its file name; training with gradient accumulation adds _a<K>, a
/// precision other than fp32 its name (_bf16).
std::string case_stem(const std::string& network, std::int64_t batch, int procs, bool inference, int accumulate = 1,
                      const std::string& dtype = "fp32");


/// A network given as a file (.json, .onnx) rather than a zoo name.
bool is_network_file(const std::string& network);

/// How a case's network is loaded for its prediction: at `batch`, with the loss where it trains,
/// and for a zoo network at the size torch_train.py records as `input` ([tokens] for sequence
/// models, else [H, W] or [side]); a file keeps its own shapes.
LoadOptions case_load_options(const std::string& network, std::int64_t batch, bool inference, const std::vector<std::int64_t>& input);

/// The phases a training step's time is split into, as scripts/torch_train.py times them (forward
/// with the loss, backward with the gradient all-reduces it waits for, optimizer step).
inline constexpr const char* kPhases[] = {"forward", "backward", "update"};

/// A reference kernel or pass of a profile timed again: its record "op", "params" and "dtype" and
/// its median seconds now.
struct Retimed {
  std::string op;
  nlohmann::json params;
  std::string dtype = "f32";
  double seconds = 0;
};

/// One torch_train.py run's times.
struct StepTimes {
  bool ok = false;
  double median = 0, min = 0;
  /// Median of each of kPhases, where the run timed them (training runs since 2026-11-30).
  std::optional<std::array<double, 3>> phases;
  /// The CPU it ran on (torch_train.py records it since 2026-12-02), null where not recorded.
  nlohmann::json cpu;
  /// The allocator policy it ran with (scripts/dnnperf_py/allocator.py), empty where not recorded.
  std::string allocator;
  /// The reference kernels it timed right before and after its iterations (torch_train.py
  /// --reference), both times pooled; empty where it timed none.
  std::vector<Retimed> reference;
  std::string error;
};

/// A torch_train.py result's times (throws nlohmann::json exceptions for a malformed one).
StepTimes read_step_times(const nlohmann::json& result, const std::string& path);

/// How fast the machine ran against a profile's calibration: the ratio, then over calibrated, of
/// the profile's reference kernels (median and 10-90% range), or a note saying why there is none.
struct Drift {
  std::size_t count = 0;
  double median = 0, low = 0, high = 0;
  std::string note;
  /// The same for the profile's reference passes (memory), where it keeps them and the records
  /// hold them; and the pass that slowed most, as "memory_copy over 64 MiB".
  std::size_t pass_count = 0;
  double pass_median = 0, pass_low = 0, pass_high = 0;
  std::string slowest_pass;
  double slowest_pass_ratio = 0;
};

/// The drift that re-timed reference kernels and passes show against `hw`; `source` names where
/// they come from in the note of a drift that has none.
Drift drift_of(const HardwareProfile& hw, const std::vector<Retimed>& retimed, const std::string& source);

/// The same from measurement records (JSON Lines, as scripts/torch_bench.py writes them).
Drift drift_from_records(const HardwareProfile& hw, const std::string& records);

/// The profile's references a ground-truth run times beside its iterations (torch_train.py
/// --reference), as {"op", "params"}: per kernel class the reference kernels but the shortest
/// and the longest (long enough to time well, short enough to time fast), and the reference
/// passes at the smallest size but those slower than four copies of it. About a second on the
/// dev VM; empty for a profile without reference kernels.
nlohmann::json run_reference_kernels(const HardwareProfile& hw);

/// The error of whole steps beside their kernels', from real runs of networks (not those a
/// profile is validated on): each case's log error r = ln(measured / predicted) against the
/// spread s its kernels' intervals already give it; sigma^2 = mean(r^2 - s^2), at least 0.
struct StepComposition {
  struct Case {
    std::string network;
    std::int64_t batch = 0;
    bool inference = false;
    double predicted_s = 0, measured_s = 0;
    double kernel_sigma = 0;  // the kernels' own spread of this step (log terms)
    double log_error = 0;     // ln(measured / predicted), measured taken back to the calibration's speed
  };
  std::vector<Case> cases;
  std::vector<std::string> skipped;  // runs not used, with why
  Drift drift;                       // measured times are divided by drift.median where known
  double sigma = 0, bias = 0;        // bias: mean of log_error
  double bias_se = 0;                // its standard error (the log errors' sample spread / sqrt(n))
  double kernel_sigma = 0;           // the cases' kernel spreads, averaged
  bool estimated = false;            // false with fewer than kMinSteps cases
};

/// Cases needed before a step spread is estimated.
inline constexpr std::size_t kMinSteps = 3;

/// The networks of a --steps folder's runs, loaded once for several pricings of them (keyed by
/// the run's file).
using StepNetworks = std::map<std::string, Graph>;

/// Reads every single-process case in `dir` (torch_train.py results as `validate --save-measured`
/// keeps them, with its reference_kernels.jsonl where kept) and prices it with `fitted`. Network
/// files that are not where a run recorded them are looked for in `networks_dir` by file name.
/// With `loaded`, each run's network is loaded into it the first time and read from it after (a
/// fit prices the same runs at a dozen warmth shares).
StepComposition step_composition(const HardwareProfile& fitted, const std::string& dir, const std::string& networks_dir,
                                 StepNetworks* loaded = nullptr);

}  // namespace dnnperf
