// A whole profile fit: the sections in order, the communication models, the report and the profile written.
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
#include "calibration/step_process.h"
#include "core/common/error.h"
#include "core/common/output_file.h"
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
#include "profile/profile_writer.h"
#include "records/kernel_record.h"
#include "records/measurement.h"
#include "validation/ground_truth.h"
#include "validation/in_step_warmth.h"

namespace dnnperf::calibration {

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

namespace {

using fitting::CommSample;

/// The fitted document, checked by the profile's reader and written whole by its writer.
void write_profile(std::ostream& log, const FitOptions& o, const nlohmann::json& profile) {
  if (o.output.empty()) return;
  write_hardware_profile(hardware_profile_from_json(profile, o.output + " (as fitted)"), o.output);
  log << "\nwrote " << o.output << "\n";
}

/// A fitted profile and how well it priced the --steps runs (their RMS log error; nullopt without).
struct FittedProfile {
  nlohmann::json profile;
  std::optional<double> steps_rms;
};

FittedProfile fit_profile(std::ostream& log, const FitOptions& o) {
  const auto kinds = parse_models(o.models);
  const HardwareProfile base = find_hardware_profile(o.hardware);
  nlohmann::json profile = read_json_file(base.path);
  std::string sources;
  for (const std::string& f : o.files) sources += (sources.empty() ? "" : ", ") + f;
  // Files that do not name their CPU or allocator (measured before 2026-12-02) leave the base
  // profile's.
  if (const nlohmann::json on = measured_on(log, o.files); !on.empty()) {
    for (const auto& [key, value] : on.items()) profile["measured_on"][key] = value;
    if (on.contains("cpu")) log << "measured on: " << describe_cpu(on["cpu"]) << "\n";
    if (on.contains("allocator")) log << "allocator: " << on["allocator"].get<std::string>() << "\n";
  }
  const ComputeFitted fitted = fit_compute(log, o, base, profile, sources);
  const bool compute = fitted.models;
  // A base profile's step spread was measured against other kernel models: refitted ones need
  // their own (--steps).
  if (compute && profile.contains("device")) profile["device"].erase("step_sigma");
  const fitting::CommData data = fitting::load_comm_data(o.files, o.collective);
  fitting::log_exclusions(log, data.excluded);
  if (data.samples.empty()) {
    if (!compute && !fitted.co_running) throw InputError("no usable " + o.collective + " or compute measurements in the given files");
    if (!fitted.ddp_steps.empty())
      log << "DDP steps measured, but no all-reduce measurements to price their buckets with: DDP's own work per step not fitted "
                   "(give the all-reduce records too, e.g. torch_cpu_allreduce.jsonl)\n";
    const std::optional<double> rms = fit_step_spread(log, o, profile, fitted.timed);
    return {profile, rms};
  }

  // Each algorithm in each mode it was timed in is a model of its own.
  std::vector<std::pair<std::string, CommMode>> algorithms;
  std::set<std::string> algorithm_names;
  std::set<int> ranks;
  for (const CommSample& s : data.samples) {
    if (std::find(algorithms.begin(), algorithms.end(), std::pair{s.algorithm, s.mode}) == algorithms.end()) algorithms.emplace_back(s.algorithm, s.mode);
    algorithm_names.insert(s.algorithm);
    ranks.insert(s.ranks);
  }
  log << data.samples.size() << " " << o.collective << " measurements from " << data.host << ", " << algorithm_names.size()
            << " algorithms, ranks";
  for (int r : ranks) log << " " << r;
  log << "\n\nheld-out error (%): sizes held out in 4 folds; each rank count held out in turn\n";
  log << std::left << std::setw(28) << "algorithm" << std::setw(19) << "model" << std::right << std::setw(8) << "MAPE"
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
  for (const auto& [algorithm, mode] : algorithms) {
    const auto samples = fitting::of_algorithm(data.samples, algorithm, mode);
    // dnnperf's own algorithms, timed beside the library's choice in the same mode: they tell which one it runs where.
    std::vector<CommSample> own;
    for (const CommSample& s : data.samples)
      if (!is_library_choice(s.algorithm) && s.mode == mode) own.push_back(s);
    const std::string label = algorithm + (mode == CommMode::stream ? " (stream)" : "");
    // The library's choice is fitted once as recursive doubling throughout and once with the map of
    // which algorithm it runs where (where dnnperf's own were timed beside it): sizes inside a
    // narrow band of the library's decision table cannot be placed from their neighbours, and the
    // held-out error decides whether the map helps.
    std::vector<std::vector<CommSample>> variants = {{}};
    if (algorithm == "default") {
      const auto choices = fitting::infer_library_choices(samples, own);
      if (!choices.empty()) {
        variants.push_back(own);
        library_map += (mode == CommMode::stream ? "streamed calls: " : "") + describe_library_choices(choices);
      }
    }
    // Run-to-run noise where several files timed the same points: the floor for any model.
    const fitting::RunNoise noise = fitting::run_noise(samples);
    repeated = repeated || noise.points > 0;
    std::optional<std::pair<double, FittedCommModel>> best;
    // dnnperf's model also with what its form missed at each measured size (+sizes): kept where
    // held-out sizes, priced between their measured neighbours, say it helps.
    for (CommModelKind kind : kinds) for (const std::vector<CommSample>& alternatives : variants) for (const bool sized : {false, true}) {
      if (kind != CommModelKind::dnnperf && (!alternatives.empty() || sized)) continue;  // the classics price one algorithm's steps by their form
      const std::string model_name = std::string(comm_model_name(kind)) + (alternatives.empty() ? "" : "+map") + (sized ? "+sizes" : "");
      const fitting::FitOutcome fit = fitting::fit_comm_model(kind, algorithm, samples, alternatives, sized);
      const fitting::CrossValidation cv = fitting::cross_validate(kind, algorithm, samples, alternatives, sized);
      // Too few sizes to hold any out (fewer than the model's parameters per fold): no figures, not zeros.
      const bool held = cv.held_out_sizes.count > 0;
      log << std::left << std::setw(28) << label << std::setw(19) << model_name << std::right << std::setw(8)
                << (held ? pct(cv.held_out_sizes.mape) : "-") << std::setw(8) << (held ? pct(cv.held_out_sizes.median) : "-") << std::setw(8)
                << (held ? pct(cv.held_out_sizes.p90) : "-") << std::setw(10) << (held ? pct(100 * cv.held_out_sizes.coverage) : "-") << std::setw(12)
                << (cv.held_out_ranks.count ? pct(cv.held_out_ranks.mape) : "-") << std::setw(10)
                << (cv.held_out_ranks.count ? pct(100 * cv.held_out_ranks.coverage) : "-") << std::setw(9)
                << (noise.points ? pct(noise.mean_percent) : "-") << "  " << fit.message << "\n";
      report.push_back({{"algorithm", algorithm}, {"mode", comm_mode_name(mode)}, {"model", model_name}, {"converged", fit.converged},
                        {"held_out_sizes", {{"mape", cv.held_out_sizes.mape}, {"median", cv.held_out_sizes.median}, {"p90", cv.held_out_sizes.p90}, {"coverage", cv.held_out_sizes.coverage}}},
                        {"held_out_ranks", {{"mape", cv.held_out_ranks.mape}, {"median", cv.held_out_ranks.median}, {"p90", cv.held_out_ranks.p90}, {"coverage", cv.held_out_ranks.coverage}, {"count", cv.held_out_ranks.count}}},
                        {"run_to_run_noise", noise.points ? nlohmann::json{{"mean_percent", noise.mean_percent}, {"points", noise.points}} : nlohmann::json(nullptr)}});
      for (const fitting::HeldOutPoint& h : cv.points)
        if (held_out)
          held_out << label << "," << model_name << "," << (h.by_ranks ? "ranks" : "sizes") << "," << h.sample.bytes << ","
                   << h.sample.ranks << "," << h.sample.seconds << "," << h.prediction.seconds << "," << h.prediction.low << ","
                   << h.prediction.high << "," << 100 * (h.prediction.seconds - h.sample.seconds) / h.sample.seconds << "\n";
      if (!fit.converged) continue;
      if (points)
        for (const CommSample& s : samples) {
          const CommPrediction p = comm_prediction(fit.model, s.bytes, s.ranks);
          points << label << "," << model_name << "," << s.bytes << "," << s.ranks << "," << s.seconds << ","
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

  // Which algorithm to use, by the chosen models of isolated calls (or streams, where only those
  // were timed), against the library's default.
  const CommMode table_mode = std::any_of(chosen.begin(), chosen.end(), [](const FittedCommModel& m) { return m.mode == CommMode::isolated; })
                                  ? CommMode::isolated : CommMode::stream;
  const FittedCommModel* fallback = nullptr;
  for (const FittedCommModel& m : chosen)
    if (m.algorithm == "default" && m.mode == table_mode) fallback = &m;
  if (repeated)
    log << "noise: mean (slowest - fastest) / mean over the points several files timed; a model's held-out error near it is noise, not model\n";
  log << library_map;
  log << "\nalgorithm selection (chosen models of " << comm_mode_name(table_mode) << " calls; gain over the library default where it was measured)\n";
  log << std::right << std::setw(7) << "ranks" << std::setw(12) << "bytes" << "  " << std::left << std::setw(20) << "best"
            << std::right << std::setw(12) << "best us" << std::setw(14) << "default us" << std::setw(9) << "gain %" << "\n";
  int max_rank = *ranks.rbegin();
  for (int p : {2, 3, 4, 8, 16, 64}) {
    if (p > 4 * max_rank) break;
    for (double b = 4; b <= 64.0 * 1024 * 1024; b *= 16) {
      const FittedCommModel* pick = nullptr;
      double t = 0;
      for (const FittedCommModel& m : chosen) {
        if (is_library_choice(m.algorithm) || m.mode != table_mode) continue;
        const double s = comm_seconds(m, b, p);
        if (!pick || s < t) pick = &m, t = s;
      }
      if (!pick) continue;
      log << std::setw(7) << p << std::setw(12) << static_cast<long long>(b) << "  " << std::left << std::setw(20)
                << pick->algorithm << std::right << std::setw(12) << fixed(1e6 * t, 1);
      if (fallback) {
        const double d = comm_seconds(*fallback, b, p);
        log << std::setw(14) << fixed(1e6 * d, 1) << std::setw(9) << fixed(100 * (d / t - 1), 1);
      }
      log << (p > max_rank ? "  (extrapolated)" : "") << "\n";
    }
  }

  profile["communication"] = communication_section(chosen);
  profile["sources"]["communication"] = "fitted by dnnperf fit on " + bench::utc_now() + " from " + sources + " (host " + data.host + ")";
  fit_ddp_overhead(log, fitted.ddp_steps, profile, sources);
  const std::optional<double> rms = fit_step_spread(log, o, profile, fitted.timed);
  if (!o.plots.empty()) {
    write_json_file(o.plots + "/fit_report.json", "fit report", report);
    points.close();
    held_out.close();
  }
  return {profile, rms};
}

/// The report's plots, from the points a kept fit wrote into `dir` (compute_points.csv, fit_points.csv),
/// and whether the analytic family's error is still a function of the shape (scripts/residual_structure.py).
void draw_report(std::ostream& log, const std::string& dir) {
  if (dir.empty()) return;
  const std::string scripts = std::string(DNNPERF_SOURCE_DIR) + "/scripts/";
  if (std::filesystem::exists(dir + "/compute_points.csv")) {
    const std::string plot = "/usr/bin/python3 '" + scripts + "plot_compute_fit.py' '" + dir + "/compute_points.csv' >/dev/null 2>&1";
    log << (run_step_or_die(plot) == 0 ? "compute plots in " + dir + "\n" : "compute plots not made (matplotlib missing?); data in " + dir + "/compute_points.csv\n");
    const std::string structure = "/usr/bin/python3 '" + scripts + "residual_structure.py' '" + dir + "/compute_points.csv' > '" + dir + "/residual_structure.txt' 2>&1";
    log << (run_step_or_die(structure) == 0 ? "is the analytic family's error left in the shape: " + dir + "/residual_structure.txt\n"
                                                      : "residual structure not examined (scikit-learn missing?): " + dir + "/residual_structure.txt\n");
  }
  if (std::filesystem::exists(dir + "/fit_points.csv")) {
    const std::string plot = "/usr/bin/python3 '" + scripts + "plot_fit.py' '" + dir + "/fit_points.csv' >/dev/null 2>&1";
    log << (run_step_or_die(plot) == 0 ? "plots in " + dir + "\n" : "plots not made (matplotlib missing?); data in " + dir + "/fit_points.csv\n");
  }
}

}  // namespace

void fit_profile_files(std::ostream& log, const FitOptions& options) {
  if (options.files.empty()) throw InputError("no measurement files");
  family_for(options.family, "gemm");  // refuse a malformed --family before any work
  const std::vector<double> exponents = time_weight_exponents(options);
  if (exponents.size() == 1) {
    FitOptions o = options;
    o.time_exponent = exponents.front();
    const FittedProfile fitted = fit_profile(log, o);
    draw_report(log, o.plots);
    write_profile(log, o, fitted.profile);
    return;
  }
  // Each candidate whole, its narrative held back; the kept one's is told and drawn. Candidates
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
    std::ostringstream narrative;
    FittedProfile fitted = fit_profile(narrative, o);
    candidates.push_back({exponent, std::move(fitted), narrative.str(), o.plots});
  }
  const Candidate* kept = &candidates.front();
  for (const Candidate& c : candidates)
    if (c.fitted.steps_rms && (!kept->fitted.steps_rms || *c.fitted.steps_rms < *kept->fitted.steps_rms - 1e-9)) kept = &c;
  log << kept->report;
  draw_report(log, kept->plots);
  std::string tried;
  for (const Candidate& c : candidates)
    tried += (tried.empty() ? "" : ", ") + fixed(c.exponent, 2) + ": " + (c.fitted.steps_rms ? fixed(100 * *c.fitted.steps_rms, 1) + "%" : std::string("-"));
  log << "\ntime weight of the structural fits chosen on the --steps runs (their RMS log error at each exponent: " << tried << "): kept "
      << fixed(kept->exponent, 2) << (kept->exponent > 0 ? "" : " (unweighted)") << "\n";
  nlohmann::json profile = kept->fitted.profile;
  profile["sources"]["time_weight"] = "structural GEMM and convolution fits weighted by (time / class median)^" + fixed(kept->exponent, 2) +
                                      ", chosen on the --steps runs' RMS log error (" + tried + ")";
  write_profile(log, options, profile);
}

}  // namespace dnnperf::calibration
