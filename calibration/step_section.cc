// What only whole steps show: a step's warmth, the share of it steps realize, their spread.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <numeric>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "calibration/fit_sections.h"
#include "core/common/error.h"
#include "core/common/format.h"
#include "core/common/json_reader.h"
#include "fitting/comm/comm_fit.h"
#include "fitting/compute/compute_fit.h"
#include "fitting/compute/pass_far_fit.h"
#include "fitting/compute/warm_savings_fit.h"
#include "models/comm/allreduce.h"
#include "models/comm/fitted_comm_model.h"
#include "models/compute/analytic_model.h"
#include "models/compute/conv_as_gemm.h"
#include "predictor/prediction/predict.h"
#include "profile/cpu_identity.h"
#include "profile/fitted_sections.h"
#include "profile/hardware_profile.h"
#include "records/kernel_record.h"
#include "records/measurement.h"
#include "validation/ground_truth.h"
#include "validation/in_step_warmth.h"

namespace dnnperf::calibration {
namespace {

/// A number the profile JSON being built may hold; absent where it does not.
std::optional<double> optional_number(const nlohmann::json& object, const char* key) {
  if (const auto it = object.find(key); it != object.end() && it->is_number()) return it->get<double>();
  return std::nullopt;
}

}  // namespace

/// With a distance curve (scripts/torch_bench.py --pass-distances): what a memory-bound pass pays
/// per byte beyond its hot calibration's reach, and where that reach ends (fitting/compute/pass_far_fit.h),
/// into the step warmth `warmth`.
void fit_pass_far(std::ostream& log, const fitting::ComputeData& data, StepWarmth& warmth) {
  if (data.pass_distances.empty()) return;
  const fitting::PassFarFit f = fitting::fit_pass_far_prices(data.pass_distances, kCpuColdEvictionBytes);
  log << "  memory passes at a distance (" << f.read_records << " read, " << f.written_records << " written; far - hot = price * bytes beyond the reach): ";
  if (!f.fitted) {
    log << "not fitted: " << f.message << "\n";
    return;
  }
  log << "a far byte " << fixed(f.read_s_per_byte * 1e12, 1) << " ps more read, " << fixed(f.written_s_per_byte * 1e12, 1) << " ps more written, wholly far from "
            << fixed(f.reach_bytes / 1048576, 0) << " MiB on; far times held out " << fixed(f.held_out.mape, 1) << "% off (" << fixed(f.as_hot.mape, 1) << "% taken as hot)\n";
  warmth.cold_eviction_bytes = kCpuColdEvictionBytes;
  warmth.far_reach_bytes = f.reach_bytes;
  warmth.pass_far_read_s_per_byte = f.read_s_per_byte;
  warmth.pass_far_written_s_per_byte = f.written_s_per_byte;
}

/// With hot pairs (scripts/torch_bench.py --hot-pairs): what a step's warmth saves a convolution
/// against its cold price, per direction, kept as device.step_warmth (models/compute/step_warmth.h).
StepWarmth fit_step_warmth(std::ostream& log, const fitting::ComputeData& data, double cache_bytes, const nlohmann::json& measured_on) {
  if (data.hot_pairs.empty()) return {};
  const fitting::WarmSavingsFit w = fitting::fit_warm_savings(data.hot_pairs, cache_bytes);
  log << "\nstep warmth (" << data.hot_pairs.size() << " convolutions timed cold and back to back; cold - hot = call * cold / (cold + tau) + bytes of each operand):\n";
  if (!w.warmth.enabled()) {
    log << "  not fitted: " << w.message << "\n";
    return {};
  }
  StepWarmth warmth;
  warmth.cache_bytes = cache_bytes;
  warmth.most_saved = w.warmth.most_saved;
  log << "  direction          pairs   call us  native us    tau us   input GB/s  filter GB/s  output GB/s   hot MAPE held out (as cold)\n";
  const auto rate = [](double s_per_byte) { return s_per_byte > 0 ? fixed(1e-9 / s_per_byte, 1) : std::string("-"); };
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    const auto i = static_cast<std::size_t>(phase);
    const ConvWarmSavings& c = w.warmth.conv[i];
    log << "  " << std::left << std::setw(18) << phase_name(phase) << std::right << std::setw(6) << w.pairs[i];
    if (w.held_out[i].count == 0) {
      log << "   too few to fit (" << fitting::kMinHotPairs << " needed)\n";
      continue;
    }
    log << std::setw(10) << fixed(c.call_s * 1e6, 1) << std::setw(11) << (c.native_call_s ? fixed(*c.native_call_s * 1e6, 1) : std::string("-"))
              << std::setw(10) << (c.call_tau_s > 0 ? fixed(c.call_tau_s * 1e6, 0) : std::string("-")) << std::setw(13) << rate(c.input_s_per_byte) << std::setw(13) << rate(c.weight_s_per_byte)
              << std::setw(13) << rate(c.output_s_per_byte) << std::setw(12) << fixed(w.held_out[i].mape, 1) << " (" << fixed(w.as_cold[i].mape, 1) << ")";
    if (w.held_out_one_call[i].count > 0)
      log << "; " << w.native_pairs[i] << " on the native path, one fixed part for all: " << fixed(w.held_out_one_call[i].mape, 1)
                << (c.native_call_s ? " (its own kept)" : " (kept)");
    log << "\n";
    warmth.conv[i] = c;  // a direction too few pairs fitted saves nothing
  }
  log << "  a step replays its tensors through a " << fixed(cache_bytes / 1e6, 1) << " MB cache (memory.cache_bytes) and takes off each part by the share it finds warm"
            << " (at most " << fixed(100 * w.warmth.most_saved, 0) << "% of a cold time)\n";
  // How far the cold timings reached: the eviction before each, against the CPU's last-level
  // cache (analysis/step_residency.h ColdReach); unknown for files that do not name their CPU.
  const nlohmann::json::json_pointer l3("/cpu/caches/l3");
  if (measured_on.contains(l3) && measured_on.at(l3).is_number()) {
    const double llc = measured_on.at(l3).get<double>();
    warmth.cold_eviction_bytes = kCpuColdEvictionBytes;
    warmth.last_level_cache_bytes = llc;
    log << "  the cold timings followed a " << fixed(kCpuColdEvictionBytes / 1048576, 0) << " MiB eviction on a CPU with " << fixed(llc / 1048576, 0)
              << " MiB of last-level cache: " << (llc > kCpuColdEvictionBytes ? "operands a step last touched further back come from further out" : "nothing stayed cached") << "\n";
  }
  fit_pass_far(log, data, warmth);
  return warmth;
}

/// With --step-warmth: the share of the hot pairs' savings realized inside real steps, per kind
/// (training, inference), fitted on their convolutions timed in the step and alone
/// (fitting/compute/realized_share_fit.h); -1 for a kind without enough networks. Each fitted
/// kind's excess beyond the cold times (StepWarmth::in_step_excess) and price per far byte
/// (StepWarmth::far_s_per_byte) go into `profile`.
std::array<double, 2> fit_in_step_shares(std::ostream& log, const HardwareProfile& fitted, const FitOptions& o, StepNetworks& networks, nlohmann::json& profile) {
  std::array<double, 2> shares{-1.0, -1.0};
  if (o.step_warmth.empty()) return shares;
  if (!fitted.device.step_warmth.enabled()) {
    log << "\n--step-warmth " << o.step_warmth << ": left out, no step warmth fitted (hot pairs needed) for steps to realize\n";
    return shares;
  }
  const InStepWarmth in = in_step_warmth(fitted, o.step_warmth, o.step_networks, networks);
  for (const std::string& why : in.skipped) log << "  skipped " << why << "\n";
  for (int kind = 0; kind < 2; ++kind) {
    const auto& observed = in.observations[kind];
    if (observed.empty()) continue;
    const fitting::RealizedShareFit f = fitting::fit_realized_share(observed);
    log << "\nwarmth realized by convolutions inside " << (kind ? "inferences" : "training steps") << " (" << o.step_warmth << ": " << f.observations
              << " shapes of " << f.networks << " networks, timed in the step and alone from evicted caches):\n";
    log << "  network                               shapes  saved of cold: all realized   measured   the network's share\n";
    for (const auto& n : f.per_network)
      log << "  " << std::left << std::setw(38) << std::filesystem::path(n.name).filename().string() << std::right << std::setw(6) << n.observations << std::setw(26)
                << fixed(n.full_saving, 3) << std::setw(11) << fixed(n.measured_saving, 3) << std::setw(22) << fixed(n.share, 2) << "\n";
    if (!f.fitted) {
      log << "  not fitted: " << f.message << "\n";
      continue;
    }
    shares[kind] = f.share;
    profile["sources"][kind ? "realized_share_inference" : "realized_share"] = "dnnperf fit --step-warmth " + o.step_warmth + " on " + bench::utc_now() + ": " +
                                                                                std::to_string(f.observations) + " convolution shapes of " + std::to_string(f.networks) + " networks";
    log << "  share realized " << fixed(f.share, 2) << " +- " << fixed(f.standard_error, 2) << " (standard error, clustered by network)";
    if (f.excess > 0) log << ", and every convolution " << fixed(100 * f.excess, 1) << "% of its cold time slower than cold whatever it saves";
    log << "; the time-weighted RMS of the saving " << fixed(100 * f.rms_fitted, 1) << "% of the cold time (" << fixed(100 * f.rms_full, 1) << "% with all of it realized, "
              << fixed(100 * f.rms_none, 1) << "% with none and no excess)\n";
    if (f.far_s_per_byte > 0) log << "  each operand byte beyond the cold timings' reach " << fixed(f.far_s_per_byte * 1e12, 1) << " ps (" << fixed(1e-9 / f.far_s_per_byte, 1) << " GB/s)\n";
    log << "  each network predicted by the others' fit errs, in shares of its cold time: " << fixed(100 * f.held_out_rms_share_only, 1) << "% with the share alone, "
              << fixed(100 * f.held_out_rms_with_excess, 1) << "% with an excess, " << fixed(100 * f.held_out_rms_with_far, 1) << "% with the far bytes, "
              << fixed(100 * f.held_out_rms_with_both, 1) << "% with both; kept: " << (f.excess > 0 && f.far_s_per_byte > 0 ? "both" : f.excess > 0 ? "the excess" : f.far_s_per_byte > 0 ? "the far bytes" : "the share alone") << "\n";
    profile["device"]["step_warmth"][kind ? "in_step_excess_inference" : "in_step_excess"] = f.excess;
    profile["device"]["step_warmth"][kind ? "far_s_per_byte_inference" : "far_s_per_byte"] = f.far_s_per_byte;
  }
  return shares;
}

/// The share of the hot pairs' savings that steps realize (StepWarmth::realized_share), apart for
/// inferences (realized_share_inference): fitted on convolutions timed inside steps where
/// --step-warmth gives enough of them (fit_in_step_shares), else the one in [0, 1] whose
/// predictions of the --steps runs have the least mean squared log error, on a grid of twentieths
/// refined around the best quarter. Sets both in `fitted` and `profile` and returns the steps'
/// composition at them. Ties keep the larger share: without evidence, the pairs' own.
StepComposition fit_realized_warmth(std::ostream& log, HardwareProfile& fitted, const FitOptions& o, nlohmann::json& profile) {
  StepWarmth& warmth = fitted.device.step_warmth;
  if (!warmth.enabled()) return step_composition(fitted, o.steps, o.step_networks);
  StepNetworks networks;  // loaded once for every share tried
  const std::array<double, 2> in_step = fit_in_step_shares(log, fitted, o, networks, profile);
  const nlohmann::json& fitted_warmth = profile["device"]["step_warmth"];
  warmth.in_step_excess = fitted_warmth.value("in_step_excess", 0.0);
  warmth.in_step_excess_inference = optional_number(fitted_warmth, "in_step_excess_inference");
  warmth.far_s_per_byte = fitted_warmth.value("far_s_per_byte", 0.0);
  warmth.far_s_per_byte_inference = optional_number(fitted_warmth, "far_s_per_byte_inference");
  // Each run is priced at its own kind's share only, so one composition per share serves both.
  struct Tried {
    std::array<double, 2> mse{};       // training, inference
    std::array<std::size_t, 2> count{};
  };
  std::map<double, Tried, std::greater<>> tried;
  const auto at = [&](double share) -> const Tried& {
    if (const auto it = tried.find(share); it != tried.end()) return it->second;
    warmth.realized_share = share;
    warmth.realized_share_inference = share;
    const StepComposition s = step_composition(fitted, o.steps, o.step_networks, &networks);
    Tried t;
    for (const auto& c : s.cases) t.mse[c.inference] += c.log_error * c.log_error, ++t.count[c.inference];
    for (int kind = 0; kind < 2; ++kind)
      if (t.count[kind]) t.mse[kind] /= static_cast<double>(t.count[kind]);
    return tried.emplace(share, t).first->second;
  };
  const auto best = [&](int kind) {
    double share = 1, least = at(1.0).mse[kind];
    for (const auto& [v, t] : tried)
      if (t.mse[kind] < least - 1e-12) share = v, least = t.mse[kind];
    return share;
  };
  for (const double share : {1.0, 0.75, 0.5, 0.25, 0.0}) at(share);
  const std::array<std::size_t, 2> counts = at(1.0).count;
  std::array<double, 2> shares{1.0, -1.0};
  for (int kind = 0; kind < 2; ++kind) {
    if (counts[kind] < kMinSteps) continue;
    const double coarse = best(kind);
    for (double share = std::max(0.0, coarse - 0.2); share <= std::min(1.0, coarse + 0.2) + 1e-9; share += 0.05) at(std::round(share * 20) / 20);
    shares[kind] = best(kind);
    const auto rms = [&](double v) { return fixed(100 * std::sqrt(at(v).mse[kind]), 1); };
    log << "\nwarmth realized inside whole " << (kind ? "inferences" : "steps") << " (" << o.steps << ", " << counts[kind] << " networks): " << fixed(shares[kind], 2)
              << " of the pairs' savings (the " << (kind ? "inferences'" : "steps'") << " RMS log error " << rms(shares[kind]) << "%; " << rms(1.0) << "% with all of them, "
              << rms(0.0) << "% with none)";
    if (in_step[kind] >= 0) {
      const double kept = std::round(in_step[kind] * 20) / 20;
      log << "; kept: " << fixed(in_step[kind], 2) << " from the convolutions timed inside them (the " << (kind ? "inferences'" : "steps'") << " RMS at " << fixed(kept, 2)
                << ": " << rms(kept) << "%)";
      shares[kind] = in_step[kind];
    }
    log << "\n";
  }
  for (int kind = 0; kind < 2; ++kind)
    if (shares[kind] < 0 || counts[kind] < kMinSteps) shares[kind] = in_step[kind] >= 0 ? in_step[kind] : kind ? -1.0 : 1.0;
  warmth.realized_share = shares[0];
  warmth.realized_share_inference = shares[1] >= 0 ? std::optional<double>(shares[1]) : std::nullopt;
  profile["device"]["step_warmth"]["realized_share"] = shares[0];
  if (shares[1] >= 0) profile["device"]["step_warmth"]["realized_share_inference"] = shares[1];
  return step_composition(fitted, o.steps, o.step_networks, &networks);
}

/// With --steps: prices the runs' networks with the profile just fitted, prints each step's error
/// beside its kernels' spread, and keeps the spread they leave as device.step_sigma. The runs'
/// re-timed reference kernels are compared with every kernel the fit timed (`timed`), not only
/// the sixteen the new profile keeps: a refit that adds samples moves the quantiles those are
/// picked at, and the runs were kept with another profile's.
/// Returns the runs' RMS log error (nullopt without --steps runs).
std::optional<double> fit_step_spread(std::ostream& log, const FitOptions& o, nlohmann::json& profile, const std::vector<std::pair<Kernel, double>>& timed) {
  if (o.steps.empty() && o.step_warmth.empty()) return std::nullopt;
  HardwareProfile fitted = hardware_profile_from_json(profile, o.output.empty() ? "the fitted profile" : o.output);
  if (o.steps.empty()) {  // the realized shares alone, from convolutions timed inside steps
    StepNetworks networks;
    const std::array<double, 2> shares = fit_in_step_shares(log, fitted, o, networks, profile);
    if (shares[0] >= 0) profile["device"]["step_warmth"]["realized_share"] = shares[0];
    if (shares[1] >= 0) profile["device"]["step_warmth"]["realized_share_inference"] = shares[1];
    return std::nullopt;
  }
  if (!timed.empty()) fitted.reference_kernels = timed;
  const StepComposition s = fit_realized_warmth(log, fitted, o, profile);
  std::optional<double> rms;
  if (!s.cases.empty()) {
    double squares = 0;
    for (const auto& c : s.cases) squares += c.log_error * c.log_error;
    rms = std::sqrt(squares / static_cast<double>(s.cases.size()));
  }
  log << "\nwhole steps against their kernels (" << o.steps << "; " << s.cases.size() << " runs";
  if (s.drift.count)
    log << ", timed at " << fixed(s.drift.median, 2) << "x the calibration's kernel times (" << s.drift.count << " reference kernels; 10-90%: " << fixed(s.drift.low, 2)
              << "-" << fixed(s.drift.high, 2) << "x), taken back to its speed";
  else
    log << "; " << s.drift.note;
  log << "):\n";
  std::size_t width = 24;
  for (const auto& c : s.cases) width = std::max(width, std::filesystem::path(c.network).filename().string().size() + 2);
  log << std::left << std::setw(static_cast<int>(width)) << "network" << std::setw(11) << "run" << std::right << std::setw(7) << "batch" << std::setw(14)
            << "predicted ms" << std::setw(13) << "measured ms" << std::setw(10) << "error %" << std::setw(18) << "kernel spread %" << "\n";
  for (const auto& c : s.cases)
    log << std::left << std::setw(static_cast<int>(width)) << std::filesystem::path(c.network).filename().string() << std::setw(11)
              << (c.inference ? "inference" : "training") << std::right << std::setw(7) << c.batch
              << std::setw(14) << fixed(1e3 * c.predicted_s, 2) << std::setw(13) << fixed(1e3 * c.measured_s, 2) << std::setw(10)
              << fixed(100 * (c.predicted_s / c.measured_s - 1), 1) << std::setw(18) << fixed(100 * c.kernel_sigma, 1) << "\n";
  for (const std::string& why : s.skipped) log << "skipped: " << why << "\n";
  if (!s.estimated) {
    log << "step spread: not estimated (" << s.cases.size() << " single-process runs; at least " << kMinSteps << " needed)\n";
    return rms;
  }
  log << "step spread beyond the kernels': " << fixed(100 * s.sigma, 1) << "% (log sigma; mean error of the predictions " << fixed(100 * (std::exp(-s.bias) - 1), 1)
            << "%); prediction intervals add it\n";
  // A shared error of every step, far beyond chance and beyond what the kernels' own spread
  // explains: the kernels and the steps were not timed on the same machine, in effect. On a busy
  // VM kernels timed alone with cold caches slowed 2.0-2.4x and whole steps 1.5-2.2x
  // (docs/models/cpu-evidence.md: cpu-vm-2core-2026-12-02-calibrate-busy). step_sigma widens the intervals
  // for it; nothing corrects the predictions, whose error differs by network. The other way (steps
  // slower than their kernels: 13.8% on 2026-12-02 at 10:47, on a VM that faulted fresh pages in
  // at 3 us each that day; docs/models/cpu-evidence.md: cpu-vm-2core-2026-12-02-calibrate-grid) is load on
  // the steps or a cost only steps pay.
  if (std::abs(s.bias) > kBiasStandardErrors * s.bias_se && std::abs(s.bias) > s.kernel_sigma)
    log << "warning: the steps' kernels priced them " << fixed(100 * std::abs(std::exp(-s.bias) - 1), 1) << "% " << (s.bias < 0 ? "above" : "below")
              << " their measured time on average, "
              << (s.bias_se > 0 ? fixed(std::abs(s.bias) / s.bias_se, 1) + " standard errors from none" : std::string("every step off alike"))
              << " and more than the kernels' spread ("
              << fixed(100 * s.kernel_sigma, 1) << "%): the kernels and the steps saw different machines. "
              << (s.bias < 0 ? "On a shared machine that is most often load while the kernels were timed (alone, with cold caches, they slow more than steps)"
                             : "On a shared machine that is most often load while the steps ran, or a cost steps pay and kernels timed alone do not (a "
                               "machine slow to fault in the pages of large tensors, which PyTorch maps afresh)")
              << "; measure again when it is quiet\n";
  profile["device"]["step_sigma"] = s.sigma;
  profile["sources"]["step_sigma"] = "dnnperf fit --steps " + o.steps + " on " + bench::utc_now() + ": " + std::to_string(s.cases.size()) + " runs";
  return rms;
}

}  // namespace dnnperf::calibration
