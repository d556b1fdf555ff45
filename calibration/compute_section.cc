// The compute sections of a profile fit: kernels, CPU library models, co-running ranks, DDP.
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
#include "core/common/table.h"
#include "core/common/json_reader.h"
#include "fitting/comm/comm_fit.h"
#include "fitting/compute/compute_fit.h"
#include "fitting/compute/gpu_fit.h"
#include "fitting/compute/pass_far_fit.h"
#include "fitting/compute/warm_savings_fit.h"
#include "models/comm/allreduce.h"
#include "models/comm/fitted_comm_model.h"
#include "models/compute/analytic_model.h"
#include "models/compute/conv_as_gemm.h"
#include "models/compute/regression_model.h"
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
    for (bench::RecordStream records(file); const bench::Record* record = records.next();) {
      const bench::Record& r = *record;
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

nlohmann::json measured_on(std::ostream& log, const std::vector<std::string>& files) {
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
    for (bench::RecordStream records(file); const bench::Record* record = records.next();) {
      const bench::Record& r = *record;
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
  const auto most = [&log](const Runs& runs, const std::string& ran, const std::string& what, const std::string& one,
                        const std::function<std::string(const std::string&)>& describe) {
    const auto it = std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
    if (runs.size() > 1) {
      log << "warning: these files ran " << ran << " " << runs.size() << " different " << what << ", and the fit mixes their speeds (fit one " << one
                << "'s files at a time):\n";
      for (const auto& [key, seen] : runs)
        log << "  " << describe(key) << ": " << seen.first << " records (" << joined({seen.second.begin(), seen.second.end()}) << ")"
                  << (key == it->first ? "; the profile names this one" : "") << "\n";
    }
    return it->first;
  };
  nlohmann::json out = nlohmann::json::object();
  if (!cpu_runs.empty()) out["cpu"] = cpus[most(cpu_runs, "on", "CPUs", "CPU", [&](const std::string& key) { return describe_cpu(cpus[key]); })];
  if (!allocator_runs.empty()) out["allocator"] = most(allocator_runs, "with", "allocator policies", "policy", [](const std::string& key) { return "'" + key + "'"; });
  return out;
}

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

/// Which files were put on another's speed and by how much, and which could not be compared.
void print_session_speeds(std::ostream& log, const std::vector<fitting::SessionSpeed>& sessions) {
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
    log << "session speed: " << s.session << " against " << s.compared << " (" << s.overall.kernels << " kernels timed in both): "
              << ratio(s.overall) << " overall" << classes << ": "
              << (scaled ? "scaled to " + s.reference + "'s speed (a ratio within two standard errors of 1, marked noise, is not)"
                         : "within the kernels' noise, kept as timed")
              << "\n";
  }
  if (alone.empty()) return;
  std::string names;
  for (const std::string& a : alone) names += (names.empty() ? "" : ", ") + a;
  const bool none_compared = alone.size() == sessions.size();
  log << "session speed: " << names << ": fewer than " << fitting::kMinSharedKernels << " kernels shared with another file, "
            << (alone.size() > 1 ? "their" : "its") << " times kept as timed"
            << (none_compared ? " (files that begin with the same anchor kernels, scripts/torch_bench.py --anchors, are put on one speed)" : "") << "\n";
}

/// Ranks sharing the machine (device.co_run_slowdown, device.sync_wait) from the files' co-running
/// records, into `profile`; whether there were any.
bool fit_co_running(std::ostream& log, const fitting::ComputeData& data, nlohmann::json& profile, const std::string& sources) {
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
    log << "co-running: kernels beside " << others(processes, "process", "processes") << " take " << fixed(p50, 3) << "x their time alone (median of "
              << ratios.size() << "; 10-90%: " << fixed(p10, 2) << "-" << fixed(p90, 2) << "x)"
              << (steps ? "; whole steps measured too, which price data-parallel ranks" : "; data-parallel ranks on one node are priced so") << "\n";
  }
  for (const auto& [processes, ratios] : data.step_co_run_ratios) {
    const auto [p10, p50, p90] = quantiles(ratios);
    const auto [w10, w50, w90] = quantiles(data.sync_wait_ratios.at(processes));
    d["co_run_slowdown"][std::to_string(processes)] = p50;
    d["sync_wait"][std::to_string(processes)] = w50;
    log << "co-running: training steps beside " << others(processes, "rank", "ranks") << " take " << fixed(p50, 3) << "x their time alone, and the slowest of "
              << processes << " ranks' steps " << fixed(w50, 3) << "x a rank's own (medians of " << ratios.size() << " runs; 10-90%: "
              << fixed(p10, 2) << "-" << fixed(p90, 2) << "x and " << fixed(w10, 2) << "-" << fixed(w90, 2)
              << "x); data-parallel ranks are priced so (device.co_run_slowdown, device.sync_wait)\n";
  }
  return !data.co_run_ratios.empty() || !data.step_co_run_ratios.empty();
}

/// The GPU kernel family fitted to every element type's kernels, with its held-out table.
fitting::GpuFit fit_gpu_family(std::ostream& log, const DeviceSpec& device, const fitting::ComputeData& data) {
  fitting::GpuFit fit = fitting::fit_gpu_kernels(device, data);
  log << "GPU kernel family (models/compute/gpu/): " << fit.samples << " kernels of every element type; held-out error (%), 5 folds over the shapes"
      << (data.bracket_s > 0 ? "; bench's times include its launch bracket of " + fixed(data.bracket_s * 1e6, 2) + " us (its launch record)" : "") << "\n";
  Table table;
  table.column("class", Table::left).column("count").column("MAPE").column("median").column("p90").column("bias %").column("in-sample MAPE");
  for (const fitting::GpuClassFit& c : fit.classes)
    table.row({c.kernel_class, std::to_string(c.held_out.count), fixed(c.held_out.mape, 1), fixed(c.held_out.median, 1), fixed(c.held_out.p90, 1),
               fixed(100 * c.held_out_bias, 1), fixed(c.in_sample.mape, 1)});
  table.print(log);
  // cuDNN's host time inside unheld events (microbench/gpu/gpu_timing.h): not the GPU's work.
  if (fitting::has_unheld_convolutions(data)) log << "note: " << fitting::kUnheldConvolutionsNote << "\n";
  const GpuKernelParams& p = fit.params;
  log << "fitted: least GEMM/convolution " << fixed(p.kernel_min_s * 1e6, 2) << " us, memory pass " << fixed(p.pass_min_s * 1e6, 2) << " us, DRAM at " << fixed(100 * p.dram_efficiency, 1) << "% of "
      << fixed(device.memory_bandwidth / 1e12, 2) << " TB/s";
  for (const GpuMath m : kAllGpuMaths)
    if (std::find(fit.not_fitted.begin(), fit.not_fitted.end(), "math." + std::string(gpu_math_name(m))) == fit.not_fitted.end())
      log << "; " << gpu_math_name(m) << " k-loop " << fixed(100 * p.math[static_cast<int>(m)].max_efficiency, 1) << "% of peak, operands at "
          << fixed(p.math[static_cast<int>(m)].operand_bandwidth / 1e12, 1) << " TB/s";
  for (const GpuMath m : kAllGpuMaths)
    if (const auto& loop = p.conv_loop[static_cast<std::size_t>(m)];
        loop && std::find(fit.not_fitted.begin(), fit.not_fitted.end(), "conv_loop." + std::string(gpu_math_name(m))) == fit.not_fitted.end())
      log << "; " << gpu_math_name(m) << " convolutions' own k-loop (no " << gpu_math_name(m) << " GEMM timed) " << fixed(100 * loop->max_efficiency, 1) << "% of peak";
  log << " (" << (fit.converged ? "converged" : fit.message) << ")\n";
  if (!fit.not_fitted.empty()) {
    log << "not fitted (no records; the base profile's values kept):";
    for (const std::string& n : fit.not_fitted) log << " " << n;
    log << "\n";
  }
  log << "\n";
  return fit;
}

ComputeFitted fit_compute(std::ostream& log, const FitOptions& o, const HardwareProfile& base, nlohmann::json& profile, const std::string& sources) {
  fitting::ComputeData data = fitting::load_compute_data(o.files);
  fitting::check_device_kind(data, base, o.files);
  std::optional<DType> dtype;
  if (!o.dtype.empty() && !(dtype = parse_dtype(o.dtype)))
    throw InputError("--dtype: unknown element type '" + o.dtype + "' (f32, bf16, f16, ...)");
  const fitting::ComputeData all_types = data;  // the GPU family fits every element type at once
  fitting::keep_one_matrix_type(data, dtype);
  std::vector<fitting::Exclusion> excluded;
  for (const fitting::Exclusion& e : data.excluded)
    if (e.reason.find("--max-flops") == std::string::npos) excluded.push_back(e);
  fitting::log_exclusions(log, excluded);
  ComputeFitted fitted;
  fitted.co_running = fit_co_running(log, data, profile, sources);
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
    log << "structural fits (cache-blocked GEMM, direct convolution) weigh each kernel by (its time / its class's median)^" << fixed(o.time_exponent, 2)
              << ", within " << fixed(fitting::kMinTimeWeight, 2) << "-" << fixed(fitting::kMaxTimeWeight, 0) << "\n";
  if (as_gemms)
    log << as_gemms << " 1x1 convolutions of batches under " << device.pointwise_conv_gemm_below_batch
              << " fitted as the per-image GEMMs " << data.library << " runs them as (class per_image_gemm; models/compute/conv_as_gemm.h)\n";
  log << data.samples.size() << " compute measurements (GEMMs, convolutions, memory passes) from " << data.host << " (" << data.device << ")\n";
  // PyTorch runs fp32 convolutions on TF32 tensor cores by default (cuDNN on Ampere and later):
  // against the fp32 peak their rates (hundreds of TFLOP/s) would be efficiencies above 1.
  device.fp32_conv_math = MathMode::fp32;
  if (data.fp32_conv_tf32.value_or(false)) {
    if (device.peak_flops.count(MathMode::tf32_tensor)) {
      device.fp32_conv_math = MathMode::tf32_tensor;
      log << "fp32 convolutions ran with TF32 math (the run's context: torch.backends.cudnn.allow_tf32): fitted against, and priced at, the TF32 tensor peak of "
                << fixed(device.peak_flops.at(MathMode::tf32_tensor) / 1e12, 1) << " TFLOP/s (device.fp32_conv_math)\n";
    } else {
      log << "fp32 convolutions ran with the TF32 switch on, but the base hardware lists no tf32_tensor peak: fitted as fp32\n";
    }
  }
  print_session_speeds(log, data.sessions);
  log << "\n";
  std::optional<fitting::GpuFit> gpu;
  if (device.kind == "gpu") gpu = fit_gpu_family(log, device, all_types);
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
  log << "compute: held-out error (%), 5 folds over the measured shapes; weighted: sum |error| / sum time, which picks the family\n"
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
      log << std::left << std::setw(24) << (cls == "memory" ? std::string("memory passes") : cls) << std::setw(12) << "analytic" << std::right << std::setw(8) << pct(a.mape)
                << std::setw(8) << pct(a.median) << std::setw(8) << pct(a.p90) << std::setw(10) << pct(a.weighted) << std::setw(10) << "-" << std::setw(12) << noise(cls) << "\n";
      continue;
    }
    const fitting::RegressionFit r = fitting::fit_regression(cls, data.samples);
    log << std::left << std::setw(24) << cls << std::setw(12) << "analytic" << std::right << std::setw(8) << pct(a.mape)
              << std::setw(8) << pct(a.median) << std::setw(8) << pct(a.p90) << std::setw(10) << pct(a.weighted) << std::setw(10) << "-" << std::setw(12) << noise(cls) << "\n";
    std::string features;
    for (const std::string& f : r.model.features) features += (features.empty() ? "" : " ") + f;
    log << std::left << std::setw(24) << cls << std::setw(12) << "regression" << std::right << std::setw(8)
              << (r.held_out.count ? pct(r.held_out.mape) : "-") << std::setw(8) << (r.held_out.count ? pct(r.held_out.median) : "-")
              << std::setw(8) << (r.held_out.count ? pct(r.held_out.p90) : "-") << std::setw(10) << (r.held_out.count ? pct(r.held_out.weighted) : "-")
              << std::setw(10) << (r.held_out.count ? pct(100 * r.held_out.coverage) : "-") << std::setw(12) << noise(cls) << "  "
              << (r.converged ? features : r.message) << "\n";
    // The family whose held-out times sum closest to the measured ones: an iteration is a sum of
    // kernel times, and its large kernels weigh in it as they do here. The regression must win
    // clearly: it is a surface over the sampled shapes, while the roofline's terms (peak, bytes,
    // tiles) keep their meaning away from them. On the dev VM a GEMM regression 6% better than the
    // roofline on the sample priced the networks' batch-4 classifier GEMMs 48% low (roofline +6%).
    bool better = r.held_out.count && r.held_out.weighted < kRegressionMargin * a.weighted;
    const std::string family = family_for(o.family, cls);
    // On a GPU the GPU family prices every tiled kernel unless --family names the regression: the
    // regressions are surfaces over calibrate's random shapes, and there they beat the family held
    // out (H200, PyTorch's sample: 35-40% against 46-69% weighted), but on the seven CNNs' own
    // convolutions, which no fit saw (lease2/torch_cuda_exact.jsonl), they missed by 62% MAPE and
    // +37% in total against the family's 31% and +8%. Tiles, waves and bandwidth carry to shapes
    // away from the sample; a surface over a sample does not.
    if (gpu && family == "both") {
      const auto it = gpu->held_out_by_class.find(cls);
      const bool priced_by_gpu = it != gpu->held_out_by_class.end();
      log << std::left << std::setw(24) << cls << std::setw(12) << "gpu" << std::right << std::setw(8)
          << (priced_by_gpu ? pct(it->second.mape) : "-") << std::setw(8) << "" << std::setw(8) << "" << std::setw(10)
          << (priced_by_gpu ? pct(it->second.weighted) : "-") << "  (every math; "
          << (priced_by_gpu ? "prices this class; --family " + cls + "=regression for the regression)" : "no GPU record of this class: the regression prices it)")
          << "\n";
      better = better && !priced_by_gpu;
    }
    if (r.converged && (family == "regression" || (family == "both" && better))) chosen.push_back(r.model);
    if (points)
      for (const fitting::ComputeSample& smp : data.samples) {
        if (smp.kernel_class != cls) continue;
        const double bytes = smp.kernel.bytes_read + smp.kernel.bytes_written;
        const std::string shape = shape_label(smp.kernel);
        points << cls << ",analytic," << smp.kernel.flops << "," << bytes << "," << smp.seconds << "," << fitted_analytic.seconds(smp.kernel, {}) << "," << shape << "\n";
        if (r.converged) points << cls << ",regression," << smp.kernel.flops << "," << bytes << "," << smp.seconds << "," << regression_seconds(r.model, smp.kernel) << "," << shape << "\n";
      }
  }
  if (!spreads_of.empty())
    log << "noise: mean (slowest - fastest) / mean over the kernels several files timed (how many), their samples the median of the runs; "
                 "a held-out error near it is the runs' noise, not the model's\n";
  if (points.is_open()) {
    for (const fitting::ComputeSample& smp : data.samples)
      if (smp.kernel.cls != KernelClass::gemm && smp.kernel.cls != KernelClass::conv)
        points << smp.kernel_class << ",analytic," << smp.kernel.flops << "," << smp.kernel.bytes_read + smp.kernel.bytes_written << "," << smp.seconds << ","
               << fitted_analytic.seconds(smp.kernel, {}) << "," << shape_label(smp.kernel) << "\n";
    points.close();  // drawn by draw_report, once a fit is kept
  }
  // The fitted figures go into the device as the profile's writer spells them; the rest of the
  // base device (its other peaks, memory, node and reserved bytes) stays as it was.
  DeviceSpec written = hardware_profile_from_json(profile, base.path).device;
  const DeviceSpec& solved = analytic.device;
  // The analytic family's effective peak, bandwidth and launch are figures of its own forms. The
  // GPU family was fitted against the device's datasheet figures and prices with them, so where
  // it was fitted those stay the base's.
  if (!gpu) {
    written.peak_flops[MathMode::fp32] = solved.peak_flops.at(MathMode::fp32);
    written.launch_overhead_s = solved.launch_overhead_s;
    written.memory_bandwidth = solved.memory_bandwidth;
    written.multiprocessors = solved.multiprocessors;
  }
  written.pointwise_conv_gemm_below_batch = solved.pointwise_conv_gemm_below_batch;
  written.fp32_conv_math = solved.fp32_conv_math;
  written.gemm = solved.gemm;
  written.conv = solved.conv;
  written.blocked_gemm = solved.blocked_gemm;
  written.direct_conv = solved.direct_conv;
  // Plain passes' short-run and per-operation terms are not the analytic fit's: kept as they were.
  MemoryEfficiency memory = solved.memory;
  memory.short_run_element_s = written.memory.short_run_element_s;
  memory.operation_s = written.memory.operation_s;
  written.memory = memory;
  if (!solved.passes.empty()) written.passes = solved.passes;
  if (gpu) written.gpu = gpu->params;
  // The upper median (the sorted values' middle, or the higher of the two middles), as the
  // host's times are kept.
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // An asynchronous device's host: the median time to queue one call, per kernel class.
  written.host_dispatch_s.clear();
  written.host_dispatch_sigma = 0;
  if (!data.dispatch_seconds.empty()) {
    log << "host dispatch (median time to queue one call):";
    std::vector<double> deviations;  // |log(time / its class's median)|, pooled
    for (const auto& [cls, seconds] : data.dispatch_seconds) {
      const double typical = median(seconds);
      written.host_dispatch_s[cls] = typical;
      for (const double s : seconds) deviations.push_back(std::abs(std::log(s / typical)));
      log << " " << cls << " " << fixed(typical * 1e6, 1) << " us" << (&cls == &data.dispatch_seconds.rbegin()->first ? "" : ",");
    }
    written.host_dispatch_sigma = 1.4826 * median(deviations);  // the median absolute deviation of a normal
    log << "; spread " << fixed(written.host_dispatch_sigma, 2) << " in log terms; steps are priced on two timelines, the host's and the device's\n";
  }
  // The host's time per framework op: where the host drives an asynchronous device, it replaces
  // the op's kernels' dispatch times; on a CPU the same thread runs it before the op's kernels.
  written.host_op_s.clear();
  if (!data.op_host_seconds.empty()) {
    log << "host time per op (median forward / backward):";
    for (const auto& [kind, times] : data.op_host_seconds) {
      std::vector<double> forward, backward;
      for (const auto& [f, b] : times) forward.push_back(f), backward.push_back(b);
      const double f = median(forward), b = median(backward);
      written.host_op_s[kind] = {f, b};
      log << " " << kind << " " << fixed(f * 1e6, 1) << "/" << fixed(b * 1e6, 1) << " us" << (&kind == &data.op_host_seconds.rbegin()->first ? "" : ",");
    }
    log << (data.dispatch_seconds.empty() ? "; a step runs them before their ops' kernels, on the same thread\n"
                                                : "; these ops' host times replace their kernels' dispatch times\n");
  }
  written.step_warmth = fit_step_warmth(log, data, solved.memory.cache_bytes, profile.value("measured_on", nlohmann::json::object()));
  profile["device"] = device_to_json(written);
  profile["compute_regression"] = compute_regression_section(chosen);
  profile["reference_kernels"] = measured_kernels_section(reference_kernels(data.samples));
  // Kept from the base profile where these files timed no memory pass large enough.
  if (const std::vector<ReferencePass> passes = reference_passes(o.files); !passes.empty()) {
    profile["reference_passes"] = reference_passes_section(passes);
    log << "reference passes: " << passes.size() << " memory passes over " << (kReferencePassBytes >> 20) << " MiB and more kept with their times, for validate to time again\n";
  }
  if (o.measured_kernels) {
    std::vector<std::pair<Kernel, double>> table;
    for (const fitting::ComputeSample& smp : data.samples)
      if (smp.kernel.cls == KernelClass::gemm || smp.kernel.cls == KernelClass::conv) table.emplace_back(smp.kernel, smp.seconds);
    profile["measured_kernels"] = measured_kernels_section(table);
    log << "measured kernels: " << table.size() << " GEMMs and convolutions priced by their measured time\n";
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
  if (gpu) {
    // Replaces the base profile's note (a datasheet profile's says where its section came from).
    std::string kept;
    for (const std::string& n : gpu->not_fitted) kept += (kept.empty() ? "" : ", ") + n;
    profile["sources"]["device.efficiency.gpu"] = "GPU kernel family fitted by dnnperf fit on " + bench::utc_now() + " from " + sources + " (" +
                                                  data.device + (kept.empty() ? ")" : "); no records of " + kept + ": the base profile's (" +
                                                                                         base.name + ") values kept");
  }
  for (const fitting::StructuralChoice& c : analytic.choices) {
    log << "analytic " << c.kernel_class << ": " << c.model << " model held-out MAPE " << pct(c.structural.mape) << "% (weighted "
              << pct(c.structural.weighted) << "%) against tiles " << pct(c.tiled.mape) << "% (weighted " << pct(c.tiled.weighted) << "%): "
              << (c.kept ? "kept" : "tiles kept");
    if (c.folds_without > 0)
      log << " (not fitted in " << c.folds_without << " of 5 folds: too few measurements of the class to train on; those folds' kernels "
                << "priced by the tiles. Measure more of them: a longer --time-budget)";
    const BlockedGemm& b = analytic.device.blocked_gemm;
    if (c.kept && c.kernel_class == "gemm") {
      log << ", blocks of " << b.block << ", vectors of " << b.vector_width;
      for (int dim = 0; dim < 3; ++dim)
        if (b.cleanup_width[dim]) log << " (clean-up along " << "mnk"[dim] << " also in " << b.cleanup_width[dim] << "s)";
      log << ", " << fixed(b.block_flops / 1e9, 1) << " GFLOP/s in whole blocks";
    }
    log << "\n";
  }
  for (const std::string& line : analytic.too_few) log << "analytic " << line << " (measure more of them: a longer --time-budget)\n";
  log << "analytic fit: effective fp32 peak " << fixed(analytic.device.peak_flops.at(MathMode::fp32) / 1e9, 1) << " GFLOP/s, launch "
            << fixed(analytic.device.launch_overhead_s * 1e6, 2) << " us, bandwidth " << fixed(analytic.device.memory_bandwidth / 1e9, 1)
            << " GB/s (passes beyond ~" << fixed(analytic.device.memory.cache_bytes / 1048576, 1) << " MiB up to "
            << fixed(analytic.device.memory.dram_slowdown, 2) << "x slower) (" << (analytic.converged ? "converged" : analytic.message) << "); regression chosen for " << chosen.size() << " of " << analytic.held_out.size() << " classes\n\n";
  return fitted;
}

/// DDP's own seconds per step (device.ddp_step_overhead_s), per rank count, from the co-running
/// records' DDP steps and the profile just fitted: each network's DDP steps less its synchronised
/// steps (both measured) is the communication as the step paid it; less its buckets' all-reduces
/// and copies as priced, what DDP adds besides. The median over the networks, printed with each.
void fit_ddp_overhead(std::ostream& log, const std::vector<fitting::ComputeData::DdpStep>& steps, nlohmann::json& profile, const std::string& sources) {
  if (steps.empty()) return;
  const HardwareProfile hw = hardware_profile_from_json(profile, "the fitted profile");
  // DDP all-reduces through its framework's library: that one's measured model where fitted.
  const std::string library = hw.device.kind == "gpu" ? "nccl" : "gloo";
  const bool library_model = find_comm_model(hw, "allreduce", library_choice_name(library)) != nullptr;
  std::map<int, std::vector<const fitting::ComputeData::DdpStep*>> by_ranks;
  for (const auto& s : steps) by_ranks[s.ranks].push_back(&s);
  log << "\nDDP steps against their synchronised steps plus their buckets' all-reduces and copies as priced"
            << (library_model ? " (" + library + "'s measured all-reduce)" : " (no model of " + library + "'s all-reduce: the fitted algorithms)") << "\n";
  log << std::left << std::setw(22) << "network" << std::right << std::setw(7) << "ranks" << std::setw(10) << "MiB" << std::setw(9) << "buckets"
            << std::setw(12) << "added ms" << std::setw(12) << "priced ms" << std::setw(12) << "beyond ms" << "\n";
  for (const auto& [ranks, list] : by_ranks) {
    ParallelPlan plan;
    plan.devices_per_node = ranks;
    if (library_model) plan.allreduce_library = library;
    std::vector<double> beyond;
    for (const fitting::ComputeData::DdpStep* s : list) {
      const double priced = bucket_communication_seconds(hw, plan, s->bucket_bytes);
      beyond.push_back(s->added_s - priced);
      log << std::left << std::setw(22) << s->network << std::right << std::setw(7) << ranks << std::setw(10)
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
    log << "DDP's own work at " << ranks << " ranks: " << fixed(1e3 * median, 1) << " ms per step (median of " << n << " networks; "
              << fixed(1e3 * beyond.front(), 1) << " to " << fixed(1e3 * beyond.back(), 1) << ")"
              << (median < 0 ? ": below zero, none kept (the all-reduces are priced above what the steps paid)" : "; data-parallel steps are priced with it (device.ddp_step_overhead_s)")
              << "\n";
  }
  profile["sources"]["device.ddp_step_overhead_s"] = "dnnperf fit on " + bench::utc_now() + " from " + sources;
}

}  // namespace dnnperf::calibration
