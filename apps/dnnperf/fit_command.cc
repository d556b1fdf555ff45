#include "apps/dnnperf/fit_command.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/dnnperf/format.h"
#include "apps/dnnperf/ground_truth.h"
#include "apps/dnnperf/in_step_warmth.h"
#include "fitting/comm/comm_fit.h"
#include "fitting/compute/compute_fit.h"
#include "fitting/compute/pass_far_fit.h"
#include "fitting/compute/warm_savings_fit.h"
#include "microbench/records/measurement.h"
#include "models/comm/allreduce.h"
#include "models/compute/analytic_model.h"
#include "models/compute/conv_as_gemm.h"
#include "predictor/common/error.h"
#include "predictor/common/kernel_record.h"
#include "predictor/common/json_reader.h"
#include "predictor/hardware/cpu_identity.h"
#include "predictor/hardware/fitted_sections.h"
#include "predictor/hardware/hardware_profile.h"
#include "predictor/prediction/predict.h"

namespace dnnperf::cli {

std::vector<std::pair<Kernel, double>> reference_kernels(const std::vector<fitting::ComputeSample>& samples) {
  // Chosen by their first run's time: a refit that adds runs of some shapes (another session's
  // anchors) keeps the same kernels, so that runs kept with them re-timed stay comparable.
  const auto chosen_by = [](const fitting::ComputeSample& s) { return s.first_seconds > 0 ? s.first_seconds : s.seconds; };
  std::map<std::string, std::vector<const fitting::ComputeSample*>> by_class;
  for (const fitting::ComputeSample& s : samples)
    if ((s.kernel.cls == KernelClass::gemm || s.kernel.cls == KernelClass::conv) && s.kernel_class != "per_image_gemm" && chosen_by(s) >= 2e-4 &&
        chosen_by(s) <= 2e-2)
      by_class[s.kernel_class].push_back(&s);
  std::vector<std::pair<Kernel, double>> out;
  for (auto& [cls, of_class] : by_class) {
    std::sort(of_class.begin(), of_class.end(), [&](const auto* a, const auto* b) { return chosen_by(*a) < chosen_by(*b); });
    constexpr std::size_t kPerClass = 4;
    for (std::size_t i = 0; i < std::min(kPerClass, of_class.size()); ++i) {
      const auto* s = of_class[(2 * i + 1) * of_class.size() / (2 * kPerClass)];
      out.emplace_back(s->kernel, s->seconds);
    }
  }
  return out;
}

std::vector<ReferencePass> reference_passes(const std::vector<std::string>& files) {
  std::vector<ReferencePass> out;
  std::set<std::pair<std::string, std::int64_t>> seen;
  for (const std::string& file : files)
    for (const bench::Record& r : bench::read_records(file)) {
      // Only what torch_bench.py --kernels can time again: its own passes, over a plain buffer.
      if (!r.op.starts_with("memory_") || r.library != "PyTorch" || r.status != "ok" || !r.timing || r.params.size() != 1 || !r.params.contains("bytes"))
        continue;
      const auto dtype = parse_dtype(r.dtype);
      const std::int64_t bytes = r.params.at("bytes").get<std::int64_t>();
      if (!dtype || bytes < kReferencePassBytes || !seen.emplace(r.op, bytes).second) continue;
      out.push_back({r.op, bytes, *dtype, r.timing->median});
    }
  return out;
}

nlohmann::json measured_on(const std::vector<std::string>& files) {
  // Per CPU named (its description as the key) and per allocator policy: the records that ran
  // with it, and the files.
  using Runs = std::map<std::string, std::pair<std::size_t, std::set<std::string>>>;
  Runs cpu_runs, allocator_runs;
  std::map<std::string, nlohmann::json> cpus;
  for (const std::string& file : files) {
    const std::string name = std::filesystem::path(file).filename().string();
    // A run's records share its context line: each is read and keyed once.
    const nlohmann::json* context = nullptr;
    std::string cpu_key, allocator;
    for (const bench::Record& r : bench::read_records(file)) {
      if (!r.context) continue;
      if (r.context.get() != context) {
        context = r.context.get();
        cpu_key.clear();
        if (const auto it = context->find("cpu"); it != context->end() && it->is_object() && !it->empty()) {
          const nlohmann::json cpu = read_cpu_identity(*it, file + ": a context line's cpu");
          cpu_key = cpu.dump();
          cpus.emplace(cpu_key, cpu);
        }
        const nlohmann::json::json_pointer policy("/libraries/allocator");
        allocator = context->contains(policy) && context->at(policy).is_string() ? context->at(policy).get<std::string>() : "";
      }
      for (auto [runs, key] : {std::pair{&cpu_runs, &cpu_key}, std::pair{&allocator_runs, &allocator}}) {
        if (key->empty()) continue;
        ++(*runs)[*key].first;
        (*runs)[*key].second.insert(name);
      }
    }
  }
  // The one most records ran with; a warning listing each where the files name several.
  const auto most = [](const Runs& runs, const std::string& ran, const std::string& what, const std::string& one,
                        const std::function<std::string(const std::string&)>& describe) {
    const auto it = std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
    if (runs.size() > 1) {
      std::cout << "warning: these files ran " << ran << " " << runs.size() << " different " << what << ", and the fit mixes their speeds (fit one " << one
                << "'s files at a time):\n";
      for (const auto& [key, seen] : runs)
        std::cout << "  " << describe(key) << ": " << seen.first << " records (" << joined({seen.second.begin(), seen.second.end()}) << ")"
                  << (key == it->first ? "; the profile names this one" : "") << "\n";
    }
    return it->first;
  };
  nlohmann::json out = nlohmann::json::object();
  if (!cpu_runs.empty()) out["cpu"] = cpus[most(cpu_runs, "on", "CPUs", "CPU", [&](const std::string& key) { return describe_cpu(cpus[key]); })];
  if (!allocator_runs.empty()) out["allocator"] = most(allocator_runs, "with", "allocator policies", "policy", [](const std::string& key) { return "'" + key + "'"; });
  return out;
}

namespace {

// The share of the roofline's time-weighted held-out error a regression must stay under to
// replace it (fit --family both).
constexpr double kRegressionMargin = 0.9;

// How far (in standard errors) the steps' mean error must lie from none before fit --steps calls it
// a shared error of the calibration rather than chance: with 7 runs, 3 is a two-sided p of ~2%.
constexpr double kBiasStandardErrors = 3;

// A kernel's shape as one CSV field: the record params of a GEMM or convolution ("m=64 n=128 …"),
// the elements of a pass, so that a residual in the report's points can be traced to its kernel.
std::string shape_label(const Kernel& kernel) {
  if (kernel.cls != KernelClass::gemm && kernel.cls != KernelClass::conv) return "elements=" + std::to_string(kernel.elements);
  const nlohmann::json params = matrix_kernel_record(kernel).second;
  std::string label;
  for (const auto& [name, value] : params.items())
    label += (label.empty() ? "" : " ") + name + "=" + (value.is_boolean() ? std::to_string(value.get<bool>()) : value.dump());
  return label;
}

using fitting::CommSample;

struct FitOptions {
  std::vector<std::string> files;
  std::string hardware = "cpu";
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

/// The exponents of the structural fits' time weighting (fitting::weigh_by_time) `fit` tries: the
/// one --time-weight names, or with `auto` none and 0.5 where --steps runs can choose between them
/// (those whose predictions of the runs have the least mean squared log error), else none.
std::vector<double> time_weight_exponents(const FitOptions& o) {
  if (o.time_weight == "auto") return o.steps.empty() ? std::vector<double>{0.0} : std::vector<double>{0.0, 0.5};
  std::size_t used = 0;
  double exponent = -1;
  try {
    exponent = std::stod(o.time_weight, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != o.time_weight.size() || !(exponent >= 0 && exponent <= 2))
    throw InputError("--time-weight: '" + o.time_weight + "' is neither auto nor an exponent from 0 to 2");
  return {exponent};
}

/// The compute family `--family` asks for a kernel class: "analytic", "regression" or "both" (the
/// better one held out). The option is a family for every class, or a comma list of CLASS=FAMILY
/// (classes gemm, conv_forward, conv_backward_data, conv_backward_filter; conv for all three);
/// classes it does not name get "both".
std::string family_for(const std::string& option, const std::string& cls) {
  const auto family = [](const std::string& f) {
    if (f != "analytic" && f != "regression" && f != "both")
      throw InputError("--family: '" + f + "' is not analytic, regression or both");
    return f;
  };
  if (option.find('=') == std::string::npos) return family(option);
  std::string out = "both";
  std::size_t start = 0;
  while (start <= option.size()) {
    const std::size_t comma = std::min(option.find(',', start), option.size());
    const std::string entry = option.substr(start, comma - start);
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos) throw InputError("--family: '" + entry + "' is not CLASS=FAMILY");
    const std::string c = entry.substr(0, eq), f = family(entry.substr(eq + 1));
    if (c != "gemm" && c != "conv" && c != "conv_forward" && c != "conv_backward_data" && c != "conv_backward_filter" && c != "per_image_gemm")
      throw InputError("--family: unknown kernel class '" + c + "' (gemm, conv, conv_forward, conv_backward_data, conv_backward_filter, per_image_gemm)");
    if (c == cls || (c == "conv" && cls.rfind("conv_", 0) == 0)) out = f;
    start = comma + 1;
  }
  return out;
}

std::vector<CommModelKind> parse_models(const std::string& text) {
  std::vector<CommModelKind> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto k = parse_comm_model(name);
    if (!k) throw InputError("--models: unknown model '" + name + "' (hockney, loggp, dnnperf)");
    out.push_back(*k);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string pct(double v) { return fixed(v, 1); }

/// With a distance curve (scripts/torch_bench.py --pass-distances): what a memory-bound pass pays
/// per byte beyond its hot calibration's reach, and where that reach ends (fitting/compute/pass_far_fit.h),
/// into the step warmth `warmth`.
void fit_pass_far(const fitting::ComputeData& data, nlohmann::json& warmth) {
  if (data.pass_distances.empty()) return;
  const fitting::PassFarFit f = fitting::fit_pass_far_prices(data.pass_distances, kCpuColdEvictionBytes);
  std::cout << "  memory passes at a distance (" << f.read_records << " read, " << f.written_records << " written; far - hot = price * bytes beyond the reach): ";
  if (!f.fitted) {
    std::cout << "not fitted: " << f.message << "\n";
    return;
  }
  std::cout << "a far byte " << fixed(f.read_s_per_byte * 1e12, 1) << " ps more read, " << fixed(f.written_s_per_byte * 1e12, 1) << " ps more written, wholly far from "
            << fixed(f.reach_bytes / 1048576, 0) << " MiB on; far times held out " << fixed(f.held_out.mape, 1) << "% off (" << fixed(f.as_hot.mape, 1) << "% taken as hot)\n";
  warmth["cold_eviction_bytes"] = kCpuColdEvictionBytes;
  warmth["far_reach_bytes"] = f.reach_bytes;
  warmth["pass_far_read_s_per_byte"] = f.read_s_per_byte;
  warmth["pass_far_written_s_per_byte"] = f.written_s_per_byte;
}

/// With hot pairs (scripts/torch_bench.py --hot-pairs): what a step's warmth saves a convolution
/// against its cold price, per direction, kept as device.step_warmth (models/compute/step_warmth.h).
void fit_step_warmth(const fitting::ComputeData& data, double cache_bytes, const nlohmann::json& measured_on, nlohmann::json& device) {
  device.erase("step_warmth");
  if (data.hot_pairs.empty()) return;
  const fitting::WarmSavingsFit w = fitting::fit_warm_savings(data.hot_pairs, cache_bytes);
  std::cout << "\nstep warmth (" << data.hot_pairs.size() << " convolutions timed cold and back to back; cold - hot = call * cold / (cold + tau) + bytes of each operand):\n";
  if (!w.warmth.enabled()) {
    std::cout << "  not fitted: " << w.message << "\n";
    return;
  }
  std::cout << "  direction          pairs   call us  native us    tau us   input GB/s  filter GB/s  output GB/s   hot MAPE held out (as cold)\n";
  const auto rate = [](double s_per_byte) { return s_per_byte > 0 ? fixed(1e-9 / s_per_byte, 1) : std::string("-"); };
  nlohmann::json conv = nlohmann::json::object();
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    const auto i = static_cast<std::size_t>(phase);
    const ConvWarmSavings& c = w.warmth.conv[i];
    std::cout << "  " << std::left << std::setw(18) << phase_name(phase) << std::right << std::setw(6) << w.pairs[i];
    if (w.held_out[i].count == 0) {
      std::cout << "   too few to fit (" << fitting::kMinHotPairs << " needed)\n";
      continue;
    }
    std::cout << std::setw(10) << fixed(c.call_s * 1e6, 1) << std::setw(11) << (c.native_call_s >= 0 ? fixed(c.native_call_s * 1e6, 1) : std::string("-"))
              << std::setw(10) << (c.call_tau_s > 0 ? fixed(c.call_tau_s * 1e6, 0) : std::string("-")) << std::setw(13) << rate(c.input_s_per_byte) << std::setw(13) << rate(c.weight_s_per_byte)
              << std::setw(13) << rate(c.output_s_per_byte) << std::setw(12) << fixed(w.held_out[i].mape, 1) << " (" << fixed(w.as_cold[i].mape, 1) << ")";
    if (w.held_out_one_call[i].count > 0)
      std::cout << "; " << w.native_pairs[i] << " on the native path, one fixed part for all: " << fixed(w.held_out_one_call[i].mape, 1)
                << (c.native_call_s >= 0 ? " (its own kept)" : " (kept)");
    std::cout << "\n";
    nlohmann::json& out = conv[std::string(phase_name(phase))];
    out = {{"call_s", c.call_s}, {"call_tau_s", c.call_tau_s}, {"input_s_per_byte", c.input_s_per_byte}, {"weight_s_per_byte", c.weight_s_per_byte},
           {"output_s_per_byte", c.output_s_per_byte}};
    if (c.native_call_s >= 0) out["native_call_s"] = c.native_call_s;
  }
  std::cout << "  a step replays its tensors through a " << fixed(cache_bytes / 1e6, 1) << " MB cache (memory.cache_bytes) and takes off each part by the share it finds warm"
            << " (at most " << fixed(100 * w.warmth.most_saved, 0) << "% of a cold time)\n";
  device["step_warmth"] = {{"cache_bytes", cache_bytes}, {"most_saved", w.warmth.most_saved}, {"conv", conv}};
  // How far the cold timings reached: the eviction before each, against the CPU's last-level
  // cache (analysis/step_residency.h ColdReach); unknown for files that do not name their CPU.
  const nlohmann::json::json_pointer l3("/cpu/caches/l3");
  if (measured_on.contains(l3) && measured_on.at(l3).is_number()) {
    const double llc = measured_on.at(l3).get<double>();
    device["step_warmth"]["cold_eviction_bytes"] = kCpuColdEvictionBytes;
    device["step_warmth"]["last_level_cache_bytes"] = llc;
    std::cout << "  the cold timings followed a " << fixed(kCpuColdEvictionBytes / 1048576, 0) << " MiB eviction on a CPU with " << fixed(llc / 1048576, 0)
              << " MiB of last-level cache: " << (llc > kCpuColdEvictionBytes ? "operands a step last touched further back come from further out" : "nothing stayed cached") << "\n";
  }
  fit_pass_far(data, device["step_warmth"]);
}

/// With --step-warmth: the share of the hot pairs' savings realized inside real steps, per kind
/// (training, inference), fitted on their convolutions timed in the step and alone
/// (fitting/compute/realized_share_fit.h); -1 for a kind without enough networks. Each fitted
/// kind's excess beyond the cold times (StepWarmth::in_step_excess) and price per far byte
/// (StepWarmth::far_s_per_byte) go into `profile`.
std::array<double, 2> fit_in_step_shares(const HardwareProfile& fitted, const FitOptions& o, StepNetworks& networks, nlohmann::json& profile) {
  std::array<double, 2> shares{-1.0, -1.0};
  if (o.step_warmth.empty()) return shares;
  if (!fitted.device.step_warmth.enabled()) {
    std::cout << "\n--step-warmth " << o.step_warmth << ": left out, no step warmth fitted (hot pairs needed) for steps to realize\n";
    return shares;
  }
  const InStepWarmth in = in_step_warmth(fitted, o.step_warmth, o.step_networks, networks);
  for (const std::string& why : in.skipped) std::cout << "  skipped " << why << "\n";
  for (int kind = 0; kind < 2; ++kind) {
    const auto& observed = in.observations[kind];
    if (observed.empty()) continue;
    const fitting::RealizedShareFit f = fitting::fit_realized_share(observed);
    std::cout << "\nwarmth realized by convolutions inside " << (kind ? "inferences" : "training steps") << " (" << o.step_warmth << ": " << f.observations
              << " shapes of " << f.networks << " networks, timed in the step and alone from evicted caches):\n";
    std::cout << "  network                               shapes  saved of cold: all realized   measured   the network's share\n";
    for (const auto& n : f.per_network)
      std::cout << "  " << std::left << std::setw(38) << std::filesystem::path(n.name).filename().string() << std::right << std::setw(6) << n.observations << std::setw(26)
                << fixed(n.full_saving, 3) << std::setw(11) << fixed(n.measured_saving, 3) << std::setw(22) << fixed(n.share, 2) << "\n";
    if (!f.fitted) {
      std::cout << "  not fitted: " << f.message << "\n";
      continue;
    }
    shares[kind] = f.share;
    profile["sources"][kind ? "realized_share_inference" : "realized_share"] = "dnnperf fit --step-warmth " + o.step_warmth + " on " + bench::utc_now() + ": " +
                                                                                std::to_string(f.observations) + " convolution shapes of " + std::to_string(f.networks) + " networks";
    std::cout << "  share realized " << fixed(f.share, 2) << " +- " << fixed(f.standard_error, 2) << " (standard error, clustered by network)";
    if (f.excess > 0) std::cout << ", and every convolution " << fixed(100 * f.excess, 1) << "% of its cold time slower than cold whatever it saves";
    std::cout << "; the time-weighted RMS of the saving " << fixed(100 * f.rms_fitted, 1) << "% of the cold time (" << fixed(100 * f.rms_full, 1) << "% with all of it realized, "
              << fixed(100 * f.rms_none, 1) << "% with none and no excess)\n";
    if (f.far_s_per_byte > 0) std::cout << "  each operand byte beyond the cold timings' reach " << fixed(f.far_s_per_byte * 1e12, 1) << " ps (" << fixed(1e-9 / f.far_s_per_byte, 1) << " GB/s)\n";
    std::cout << "  each network predicted by the others' fit errs, in shares of its cold time: " << fixed(100 * f.held_out_rms_share_only, 1) << "% with the share alone, "
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
StepComposition fit_realized_warmth(HardwareProfile& fitted, const FitOptions& o, nlohmann::json& profile) {
  StepWarmth& warmth = fitted.device.step_warmth;
  if (!warmth.enabled()) return step_composition(fitted, o.steps, o.step_networks);
  StepNetworks networks;  // loaded once for every share tried
  const std::array<double, 2> in_step = fit_in_step_shares(fitted, o, networks, profile);
  const nlohmann::json& fitted_warmth = profile["device"]["step_warmth"];
  warmth.in_step_excess = fitted_warmth.value("in_step_excess", 0.0);
  warmth.in_step_excess_inference = fitted_warmth.value("in_step_excess_inference", -1.0);
  warmth.far_s_per_byte = fitted_warmth.value("far_s_per_byte", 0.0);
  warmth.far_s_per_byte_inference = fitted_warmth.value("far_s_per_byte_inference", -1.0);
  // Each run is priced at its own kind's share only, so one composition per share serves both.
  struct Tried {
    std::array<double, 2> mse{};       // training, inference
    std::array<std::size_t, 2> count{};
  };
  std::map<double, Tried, std::greater<>> tried;
  const auto at = [&](double share) -> const Tried& {
    if (const auto it = tried.find(share); it != tried.end()) return it->second;
    warmth.realized_share = warmth.realized_share_inference = share;
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
    std::cout << "\nwarmth realized inside whole " << (kind ? "inferences" : "steps") << " (" << o.steps << ", " << counts[kind] << " networks): " << fixed(shares[kind], 2)
              << " of the pairs' savings (the " << (kind ? "inferences'" : "steps'") << " RMS log error " << rms(shares[kind]) << "%; " << rms(1.0) << "% with all of them, "
              << rms(0.0) << "% with none)";
    if (in_step[kind] >= 0) {
      const double kept = std::round(in_step[kind] * 20) / 20;
      std::cout << "; kept: " << fixed(in_step[kind], 2) << " from the convolutions timed inside them (the " << (kind ? "inferences'" : "steps'") << " RMS at " << fixed(kept, 2)
                << ": " << rms(kept) << "%)";
      shares[kind] = in_step[kind];
    }
    std::cout << "\n";
  }
  for (int kind = 0; kind < 2; ++kind)
    if (shares[kind] < 0 || counts[kind] < kMinSteps) shares[kind] = in_step[kind] >= 0 ? in_step[kind] : kind ? -1.0 : 1.0;
  warmth.realized_share = shares[0];
  warmth.realized_share_inference = shares[1];
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
std::optional<double> fit_step_spread(const FitOptions& o, nlohmann::json& profile, const std::vector<std::pair<Kernel, double>>& timed) {
  if (o.steps.empty() && o.step_warmth.empty()) return std::nullopt;
  HardwareProfile fitted = hardware_profile_from_json(profile, o.output.empty() ? "the fitted profile" : o.output);
  if (o.steps.empty()) {  // the realized shares alone, from convolutions timed inside steps
    StepNetworks networks;
    const std::array<double, 2> shares = fit_in_step_shares(fitted, o, networks, profile);
    if (shares[0] >= 0) profile["device"]["step_warmth"]["realized_share"] = shares[0];
    if (shares[1] >= 0) profile["device"]["step_warmth"]["realized_share_inference"] = shares[1];
    return std::nullopt;
  }
  if (!timed.empty()) fitted.reference_kernels = timed;
  const StepComposition s = fit_realized_warmth(fitted, o, profile);
  std::optional<double> rms;
  if (!s.cases.empty()) {
    double squares = 0;
    for (const auto& c : s.cases) squares += c.log_error * c.log_error;
    rms = std::sqrt(squares / static_cast<double>(s.cases.size()));
  }
  std::cout << "\nwhole steps against their kernels (" << o.steps << "; " << s.cases.size() << " runs";
  if (s.drift.count)
    std::cout << ", timed at " << fixed(s.drift.median, 2) << "x the calibration's kernel times (" << s.drift.count << " reference kernels; 10-90%: " << fixed(s.drift.low, 2)
              << "-" << fixed(s.drift.high, 2) << "x), taken back to its speed";
  else
    std::cout << "; " << s.drift.note;
  std::cout << "):\n";
  std::size_t width = 24;
  for (const auto& c : s.cases) width = std::max(width, std::filesystem::path(c.network).filename().string().size() + 2);
  std::cout << std::left << std::setw(static_cast<int>(width)) << "network" << std::setw(11) << "run" << std::right << std::setw(7) << "batch" << std::setw(14)
            << "predicted ms" << std::setw(13) << "measured ms" << std::setw(10) << "error %" << std::setw(18) << "kernel spread %" << "\n";
  for (const auto& c : s.cases)
    std::cout << std::left << std::setw(static_cast<int>(width)) << std::filesystem::path(c.network).filename().string() << std::setw(11)
              << (c.inference ? "inference" : "training") << std::right << std::setw(7) << c.batch
              << std::setw(14) << fixed(1e3 * c.predicted_s, 2) << std::setw(13) << fixed(1e3 * c.measured_s, 2) << std::setw(10)
              << fixed(100 * (c.predicted_s / c.measured_s - 1), 1) << std::setw(18) << fixed(100 * c.kernel_sigma, 1) << "\n";
  for (const std::string& why : s.skipped) std::cout << "skipped: " << why << "\n";
  if (!s.estimated) {
    std::cout << "step spread: not estimated (" << s.cases.size() << " single-process runs; at least " << kMinSteps << " needed)\n";
    return rms;
  }
  std::cout << "step spread beyond the kernels': " << fixed(100 * s.sigma, 1) << "% (log sigma; mean error of the predictions " << fixed(100 * (std::exp(-s.bias) - 1), 1)
            << "%); prediction intervals add it\n";
  // A shared error of every step, far beyond chance and beyond what the kernels' own spread
  // explains: the kernels and the steps were not timed on the same machine, in effect. On a busy
  // VM kernels timed alone with cold caches slowed 2.0-2.4x and whole steps 1.5-2.2x
  // (data/measurements/cpu-vm-2core-2026-12-02-calibrate-busy/). step_sigma widens the intervals
  // for it; nothing corrects the predictions, whose error differs by network. The other way (steps
  // slower than their kernels: 13.8% on 2026-12-02 at 10:47, on a VM that faulted fresh pages in
  // at 3 us each that day; data/measurements/cpu-vm-2core-2026-12-02-calibrate-grid/) is load on
  // the steps or a cost only steps pay.
  if (std::abs(s.bias) > kBiasStandardErrors * s.bias_se && std::abs(s.bias) > s.kernel_sigma)
    std::cout << "warning: the steps' kernels priced them " << fixed(100 * std::abs(std::exp(-s.bias) - 1), 1) << "% " << (s.bias < 0 ? "above" : "below")
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

void write_profile(const FitOptions& o, const nlohmann::json& profile) {
  if (o.output.empty()) return;
  std::ofstream out(o.output);
  if (!out) throw InputError(o.output + ": cannot write the profile");
  out << profile.dump(2) << "\n";
  std::cout << "\nwrote " << o.output << "\n";
}

/// Which files were put on another's speed and by how much, and which could not be compared.
void print_session_speeds(const std::vector<fitting::SessionSpeed>& sessions) {
  if (sessions.size() < 2) return;
  std::vector<std::string> alone;
  for (const fitting::SessionSpeed& s : sessions) {
    if (s.reference == s.session) {
      if (std::none_of(sessions.begin(), sessions.end(), [&](const fitting::SessionSpeed& o) { return o.session != s.session && o.reference == s.session; }))
        alone.push_back(s.session);
      continue;
    }
    const auto ratio = [](const fitting::SessionFactor& f) {
      std::ostringstream r;
      r << std::fixed << std::setprecision(2) << f.measured << "x ±" << std::setprecision(1) << 100 * f.standard_error << "%" << (f.within_noise() ? " (noise)" : "");
      return r.str();
    };
    bool scaled = !s.overall.within_noise();
    std::string classes;
    for (const auto& [cls, f] : s.per_class)
      if (f.kernels > 0) classes += ", " + cls + " " + ratio(f), scaled = scaled || !f.within_noise();
    std::cout << "session speed: " << s.session << " against " << s.compared << " (" << s.overall.kernels << " kernels timed in both): "
              << ratio(s.overall) << " overall" << classes << ": "
              << (scaled ? "scaled to " + s.reference + "'s speed (a ratio within two standard errors of 1, marked noise, is not)"
                         : "within the kernels' noise, kept as timed")
              << "\n";
  }
  if (alone.empty()) return;
  std::string names;
  for (const std::string& a : alone) names += (names.empty() ? "" : ", ") + a;
  const bool none_compared = alone.size() == sessions.size();
  std::cout << "session speed: " << names << ": fewer than " << fitting::kMinSharedKernels << " kernels shared with another file, "
            << (alone.size() > 1 ? "their" : "its") << " times kept as timed"
            << (none_compared ? " (files that begin with the same anchor kernels, scripts/torch_bench.py --anchors, are put on one speed)" : "") << "\n";
}

/// Ranks sharing the machine (device.co_run_slowdown, device.sync_wait) from the files' co-running
/// records, into `profile`; whether there were any.
bool fit_co_running(const fitting::ComputeData& data, nlohmann::json& profile, const std::string& sources) {
  nlohmann::json& d = profile["device"];
  if (!data.co_run_ratios.empty() || !data.step_co_run_ratios.empty())
    profile["sources"]["device.co_run_slowdown"] = "dnnperf fit on " + bench::utc_now() + " from " + sources;
  if (!data.step_co_run_ratios.empty()) profile["sources"]["device.sync_wait"] = "dnnperf fit on " + bench::utc_now() + " from " + sources;
  // Ranks sharing the machine: the median slowdown of whole steps beside co-running ranks where
  // those were measured (scripts/torch_sync_steps.py), else of kernels timed beside co-running
  // processes (scripts/torch_bench.py --co-run), which miss what a step's larger footprint shares.
  const auto quantiles = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)]; };
    return std::array<double, 3>{at(0.1), at(0.5), at(0.9)};
  };
  const auto others = [](int processes, const char* one, const char* several) {
    return std::to_string(processes - 1) + " other " + (processes > 2 ? several : one);
  };
  for (const auto& [processes, ratios] : data.co_run_ratios) {
    const auto [p10, p50, p90] = quantiles(ratios);
    const bool steps = data.step_co_run_ratios.count(processes) > 0;
    if (!steps) d["co_run_slowdown"][std::to_string(processes)] = p50;
    std::cout << "co-running: kernels beside " << others(processes, "process", "processes") << " take " << fixed(p50, 3) << "x their time alone (median of "
              << ratios.size() << "; 10-90%: " << fixed(p10, 2) << "-" << fixed(p90, 2) << "x)"
              << (steps ? "; whole steps measured too, which price data-parallel ranks" : "; data-parallel ranks on one node are priced so") << "\n";
  }
  for (const auto& [processes, ratios] : data.step_co_run_ratios) {
    const auto [p10, p50, p90] = quantiles(ratios);
    const auto [w10, w50, w90] = quantiles(data.sync_wait_ratios.at(processes));
    d["co_run_slowdown"][std::to_string(processes)] = p50;
    d["sync_wait"][std::to_string(processes)] = w50;
    std::cout << "co-running: training steps beside " << others(processes, "rank", "ranks") << " take " << fixed(p50, 3) << "x their time alone, and the slowest of "
              << processes << " ranks' steps " << fixed(w50, 3) << "x a rank's own (medians of " << ratios.size() << " runs; 10-90%: "
              << fixed(p10, 2) << "-" << fixed(p90, 2) << "x and " << fixed(w10, 2) << "-" << fixed(w90, 2)
              << "x); data-parallel ranks are priced so (device.co_run_slowdown, device.sync_wait)\n";
  }
  return !data.co_run_ratios.empty() || !data.step_co_run_ratios.empty();
}

/// Fits both compute families to the files' GEMM and convolution records, prints their held-out
/// errors, and puts the chosen results into `profile`, with the co-running factors. What it fitted.
struct ComputeFitted {
  bool models = false;      // GEMM, convolution and memory models
  bool co_running = false;  // device.co_run_slowdown, device.sync_wait
  /// Every GEMM and convolution sample with its time: what re-timed reference kernels kept with
  /// ground-truth runs are compared with (fit_step_spread), whichever of them the profile keeps.
  std::vector<std::pair<Kernel, double>> timed;
  /// The co-running records' DDP steps: DDP's own overhead is fitted on them once the all-reduce is.
  std::vector<fitting::ComputeData::DdpStep> ddp_steps;
};
ComputeFitted fit_compute(const FitOptions& o, const HardwareProfile& base, nlohmann::json& profile, const std::string& sources) {
  fitting::ComputeData data = fitting::load_compute_data(o.files);
  std::optional<DType> dtype;
  if (!o.dtype.empty() && !(dtype = parse_dtype(o.dtype)))
    throw InputError("--dtype: unknown element type '" + o.dtype + "' (f32, bf16, f16, ...)");
  fitting::keep_one_matrix_type(data, dtype);
  // One line per reason: the first record it excluded and how many more.
  std::map<std::string, std::pair<std::string, int>> excluded;
  std::vector<std::string> reasons;
  for (const fitting::Exclusion& e : data.excluded) {
    if (e.reason.find("--max-flops") != std::string::npos) continue;
    auto [it, fresh] = excluded.try_emplace(e.reason, e.where, 0);
    if (fresh) reasons.push_back(e.reason);
    ++it->second.second;
  }
  for (const std::string& r : reasons) {
    const auto& [where, count] = excluded.at(r);
    std::cout << "excluded: " << where << (count > 1 ? " and " + std::to_string(count - 1) + " more" : "") << ": " << r << "\n";
  }
  ComputeFitted fitted;
  fitted.co_running = fit_co_running(data, profile, sources);
  fitted.ddp_steps = data.ddp_steps;
  if (data.samples.empty()) return fitted;
  fitted.models = true;
  for (const fitting::ComputeSample& smp : data.samples)
    if (smp.kernel.cls == KernelClass::gemm || smp.kernel.cls == KernelClass::conv) fitted.timed.emplace_back(smp.kernel, smp.seconds);
  // Convolutions the framework runs as per-image GEMMs are no convolution kernel's data: each
  // measures its batch of GEMMs, one after another with the weights staying in cache, and they
  // form a class of their own (per_image_gemm), fitted on their per-image GEMMs.
  DeviceSpec device = base.device;
  device.pointwise_conv_gemm_below_batch = o.per_image_gemms ? fitting::pointwise_conv_gemm_below_batch(data) : 0;
  int as_gemms = 0;
  for (fitting::ComputeSample& s : data.samples)
    if (const auto g = per_image_gemm(s.kernel, device)) {
      s = {g->gemm, "per_image_gemm", s.seconds / static_cast<double>(g->images)};
      ++as_gemms;
    }
  fitting::weigh_by_time(data.samples, o.time_exponent);
  if (o.time_exponent > 0)
    std::cout << "structural fits (cache-blocked GEMM, direct convolution) weigh each kernel by (its time / its class's median)^" << fixed(o.time_exponent, 2)
              << ", within " << fixed(fitting::kMinTimeWeight, 2) << "-" << fixed(fitting::kMaxTimeWeight, 0) << "\n";
  if (as_gemms)
    std::cout << as_gemms << " 1x1 convolutions of batches under " << device.pointwise_conv_gemm_below_batch
              << " fitted as the per-image GEMMs " << data.library << " runs them as (class per_image_gemm; models/compute/conv_as_gemm.h)\n";
  std::cout << data.samples.size() << " compute measurements (GEMMs, convolutions, memory passes) from " << data.host << " (" << data.device << ")\n";
  // PyTorch runs fp32 convolutions on TF32 tensor cores by default (cuDNN on Ampere and later):
  // against the fp32 peak their rates (hundreds of TFLOP/s) would be efficiencies above 1.
  device.fp32_conv_math = MathMode::fp32;
  if (data.fp32_conv_tf32.value_or(false)) {
    if (device.peak_flops.count(MathMode::tf32_tensor)) {
      device.fp32_conv_math = MathMode::tf32_tensor;
      std::cout << "fp32 convolutions ran with TF32 math (the run's context: torch.backends.cudnn.allow_tf32): fitted against, and priced at, the TF32 tensor peak of "
                << fixed(device.peak_flops.at(MathMode::tf32_tensor) / 1e12, 1) << " TFLOP/s (device.fp32_conv_math)\n";
    } else {
      std::cout << "fp32 convolutions ran with the TF32 switch on, but the base hardware lists no tf32_tensor peak: fitted as fp32\n";
    }
  }
  print_session_speeds(data.sessions);
  std::cout << "\n";
  const fitting::AnalyticFit analytic = fitting::fit_analytic(device, data);
  // Run-to-run noise where several files timed the same kernels: the floor any model's error has
  // on single runs (as the collectives' table gives it).
  std::map<std::string, std::vector<double>> spreads_of;
  for (const fitting::ComputeSample& smp : data.samples)
    if (smp.runs > 1) spreads_of[smp.kernel_class].push_back(smp.run_spread);
  const auto noise = [&](const std::string& cls) {
    const auto it = spreads_of.find(cls);
    if (it == spreads_of.end()) return std::string("-");
    return pct(100 * std::accumulate(it->second.begin(), it->second.end(), 0.0) / static_cast<double>(it->second.size())) + " (" +
           std::to_string(it->second.size()) + ")";
  };
  std::cout << "compute: held-out error (%), 5 folds over the measured shapes; weighted: sum |error| / sum time, which picks the family\n"
            << std::left << std::setw(24) << "class" << std::setw(12) << "family" << std::right << std::setw(8) << "MAPE"
            << std::setw(8) << "median" << std::setw(8) << "p90" << std::setw(10) << "weighted" << std::setw(10) << "in 95%" << std::setw(12) << "noise"
            << "  features\n";
  std::vector<RegressionModel> chosen;
  // Points for the report's plots: every measurement against both fitted families.
  std::ofstream points;
  if (!o.plots.empty()) {
    std::filesystem::create_directories(o.plots);
    points.open(o.plots + "/compute_points.csv");
    points << "class,family,flops,bytes,measured_s,predicted_s,shape\n";
  }
  const AnalyticComputeModel fitted_analytic(analytic.device);
  for (const auto& [cls, a] : analytic.held_out) {
    if (cls == "memory" || cls.rfind("pass:", 0) == 0) {
      std::cout << std::left << std::setw(24) << (cls == "memory" ? std::string("memory passes") : cls) << std::setw(12) << "analytic" << std::right << std::setw(8) << pct(a.mape)
                << std::setw(8) << pct(a.median) << std::setw(8) << pct(a.p90) << std::setw(10) << pct(a.weighted) << std::setw(10) << "-" << std::setw(12) << noise(cls) << "\n";
      continue;
    }
    const fitting::RegressionFit r = fitting::fit_regression(cls, data.samples);
    std::cout << std::left << std::setw(24) << cls << std::setw(12) << "analytic" << std::right << std::setw(8) << pct(a.mape)
              << std::setw(8) << pct(a.median) << std::setw(8) << pct(a.p90) << std::setw(10) << pct(a.weighted) << std::setw(10) << "-" << std::setw(12) << noise(cls) << "\n";
    std::string features;
    for (const std::string& f : r.model.features) features += (features.empty() ? "" : " ") + f;
    std::cout << std::left << std::setw(24) << cls << std::setw(12) << "regression" << std::right << std::setw(8)
              << (r.held_out.count ? pct(r.held_out.mape) : "-") << std::setw(8) << (r.held_out.count ? pct(r.held_out.median) : "-")
              << std::setw(8) << (r.held_out.count ? pct(r.held_out.p90) : "-") << std::setw(10) << (r.held_out.count ? pct(r.held_out.weighted) : "-")
              << std::setw(10) << (r.held_out.count ? pct(100 * r.held_out.coverage) : "-") << std::setw(12) << noise(cls) << "  "
              << (r.converged ? features : r.message) << "\n";
    // The family whose held-out times sum closest to the measured ones: an iteration is a sum of
    // kernel times, and its large kernels weigh in it as they do here. The regression must win
    // clearly: it is a surface over the sampled shapes, while the roofline's terms (peak, bytes,
    // tiles) keep their meaning away from them. On the dev VM a GEMM regression 6% better than the
    // roofline on the sample priced the networks' batch-4 classifier GEMMs 48% low (roofline +6%).
    const bool better = r.held_out.count && r.held_out.weighted < kRegressionMargin * a.weighted;
    const std::string family = family_for(o.family, cls);
    if (r.converged && (family == "regression" || (family == "both" && better))) chosen.push_back(r.model);
    if (points)
      for (const fitting::ComputeSample& smp : data.samples) {
        if (smp.kernel_class != cls) continue;
        const double bytes = smp.kernel.bytes_read + smp.kernel.bytes_written;
        const std::string shape = shape_label(smp.kernel);
        points << cls << ",analytic," << smp.kernel.flops << "," << bytes << "," << smp.seconds << "," << fitted_analytic.seconds(smp.kernel, {}) << "," << shape << "\n";
        if (r.converged) points << cls << ",regression," << smp.kernel.flops << "," << bytes << "," << smp.seconds << "," << r.model.seconds(smp.kernel) << "," << shape << "\n";
      }
  }
  if (!spreads_of.empty())
    std::cout << "noise: mean (slowest - fastest) / mean over the kernels several files timed (how many), their samples the median of the runs; "
                 "a held-out error near it is the runs' noise, not the model's\n";
  if (points.is_open()) {
    for (const fitting::ComputeSample& smp : data.samples)
      if (smp.kernel.cls != KernelClass::gemm && smp.kernel.cls != KernelClass::conv)
        points << smp.kernel_class << ",analytic," << smp.kernel.flops << "," << smp.kernel.bytes_read + smp.kernel.bytes_written << "," << smp.seconds << ","
               << fitted_analytic.seconds(smp.kernel, {}) << "," << shape_label(smp.kernel) << "\n";
    points.close();  // drawn by draw_report, once a fit is kept
  }
  nlohmann::json& d = profile["device"];
  d["peak_flops"]["fp32"] = analytic.device.peak_flops.at(MathMode::fp32);
  d["launch_overhead_s"] = analytic.device.launch_overhead_s;
  d["memory_bandwidth"] = analytic.device.memory_bandwidth;
  d["multiprocessors"] = analytic.device.multiprocessors;
  d["pointwise_conv_gemm_below_batch"] = analytic.device.pointwise_conv_gemm_below_batch;
  if (analytic.device.fp32_conv_math == MathMode::tf32_tensor) d["fp32_conv_math"] = "tf32_tensor";
  else d.erase("fp32_conv_math");
  d["efficiency"]["gemm"]["max_efficiency"] = analytic.device.gemm.max_efficiency;
  d["efficiency"]["gemm"]["half_efficiency_k"] = analytic.device.gemm.half_efficiency_k;
  d["efficiency"]["gemm"]["tile_m"] = analytic.device.gemm.tile_m;
  d["efficiency"]["gemm"]["tile_n"] = analytic.device.gemm.tile_n;
  d["efficiency"]["gemm"]["residual_sigma"] = analytic.device.gemm.residual_sigma;
  d["efficiency"]["conv"]["residual_sigma"] = analytic.device.conv.residual_sigma;
  d["efficiency"]["memory"]["residual_sigma"] = analytic.device.memory.residual_sigma;
  d["efficiency"]["gemm"]["shared_sigma"] = analytic.device.gemm.shared_sigma;
  d["efficiency"]["conv"]["shared_sigma"] = analytic.device.conv.shared_sigma;
  d["efficiency"]["memory"]["shared_sigma"] = analytic.device.memory.shared_sigma;
  if (analytic.device.blocked_gemm.enabled()) d["efficiency"]["blocked_gemm"] = blocked_gemm_section(analytic.device.blocked_gemm);
  else d["efficiency"].erase("blocked_gemm");
  d["efficiency"].erase("direct_conv");
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight})
    if (const DirectConv& c = analytic.device.direct_conv[static_cast<int>(phase)]; c.enabled())
      d["efficiency"]["direct_conv"][std::string(phase_name(phase))] = direct_conv_section(c);
  d["efficiency"]["conv"]["max_efficiency"] = analytic.device.conv.max_efficiency;
  d["efficiency"]["conv"]["half_efficiency_k"] = analytic.device.conv.half_efficiency_k;
  d["efficiency"]["conv"]["tile_m"] = analytic.device.conv.tile_m;
  d["efficiency"]["conv"]["tile_n"] = analytic.device.conv.tile_n;
  d["efficiency"]["memory"]["max_efficiency"] = analytic.device.memory.max_efficiency;
  d["efficiency"]["memory"]["half_efficiency_bytes"] = analytic.device.memory.half_efficiency_bytes;
  d["efficiency"]["memory"]["cache_bytes"] = analytic.device.memory.cache_bytes;
  d["efficiency"]["memory"]["dram_slowdown"] = analytic.device.memory.dram_slowdown;
  if (!analytic.device.passes.empty()) {
    nlohmann::json& passes = d["efficiency"]["passes"];
    passes = nlohmann::json::object();
    for (const auto& [name, e] : analytic.device.passes)
      passes[name] = {{"max_efficiency", e.max_efficiency}, {"half_efficiency_bytes", e.half_efficiency_bytes}, {"cache_bytes", e.cache_bytes},
                      {"dram_slowdown", e.dram_slowdown}, {"short_run_element_s", e.short_run_element_s}, {"operation_s", e.operation_s}, {"residual_sigma", e.residual_sigma}, {"shared_sigma", e.shared_sigma}};
  }
  // The upper median (the sorted values' middle, or the higher of the two middles), as the
  // host's times are kept.
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // An asynchronous device's host: the median time to queue one call, per kernel class.
  d.erase("host_dispatch_s");
  d.erase("host_dispatch_sigma");
  if (!data.dispatch_seconds.empty()) {
    std::cout << "host dispatch (median time to queue one call):";
    std::vector<double> deviations;  // |log(time / its class's median)|, pooled
    for (const auto& [cls, seconds] : data.dispatch_seconds) {
      const double typical = median(seconds);
      d["host_dispatch_s"][cls] = typical;
      for (const double s : seconds) deviations.push_back(std::abs(std::log(s / typical)));
      std::cout << " " << cls << " " << fixed(typical * 1e6, 1) << " us" << (&cls == &data.dispatch_seconds.rbegin()->first ? "" : ",");
    }
    const double sigma = 1.4826 * median(deviations);  // the median absolute deviation of a normal
    d["host_dispatch_sigma"] = sigma;
    std::cout << "; spread " << fixed(sigma, 2) << " in log terms; steps are priced on two timelines, the host's and the device's\n";
  }
  // The host's time per framework op: where the host drives an asynchronous device, it replaces
  // the op's kernels' dispatch times; on a CPU the same thread runs it before the op's kernels.
  d.erase("host_op_s");
  if (!data.op_host_seconds.empty()) {
    std::cout << "host time per op (median forward / backward):";
    for (const auto& [kind, times] : data.op_host_seconds) {
      std::vector<double> forward, backward;
      for (const auto& [f, b] : times) forward.push_back(f), backward.push_back(b);
      const double f = median(forward), b = median(backward);
      d["host_op_s"][kind] = {{"forward", f}, {"backward", b}};
      std::cout << " " << kind << " " << fixed(f * 1e6, 1) << "/" << fixed(b * 1e6, 1) << " us" << (&kind == &data.op_host_seconds.rbegin()->first ? "" : ",");
    }
    std::cout << (data.dispatch_seconds.empty() ? "; a step runs them before their ops' kernels, on the same thread\n"
                                                : "; these ops' host times replace their kernels' dispatch times\n");
  }
  fit_step_warmth(data, analytic.device.memory.cache_bytes, profile.value("measured_on", nlohmann::json::object()), d);
  profile["compute_regression"] = compute_regression_section(chosen);
  profile["reference_kernels"] = measured_kernels_section(reference_kernels(data.samples));
  // Kept from the base profile where these files timed no memory pass large enough.
  if (const std::vector<ReferencePass> passes = reference_passes(o.files); !passes.empty()) {
    profile["reference_passes"] = reference_passes_section(passes);
    std::cout << "reference passes: " << passes.size() << " memory passes over " << (kReferencePassBytes >> 20) << " MiB and more kept with their times, for validate to time again\n";
  }
  if (o.measured_kernels) {
    std::vector<std::pair<Kernel, double>> table;
    for (const fitting::ComputeSample& smp : data.samples)
      if (smp.kernel.cls == KernelClass::gemm || smp.kernel.cls == KernelClass::conv) table.emplace_back(smp.kernel, smp.seconds);
    profile["measured_kernels"] = measured_kernels_section(table);
    std::cout << "measured kernels: " << table.size() << " GEMMs and convolutions priced by their measured time\n";
  }
  // Which files' times were scaled, and by what: the profile's prices are the reference files' speed.
  std::string scaled;
  for (const fitting::SessionSpeed& s : data.sessions) {
    if (s.reference == s.session) continue;
    std::ostringstream line;
    line << std::fixed << std::setprecision(3) << (scaled.empty() ? "" : "; ") << s.session << " divided by " << s.overall.applied;
    for (const auto& [cls, f] : s.per_class) line << ", " << cls << " " << f.applied;
    scaled += line.str() + " (to " + s.reference + "'s speed)";
  }
  if (!scaled.empty()) profile["sources"]["sessions"] = "dnnperf fit put files on one speed by the kernels they share (fitting/compute/session_speed.h): " + scaled;
  profile["sources"]["device.efficiency"] = "analytic family fitted by dnnperf fit on " + bench::utc_now() + " from " + sources +
                                            " (" + data.device + "; effective fp32 peak, launch, bandwidth and efficiencies; " +
                                            (analytic.converged ? "converged" : "did not converge: " + analytic.message) + ")";
  for (const fitting::StructuralChoice& c : analytic.choices) {
    std::cout << "analytic " << c.kernel_class << ": " << c.model << " model held-out MAPE " << pct(c.structural.mape) << "% (weighted "
              << pct(c.structural.weighted) << "%) against tiles " << pct(c.tiled.mape) << "% (weighted " << pct(c.tiled.weighted) << "%): "
              << (c.kept ? "kept" : "tiles kept");
    if (c.folds_without > 0)
      std::cout << " (not fitted in " << c.folds_without << " of 5 folds: too few measurements of the class to train on; those folds' kernels "
                << "priced by the tiles. Measure more of them: a longer --time-budget)";
    const BlockedGemm& b = analytic.device.blocked_gemm;
    if (c.kept && c.kernel_class == "gemm") {
      std::cout << ", blocks of " << b.block << ", vectors of " << b.vector_width;
      for (int dim = 0; dim < 3; ++dim)
        if (b.cleanup_width[dim]) std::cout << " (clean-up along " << "mnk"[dim] << " also in " << b.cleanup_width[dim] << "s)";
      std::cout << ", " << fixed(b.block_flops / 1e9, 1) << " GFLOP/s in whole blocks";
    }
    std::cout << "\n";
  }
  for (const std::string& line : analytic.too_few) std::cout << "analytic " << line << " (measure more of them: a longer --time-budget)\n";
  std::cout << "analytic fit: effective fp32 peak " << fixed(analytic.device.peak_flops.at(MathMode::fp32) / 1e9, 1) << " GFLOP/s, launch "
            << fixed(analytic.device.launch_overhead_s * 1e6, 2) << " us, bandwidth " << fixed(analytic.device.memory_bandwidth / 1e9, 1)
            << " GB/s (passes beyond ~" << fixed(analytic.device.memory.cache_bytes / 1048576, 1) << " MiB up to "
            << fixed(analytic.device.memory.dram_slowdown, 2) << "x slower) (" << (analytic.converged ? "converged" : analytic.message) << "); regression chosen for " << chosen.size() << " of " << analytic.held_out.size() << " classes\n\n";
  return fitted;
}

/// DDP's own seconds per step (device.ddp_step_overhead_s), per rank count, from the co-running
/// records' DDP steps and the profile just fitted: each network's DDP steps less its synchronised
/// steps (both measured) is the communication as the step paid it; less its buckets' all-reduces
/// and copies as priced, what DDP adds besides. The median over the networks, printed with each.
void fit_ddp_overhead(const std::vector<fitting::ComputeData::DdpStep>& steps, nlohmann::json& profile, const std::string& sources) {
  if (steps.empty()) return;
  const HardwareProfile hw = hardware_profile_from_json(profile, "the fitted profile");
  // DDP all-reduces through its framework's library: that one's measured model where fitted.
  const std::string library = hw.device.kind == "gpu" ? "nccl" : "gloo";
  const bool library_model = find_comm_model(hw, "allreduce", library_choice_name(library)) != nullptr;
  std::map<int, std::vector<const fitting::ComputeData::DdpStep*>> by_ranks;
  for (const auto& s : steps) by_ranks[s.ranks].push_back(&s);
  std::cout << "\nDDP steps against their synchronised steps plus their buckets' all-reduces and copies as priced"
            << (library_model ? " (" + library + "'s measured all-reduce)" : " (no model of " + library + "'s all-reduce: the fitted algorithms)") << "\n";
  std::cout << std::left << std::setw(22) << "network" << std::right << std::setw(7) << "ranks" << std::setw(10) << "MiB" << std::setw(9) << "buckets"
            << std::setw(12) << "added ms" << std::setw(12) << "priced ms" << std::setw(12) << "beyond ms" << "\n";
  for (const auto& [ranks, list] : by_ranks) {
    ParallelPlan plan;
    plan.devices_per_node = ranks;
    if (library_model) plan.allreduce_library = library;
    std::vector<double> beyond;
    for (const fitting::ComputeData::DdpStep* s : list) {
      const double priced = bucket_communication_seconds(hw, plan, s->bucket_bytes);
      beyond.push_back(s->added_s - priced);
      std::cout << std::left << std::setw(22) << s->network << std::right << std::setw(7) << ranks << std::setw(10)
                << fixed(std::accumulate(s->bucket_bytes.begin(), s->bucket_bytes.end(), 0.0) / 1048576, 1) << std::setw(9) << s->bucket_bytes.size()
                << std::setw(12) << fixed(1e3 * s->added_s, 1) << std::setw(12) << fixed(1e3 * priced, 1) << std::setw(12) << fixed(1e3 * beyond.back(), 1) << "\n";
    }
    std::sort(beyond.begin(), beyond.end());
    const std::size_t n = beyond.size();
    const double median = n % 2 ? beyond[n / 2] : 0.5 * (beyond[n / 2 - 1] + beyond[n / 2]);
    // A step's own work cannot be negative: below zero the all-reduces are priced above what the
    // steps paid for them, which no per-step term should hide.
    const double kept = std::max(median, 0.0);
    profile["device"]["ddp_step_overhead_s"][std::to_string(ranks)] = kept;
    std::cout << "DDP's own work at " << ranks << " ranks: " << fixed(1e3 * median, 1) << " ms per step (median of " << n << " networks; "
              << fixed(1e3 * beyond.front(), 1) << " to " << fixed(1e3 * beyond.back(), 1) << ")"
              << (median < 0 ? ": below zero, none kept (the all-reduces are priced above what the steps paid)" : "; data-parallel steps are priced with it (device.ddp_step_overhead_s)")
              << "\n";
  }
  profile["sources"]["device.ddp_step_overhead_s"] = "dnnperf fit on " + bench::utc_now() + " from " + sources;
}

/// The map of which algorithm a library's choice runs where, one line per rank count.
std::string describe_library_choices(const std::vector<LibraryChoice>& choices) {
  std::ostringstream text;
  text << "the library's choice, as its times match dnnperf's own algorithms (model dnnperf+map prices it so):";
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const bool first = i == 0 || choices[i - 1].ranks != choices[i].ranks;
    text << (first ? "\n  " + std::to_string(choices[i].ranks) + " ranks: " : ", ") << choices[i].algorithm;
    if (i + 1 < choices.size() && choices[i + 1].ranks == choices[i].ranks)
      text << " below " << static_cast<long long>(choices[i + 1].from_bytes) << " B";
    else
      text << (first ? " throughout" : " above");
  }
  return text.str() + "\n";
}

/// A fitted profile and how well it priced the --steps runs (their RMS log error; nullopt without).
struct FittedProfile {
  nlohmann::json profile;
  std::optional<double> steps_rms;
};

FittedProfile fit_profile(const FitOptions& o) {
  const auto kinds = parse_models(o.models);
  const HardwareProfile base = find_hardware_profile(o.hardware);
  nlohmann::json profile = read_json_file(base.path);
  std::string sources;
  for (const std::string& f : o.files) sources += (sources.empty() ? "" : ", ") + f;
  // Files that do not name their CPU or allocator (measured before 2026-12-02) leave the base
  // profile's.
  if (const nlohmann::json on = measured_on(o.files); !on.empty()) {
    for (const auto& [key, value] : on.items()) profile["measured_on"][key] = value;
    if (on.contains("cpu")) std::cout << "measured on: " << describe_cpu(on["cpu"]) << "\n";
    if (on.contains("allocator")) std::cout << "allocator: " << on["allocator"].get<std::string>() << "\n";
  }
  const ComputeFitted fitted = fit_compute(o, base, profile, sources);
  const bool compute = fitted.models;
  // A base profile's step spread was measured against other kernel models: refitted ones need
  // their own (--steps).
  if (compute && profile.contains("device")) profile["device"].erase("step_sigma");
  const fitting::CommData data = fitting::load_comm_data(o.files, o.collective);
  for (const fitting::Exclusion& e : data.excluded) std::cout << "excluded: " << e.where << ": " << e.reason << "\n";
  if (data.samples.empty()) {
    if (!compute && !fitted.co_running) throw InputError("no usable " + o.collective + " or compute measurements in the given files");
    if (!fitted.ddp_steps.empty())
      std::cout << "DDP steps measured, but no all-reduce measurements to price their buckets with: DDP's own work per step not fitted "
                   "(give the all-reduce records too, e.g. torch_cpu_allreduce.jsonl)\n";
    const std::optional<double> rms = fit_step_spread(o, profile, fitted.timed);
    return {profile, rms};
  }

  std::vector<std::string> algorithms;
  std::set<int> ranks;
  for (const CommSample& s : data.samples) {
    if (std::find(algorithms.begin(), algorithms.end(), s.algorithm) == algorithms.end()) algorithms.push_back(s.algorithm);
    ranks.insert(s.ranks);
  }
  std::cout << data.samples.size() << " " << o.collective << " measurements from " << data.host << ", " << algorithms.size()
            << " algorithms, ranks";
  for (int r : ranks) std::cout << " " << r;
  std::cout << "\n\nheld-out error (%): sizes held out in 4 folds; each rank count held out in turn\n";
  std::cout << std::left << std::setw(28) << "algorithm" << std::setw(12) << "model" << std::right << std::setw(8) << "MAPE"
            << std::setw(8) << "median" << std::setw(8) << "p90" << std::setw(10) << "in 95%" << std::setw(12) << "MAPE ranks"
            << std::setw(10) << "in 95%" << std::setw(9) << "noise" << "  fit\n";
  std::vector<FittedCommModel> chosen;
  nlohmann::json report = nlohmann::json::array();
  std::ofstream points, held_out;
  if (!o.plots.empty()) {
    std::filesystem::create_directories(o.plots);
    points.open(o.plots + "/fit_points.csv");
    points << "algorithm,model,bytes,ranks,measured_s,predicted_s,low_s,high_s\n";
    held_out.open(o.plots + "/held_out_points.csv");
    held_out << "algorithm,model,held_out,bytes,ranks,measured_s,predicted_s,low_s,high_s,error_percent\n";
  }
  bool repeated = false;
  std::string library_map;
  // dnnperf's own algorithms, timed beside the library's choice: they tell which one it runs where.
  std::vector<CommSample> own;
  for (const CommSample& s : data.samples)
    if (!is_library_choice(s.algorithm)) own.push_back(s);
  for (const std::string& algorithm : algorithms) {
    const auto samples = fitting::of_algorithm(data.samples, algorithm);
    // The library's choice is fitted once as recursive doubling throughout and once with the map of
    // which algorithm it runs where (where dnnperf's own were timed beside it): sizes inside a
    // narrow band of the library's decision table cannot be placed from their neighbours, and the
    // held-out error decides whether the map helps.
    std::vector<std::vector<CommSample>> variants = {{}};
    if (algorithm == "default") {
      const auto choices = fitting::infer_library_choices(samples, own);
      if (!choices.empty()) {
        variants.push_back(own);
        library_map = describe_library_choices(choices);
      }
    }
    // Run-to-run noise where several files timed the same points: the floor for any model.
    std::vector<double> spreads;
    for (const CommSample& s : samples)
      if (s.runs > 1) spreads.push_back(100 * s.run_spread);
    const double noise = spreads.empty() ? 0.0 : std::accumulate(spreads.begin(), spreads.end(), 0.0) / static_cast<double>(spreads.size());
    repeated = repeated || !spreads.empty();
    std::optional<std::pair<double, FittedCommModel>> best;
    for (CommModelKind kind : kinds) for (const std::vector<CommSample>& alternatives : variants) {
      if (kind != CommModelKind::dnnperf && !alternatives.empty()) continue;  // the classics price one algorithm's steps
      const std::string model_name = std::string(comm_model_name(kind)) + (alternatives.empty() ? "" : "+map");
      const fitting::FitOutcome fit = fitting::fit_comm_model(kind, algorithm, samples, alternatives);
      const fitting::CrossValidation cv = fitting::cross_validate(kind, algorithm, samples, alternatives);
      // Too few sizes to hold any out (fewer than the model's parameters per fold): no figures, not zeros.
      const bool sized = cv.held_out_sizes.count > 0;
      std::cout << std::left << std::setw(28) << algorithm << std::setw(12) << model_name << std::right << std::setw(8)
                << (sized ? pct(cv.held_out_sizes.mape) : "-") << std::setw(8) << (sized ? pct(cv.held_out_sizes.median) : "-") << std::setw(8)
                << (sized ? pct(cv.held_out_sizes.p90) : "-") << std::setw(10) << (sized ? pct(100 * cv.held_out_sizes.coverage) : "-") << std::setw(12)
                << (cv.held_out_ranks.count ? pct(cv.held_out_ranks.mape) : "-") << std::setw(10)
                << (cv.held_out_ranks.count ? pct(100 * cv.held_out_ranks.coverage) : "-") << std::setw(9)
                << (spreads.empty() ? "-" : pct(noise)) << "  " << fit.message << "\n";
      report.push_back({{"algorithm", algorithm}, {"model", model_name}, {"converged", fit.converged},
                        {"held_out_sizes", {{"mape", cv.held_out_sizes.mape}, {"median", cv.held_out_sizes.median}, {"p90", cv.held_out_sizes.p90}, {"coverage", cv.held_out_sizes.coverage}}},
                        {"held_out_ranks", {{"mape", cv.held_out_ranks.mape}, {"median", cv.held_out_ranks.median}, {"p90", cv.held_out_ranks.p90}, {"coverage", cv.held_out_ranks.coverage}, {"count", cv.held_out_ranks.count}}},
                        {"run_to_run_noise", spreads.empty() ? nlohmann::json(nullptr) : nlohmann::json{{"mean_percent", noise}, {"points", spreads.size()}}}});
      for (const fitting::HeldOutPoint& h : cv.points)
        if (held_out)
          held_out << algorithm << "," << model_name << "," << (h.by_ranks ? "ranks" : "sizes") << "," << h.sample.bytes << ","
                   << h.sample.ranks << "," << h.sample.seconds << "," << h.prediction.seconds << "," << h.prediction.low << ","
                   << h.prediction.high << "," << 100 * (h.prediction.seconds - h.sample.seconds) / h.sample.seconds << "\n";
      if (!fit.converged) continue;
      if (points)
        for (const CommSample& s : samples) {
          const CommPrediction p = fit.model.predict(s.bytes, s.ranks);
          points << algorithm << "," << model_name << "," << s.bytes << "," << s.ranks << "," << s.seconds << ","
                 << p.seconds << "," << p.low << "," << p.high << "\n";
        }
      const double score = cv.held_out_sizes.count ? cv.held_out_sizes.mape : 1e9;
      if (!best || score < best->first) {
        best = {score, fit.model};
        // How far off a rank count the fit has no model of has been: into its intervals.
        if (!best->second.at_ranks.empty()) best->second.unmeasured_ranks_sigma = std::min(cv.held_out_ranks_sigma, 9.0);
      }
    }
    if (best) chosen.push_back(best->second);
  }

  // Which algorithm to use, by the chosen models, against the library's default.
  const FittedCommModel* fallback = nullptr;
  for (const FittedCommModel& m : chosen)
    if (m.algorithm == "default") fallback = &m;
  if (repeated)
    std::cout << "noise: mean (slowest - fastest) / mean over the points several files timed; a model's held-out error near it is noise, not model\n";
  std::cout << library_map;
  std::cout << "\nalgorithm selection (chosen models; gain over the library default where it was measured)\n";
  std::cout << std::right << std::setw(7) << "ranks" << std::setw(12) << "bytes" << "  " << std::left << std::setw(20) << "best"
            << std::right << std::setw(12) << "best us" << std::setw(14) << "default us" << std::setw(9) << "gain %" << "\n";
  int max_rank = *ranks.rbegin();
  for (int p : {2, 3, 4, 8, 16, 64}) {
    if (p > 4 * max_rank) break;
    for (double b = 4; b <= 64.0 * 1024 * 1024; b *= 16) {
      const FittedCommModel* pick = nullptr;
      double t = 0;
      for (const FittedCommModel& m : chosen) {
        if (is_library_choice(m.algorithm)) continue;
        const double s = m.seconds(b, p);
        if (!pick || s < t) pick = &m, t = s;
      }
      if (!pick) continue;
      std::cout << std::setw(7) << p << std::setw(12) << static_cast<long long>(b) << "  " << std::left << std::setw(20)
                << pick->algorithm << std::right << std::setw(12) << fixed(1e6 * t, 1);
      if (fallback) {
        const double d = fallback->seconds(b, p);
        std::cout << std::setw(14) << fixed(1e6 * d, 1) << std::setw(9) << fixed(100 * (d / t - 1), 1);
      }
      std::cout << (p > max_rank ? "  (extrapolated)" : "") << "\n";
    }
  }

  profile["communication"] = communication_section(chosen);
  profile["sources"]["communication"] = "fitted by dnnperf fit on " + bench::utc_now() + " from " + sources + " (host " + data.host + ")";
  fit_ddp_overhead(fitted.ddp_steps, profile, sources);
  const std::optional<double> rms = fit_step_spread(o, profile, fitted.timed);
  if (!o.plots.empty()) {
    std::ofstream(o.plots + "/fit_report.json") << report.dump(2) << "\n";
    points.close();
    held_out.close();
  }
  return {profile, rms};
}

/// The report's plots, from the points a kept fit wrote into `dir` (compute_points.csv, fit_points.csv),
/// and whether the analytic family's error is still a function of the shape (scripts/residual_structure.py).
void draw_report(const std::string& dir) {
  if (dir.empty()) return;
  const std::string scripts = std::string(DNNPERF_SOURCE_DIR) + "/scripts/";
  if (std::filesystem::exists(dir + "/compute_points.csv")) {
    const std::string plot = "/usr/bin/python3 '" + scripts + "plot_compute_fit.py' '" + dir + "/compute_points.csv' >/dev/null 2>&1";
    std::cout << (std::system(plot.c_str()) == 0 ? "compute plots in " + dir + "\n" : "compute plots not made (matplotlib missing?); data in " + dir + "/compute_points.csv\n");
    const std::string structure = "/usr/bin/python3 '" + scripts + "residual_structure.py' '" + dir + "/compute_points.csv' > '" + dir + "/residual_structure.txt' 2>&1";
    std::cout << (std::system(structure.c_str()) == 0 ? "is the analytic family's error left in the shape: " + dir + "/residual_structure.txt\n"
                                                      : "residual structure not examined (scikit-learn missing?): " + dir + "/residual_structure.txt\n");
  }
  if (std::filesystem::exists(dir + "/fit_points.csv")) {
    const std::string plot = "/usr/bin/python3 '" + scripts + "plot_fit.py' '" + dir + "/fit_points.csv' >/dev/null 2>&1";
    std::cout << (std::system(plot.c_str()) == 0 ? "plots in " + dir + "\n" : "plots not made (matplotlib missing?); data in " + dir + "/fit_points.csv\n");
  }
}

/// Sends std::cout to a string while it lives: a candidate fit's report, printed only if kept.
class CapturedOutput {
 public:
  CapturedOutput() : previous_(std::cout.rdbuf(text_.rdbuf())) {}
  ~CapturedOutput() { std::cout.rdbuf(previous_); }
  CapturedOutput(const CapturedOutput&) = delete;
  CapturedOutput& operator=(const CapturedOutput&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* previous_;
};

void run_fit(const FitOptions& options) {
  if (options.files.empty()) throw InputError("no measurement files");
  family_for(options.family, "gemm");  // refuse a malformed --family before any work
  const std::vector<double> exponents = time_weight_exponents(options);
  if (exponents.size() == 1) {
    FitOptions o = options;
    o.time_exponent = exponents.front();
    const FittedProfile fitted = fit_profile(o);
    draw_report(o.plots);
    write_profile(o, fitted.profile);
    return;
  }
  // Each candidate whole, its report held back; the kept one's is printed and drawn. Candidates
  // after the first write their report's points to a folder of their own.
  struct Candidate {
    double exponent;
    FittedProfile fitted;
    std::string report;
    std::string plots;
  };
  std::vector<Candidate> candidates;
  for (const double exponent : exponents) {
    FitOptions o = options;
    o.time_exponent = exponent;
    if (!o.plots.empty() && !candidates.empty()) o.plots += "/time_weight_" + fixed(exponent, 2);
    CapturedOutput captured;
    FittedProfile fitted = fit_profile(o);
    candidates.push_back({exponent, std::move(fitted), captured.text(), o.plots});
  }
  const Candidate* kept = &candidates.front();
  for (const Candidate& c : candidates)
    if (c.fitted.steps_rms && (!kept->fitted.steps_rms || *c.fitted.steps_rms < *kept->fitted.steps_rms - 1e-9)) kept = &c;
  std::cout << kept->report;
  draw_report(kept->plots);
  std::string tried;
  for (const Candidate& c : candidates)
    tried += (tried.empty() ? "" : ", ") + fixed(c.exponent, 2) + ": " + (c.fitted.steps_rms ? fixed(100 * *c.fitted.steps_rms, 1) + "%" : std::string("-"));
  std::cout << "\ntime weight of the structural fits chosen on the --steps runs (their RMS log error at each exponent: " << tried << "): kept "
            << fixed(kept->exponent, 2) << (kept->exponent > 0 ? "" : " (unweighted)") << "\n";
  nlohmann::json profile = kept->fitted.profile;
  profile["sources"]["time_weight"] = "structural GEMM and convolution fits weighted by (time / class median)^" + fixed(kept->exponent, 2) +
                                      ", chosen on the --steps runs' RMS log error (" + tried + ")";
  write_profile(options, profile);
}

struct CommOptions {
  std::string hardware = "cpu";
  std::string collective = "allreduce";
  double bytes = 0;
  int procs = 0;
  std::string algorithm = "best";
  bool json = false;
};

void run_comm(const CommOptions& o) {
  if (!(o.bytes > 0)) throw InputError("--bytes must be positive");
  if (o.procs < 1) throw InputError("--procs must be positive");
  if (o.collective != "allreduce") throw InputError("--collective: only allreduce has models in this version");
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  nlohmann::json out = {{"collective", o.collective}, {"bytes", o.bytes}, {"procs", o.procs}};
  const bool fitted = !hw.communication.empty();
  if (fitted) {
    const FittedCommModel* m = nullptr;
    if (o.algorithm == "best") {
      for (const FittedCommModel& c : hw.communication)
        if (c.collective == o.collective && !is_library_choice(c.algorithm) &&
            (!m || c.seconds(o.bytes, o.procs) < m->seconds(o.bytes, o.procs)))
          m = &c;
    } else {
      m = find_comm_model(hw, o.collective, is_library_name(o.algorithm) ? library_choice_name(o.algorithm) : o.algorithm);
    }
    if (!m) throw InputError("profile '" + hw.name + "' has no fitted " + o.collective + " model for '" + o.algorithm + "'");
    const CommPrediction p = m->predict(o.bytes, o.procs);
    const FittedCommModel& priced_by = m->for_ranks(o.procs);
    out.update({{"algorithm", m->algorithm}, {"model", comm_model_name(m->kind)}, {"seconds", p.seconds}, {"low", p.low}, {"high", p.high}, {"calibrated", true},
                // Priced by a fit of this rank count alone (it was measured), or by the model of all counts.
                {"ranks_measured", &priced_by != m}});
    if (!priced_by.library_choices.empty()) out["library_runs"] = std::string(priced_by.steps_of(o.bytes, o.procs));
  } else {
    if (o.algorithm == "default") throw InputError("'default' is the library's measured choice: fit the profile first (dnnperf fit)");
    CommGroup g;
    g.ranks = o.procs;
    g.ranks_per_node = std::min(o.procs, hw.node.devices);
    g.intra = {hw.node.intra.latency_s, 1.0 / hw.node.intra.bandwidth};
    g.inter = {hw.cluster.inter.latency_s, 1.0 / hw.cluster.inter.bandwidth};
    g.nics_per_node = hw.cluster.nics_per_node;
    g.gamma = 3.0 / hw.device.memory_bandwidth;
    std::pair<AllReduceAlgorithm, double> r;
    if (o.algorithm == "best") r = best_allreduce(o.bytes, g);
    else {
      const auto a = parse_allreduce(o.algorithm);
      if (!a) throw InputError("--algorithm: unknown '" + o.algorithm + "'");
      r = {*a, allreduce_seconds(*a, o.bytes, g)};
    }
    out.update({{"algorithm", allreduce_name(r.first)}, {"model", "datasheet alpha-beta-gamma"}, {"seconds", r.second}, {"low", r.second}, {"high", r.second}, {"calibrated", false}});
  }
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << o.collective << " of " << static_cast<long long>(o.bytes) << " bytes over " << o.procs << " processes on " << hw.name
            << ": " << fixed(out["seconds"].get<double>() * 1e6, 2) << " us";
  if (fitted) std::cout << " (95% interval " << fixed(out["low"].get<double>() * 1e6, 2) << " - " << fixed(out["high"].get<double>() * 1e6, 2) << " us)";
  std::cout << ", " << out["algorithm"].get<std::string>();
  if (out.contains("library_runs")) std::cout << " (running " << out["library_runs"].get<std::string>() << " here)";
  std::cout << ", " << out["model"].get<std::string>() << (fitted ? "" : " (uncalibrated)");
  if (fitted) std::cout << (out["ranks_measured"].get<bool>() ? ", fitted to this rank count" : ", from the rank counts measured");
  std::cout << "\n";
}

}  // namespace

void fit_files(const std::vector<std::string>& files, const std::string& hardware, const std::string& output, const std::string& report,
               bool measured_kernels, const std::string& steps, const std::string& step_networks, const std::string& step_warmth) {
  FitOptions o;
  o.steps = steps;
  o.step_warmth = step_warmth;
  o.step_networks = step_networks;
  o.measured_kernels = measured_kernels;
  o.files = files;
  o.hardware = hardware;
  o.output = output;
  o.plots = report;
  run_fit(o);
}

void add_fit_command(CLI::App& app) {
  auto o = std::make_shared<FitOptions>();
  CLI::App* c = app.add_subcommand("fit", "Fit communication models to measurements; write a calibrated profile and error tables");
  c->add_option("measurements", o->files, "measurement files (JSON Lines from dnnperf bench)")->required();
  c->add_option("--hardware", o->hardware, "base profile to calibrate (name or path)")->capture_default_str();
  c->add_option("-o,--output", o->output, "calibrated profile to write");
  c->add_option("--collective", o->collective, "collective to fit")->capture_default_str();
  c->add_option("--models", o->models, "models to fit and compare")->capture_default_str();
  c->add_option("--report", o->plots, "folder for the report: fit_report.json, fit_points.csv (fitted), held_out_points.csv (cross-validated) and plots");
  c->add_option("--family", o->family,
                "compute family for GEMMs and convolutions: analytic (the roofline), regression, or both (per class, the one with the lower time-weighted held-out error); or per class, e.g. gemm=analytic,conv=both")
      ->capture_default_str();
  c->add_flag("--per-image-gemms", o->per_image_gemms,
              "fit and price the convolutions the measuring framework runs as per-image GEMMs (PyTorch on one CPU thread: 1x1, batch under 16) as those GEMMs (class per_image_gemm)");
  c->add_option("--steps", o->steps,
                "ground-truth runs of networks other than those to be validated (a `validate --save-measured` folder): the error of whole steps beyond their kernels' enters the prediction intervals (device.step_sigma), and where hot pairs fitted a step's warmth, they fit the share of it steps realize (device.step_warmth.realized_share)");
  c->add_option("--step-networks", o->step_networks, "folder of the --steps runs' (and --step-warmth records') network files, where they are not at the recorded path");
  c->add_option("--step-warmth", o->step_warmth,
                "convolutions of networks other than those to be validated, timed inside their steps and alone (scripts/torch_step_warmth.py): where hot pairs fitted a step's warmth, the share of it that training steps and inferences realize, fitted on these rather than on whole --steps runs");
  c->add_option("--dtype", o->dtype, "element type of the GEMMs and convolutions to fit (one per fit; default: f32 where measured, else the most measured)");
  c->add_flag("--measured-kernels", o->measured_kernels, "also keep the measured GEMMs and convolutions: kernels of those shapes are priced by their measured time");
  c->add_option("--time-weight", o->time_weight,
                "weigh each GEMM and convolution in the structural fits by (its time / its class's median)^X, X from 0 (alike) to 2; auto: with --steps, "
                "fit with 0 and 0.5 and keep the one whose predictions of the runs err least, else 0")
      ->capture_default_str();
  c->callback([o] { run_fit(*o); });
}

void add_comm_command(CLI::App& app) {
  auto o = std::make_shared<CommOptions>();
  CLI::App* c = app.add_subcommand("comm", "Predict one collective's time with a (fitted) profile");
  c->add_option("--hardware", o->hardware, "profile: name or path (a fitted one for intervals and 'default')")->capture_default_str();
  c->add_option("--collective", o->collective, "collective")->capture_default_str();
  c->add_option("--bytes", o->bytes, "message size in bytes")->required();
  c->add_option("--procs", o->procs, "number of processes")->required();
  c->add_option("--algorithm", o->algorithm, "ring, recursive_doubling, rabenseifner, binomial_tree, hierarchical, best, or a library's measured choice: default (MPI's), gloo, nccl")->capture_default_str();
  c->add_flag("--json", o->json, "print one JSON object");
  c->callback([o] { run_comm(*o); });
}

}  // namespace dnnperf::cli
