#include "validation/ground_truth.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <utility>

#include "core/common/dtype.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "records/kernel_record.h"
#include "profile/cpu_identity.h"
#include "profile/fitted_sections.h"
#include "networks/import/network_loader.h"
#include "networks/zoo/zoo.h"
#include "predictor/prediction/predict.h"

namespace dnnperf {
namespace {

nlohmann::json read_json(const std::string& path) {
  try {
    return read_json_file(path);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (a torch_train.py result was expected)");
  }
}

}  // namespace

std::string case_stem(const std::string& network, std::int64_t batch, int procs, bool inference, int accumulate, const std::string& dtype) {
  const std::string name = is_network_file(network) ? std::filesystem::path(network).filename().string() : network;
  return name + "_b" + std::to_string(batch) + "_p" + std::to_string(procs) + (accumulate > 1 ? "_a" + std::to_string(accumulate) : "") +
         (dtype != "fp32" ? "_" + dtype : "") + (inference ? "_inference" : "_train");
}

bool is_network_file(const std::string& network) { return network.ends_with(".json") || network.ends_with(".onnx"); }

LoadOptions case_load_options(const std::string& network, std::int64_t batch, bool inference, const std::vector<std::int64_t>& input) {
  LoadOptions load;
  load.batch = batch;
  load.with_loss = !inference;
  if (is_network_file(network)) return load;
  if (input.empty()) throw InputError("network '" + network + "': no input size");
  if (is_zoo_sequence_model(network))
    load.sequence = input[0];
  else
    load.image = std::array<std::int64_t, 2>{input[0], input.size() > 1 ? input[1] : input[0]};
  return load;
}

StepTimes read_step_times(const nlohmann::json& j, const std::string& path) {
  StepTimes m;
  m.median = j.at("median_s");
  m.min = j.at("min_s");
  m.ok = m.median > 0 && m.min > 0;
  if (!m.ok) m.error = path + ": non-positive times";
  if (const auto it = j.find("phases"); it != j.end() && it->is_object()) {
    std::array<double, 3> phases{};
    for (int i = 0; i < 3; ++i) phases[i] = it->at(kPhases[i]).at("median_s");
    if (std::all_of(phases.begin(), phases.end(), [](double v) { return v >= 0; })) m.phases = phases;
  }
  if (const auto it = j.find("cpu"); it != j.end() && it->is_object() && !it->empty()) m.cpu = read_cpu_identity(*it, path + ": cpu");
  if (const auto it = j.find("allocator"); it != j.end() && it->is_string()) m.allocator = it->get<std::string>();
  if (const auto it = j.find("reference"); it != j.end() && it->is_array())
    for (const auto& r : *it)
      for (const char* when : {"before_s", "after_s"})
        m.reference.push_back({r.at("op").get<std::string>(), r.at("params"), r.value("dtype", "f32"), r.at(when).get<double>()});
  return m;
}

Drift drift_of(const HardwareProfile& hw, const std::vector<Retimed>& retimed, const std::string& source) {
  Drift d;
  if (hw.reference_kernels.empty()) {
    d.note = "profile '" + hw.name + "' keeps no reference kernels (dnnperf fit writes them)";
    return d;
  }
  std::map<MatrixKernelKey, double> then;
  for (const auto& [k, seconds] : hw.reference_kernels) then[matrix_kernel_key(k)] = seconds;
  std::map<std::pair<std::string, std::int64_t>, double> passes_then;
  for (const ReferencePass& p : hw.reference_passes) passes_then[{p.op, p.bytes}] = p.seconds;
  std::vector<double> ratios;
  std::vector<std::pair<double, std::string>> pass_ratios;
  for (const Retimed& r : retimed) {
    if (!(r.seconds > 0)) continue;
    try {
      if (r.op.starts_with("memory_")) {
        const std::int64_t bytes = r.params.at("bytes").get<std::int64_t>();
        if (const auto it = passes_then.find({r.op, bytes}); it != passes_then.end())
          pass_ratios.emplace_back(r.seconds / it->second, r.op + " over " + std::to_string(bytes >> 20) + " MiB");
        continue;
      }
      const auto dtype = parse_dtype(r.dtype);
      const std::optional<Kernel> k = dtype ? matrix_kernel_of(r.op, r.params, *dtype) : std::nullopt;
      if (!k) continue;
      if (const auto it = then.find(matrix_kernel_key(*k)); it != then.end()) ratios.push_back(r.seconds / it->second);
    } catch (const nlohmann::json::exception&) {
      continue;  // a kernel whose parameters do not parse says nothing of the drift
    } catch (const InputError&) {
      continue;  // nor one whose parameters no kernel has
    }
  }
  if (ratios.empty()) {
    d.note = source + ": no reference kernel of the profile timed";
    return d;
  }
  std::sort(ratios.begin(), ratios.end());
  d.count = ratios.size();
  d.median = ratios[ratios.size() / 2];
  d.low = ratios[ratios.size() / 10];
  d.high = ratios[ratios.size() - 1 - ratios.size() / 10];
  if (!pass_ratios.empty()) {
    std::sort(pass_ratios.begin(), pass_ratios.end());
    const std::size_t n = pass_ratios.size();
    d.pass_count = n;
    d.pass_median = pass_ratios[n / 2].first;
    d.pass_low = pass_ratios[n / 10].first;
    d.pass_high = pass_ratios[n - 1 - n / 10].first;
    std::tie(d.slowest_pass_ratio, d.slowest_pass) = pass_ratios.back();
  }
  return d;
}

Drift drift_from_records(const HardwareProfile& hw, const std::string& records) {
  std::vector<Retimed> retimed;
  std::ifstream in(records);
  std::string line;
  while (std::getline(in, line)) {
    try {
      const nlohmann::json r = parse_json(line, records);
      if (r.value("type", "") != "record" || r.value("status", "") != "ok") continue;
      retimed.push_back({r.at("op").get<std::string>(), r.at("params"), r.value("dtype", "f32"), r.at("seconds").at("median").get<double>()});
    } catch (const std::exception&) {  // InputError of the parser, or json's of a field
      continue;  // a line that is no measurement record says nothing of the drift
    }
  }
  return drift_of(hw, retimed, records);
}

nlohmann::json run_reference_kernels(const HardwareProfile& hw) {
  nlohmann::json list = nlohmann::json::array();
  std::map<std::string, std::vector<std::pair<double, const Kernel*>>> by_class;
  for (const auto& [k, seconds] : hw.reference_kernels) by_class[calibration_class(k)].emplace_back(seconds, &k);
  for (auto& [cls, kernels] : by_class) {
    std::sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::size_t trim = kernels.size() > 2 ? 1 : 0;
    for (std::size_t i = trim; i + trim < kernels.size(); ++i) {
      std::vector<std::pair<Kernel, double>> one{{*kernels[i].second, kernels[i].first}};
      for (const auto& entry : measured_kernels_section(one)) list.push_back({{"op", entry.at("op")}, {"params", entry.at("params")}});
    }
  }
  std::int64_t smallest = 0;
  for (const ReferencePass& p : hw.reference_passes) smallest = smallest == 0 ? p.bytes : std::min(smallest, p.bytes);
  double copy_s = 0;
  for (const ReferencePass& p : hw.reference_passes)
    if (p.bytes == smallest && p.op == "memory_copy") copy_s = p.seconds;
  for (const ReferencePass& p : hw.reference_passes)
    if (p.bytes == smallest && (copy_s == 0 || p.seconds <= 4 * copy_s)) list.push_back({{"op", p.op}, {"params", {{"bytes", p.bytes}}}});
  return list;
}

StepComposition step_composition(const HardwareProfile& fitted, const std::string& dir, const std::string& networks_dir, StepNetworks* loaded) {
  if (!std::filesystem::is_directory(dir)) throw InputError(dir + ": no such directory of ground-truth runs (--steps)");
  StepComposition result;
  const std::string kept = dir + "/reference_kernels.jsonl";
  if (std::filesystem::exists(kept))
    result.drift = drift_from_records(fitted, kept);
  else
    result.drift.note = kept + ": not kept; runs are taken as timed at the calibration's speed";
  const double speed = result.drift.count ? result.drift.median : 1.0;
  // The kernels' own spread only: a base profile's step spread must not explain itself.
  HardwareProfile hw = fitted;
  hw.device.step_sigma = 0;

  std::vector<std::string> runs;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with("_run0.json")) runs.push_back(entry.path().string());
  }
  std::sort(runs.begin(), runs.end());
  for (const std::string& first : runs) {
    const nlohmann::json j = read_json(first);
    const std::string second = first.substr(0, first.size() - std::string("_run0.json").size()) + "_run1.json";
    std::string network;
    std::int64_t batch = 0;
    bool inference = false;
    StepTimes a, b;
    std::vector<std::int64_t> input;
    try {
      network = j.at("network").get<std::string>();
      batch = j.at("batch_per_process").get<std::int64_t>();
      inference = j.value("inference", false);
      if (const int procs = j.value("procs", 1); procs != 1) {
        result.skipped.push_back(first + ": " + std::to_string(procs) + " processes (a step's composition is measured on one)");
        continue;
      }
      // Both runs where kept: the mean of their medians, as validate measures a case.
      a = read_step_times(j, first);
      b = std::filesystem::exists(second) ? read_step_times(read_json(second), second) : a;
      if (!is_network_file(network)) input = j.at("input").get<std::vector<std::int64_t>>();
    } catch (const nlohmann::json::exception& e) {
      throw InputError(first + ": not a torch_train.py result: " + e.what());
    }
    if (!a.ok || !b.ok) throw InputError(a.ok ? b.error : a.error);

    std::string source = network;
    if (is_network_file(network)) {
      if (!std::filesystem::exists(source) && !networks_dir.empty()) source = networks_dir + "/" + std::filesystem::path(network).filename().string();
      if (!std::filesystem::exists(source))
        throw InputError(first + ": network file '" + network + "' is not there" +
                         (networks_dir.empty() ? "" : " nor in " + networks_dir) +
                         " (name where the files are with --step-networks; scripts/export_onnx.py makes ONNX ones again)");
    }
    RunConfig config;
    config.inference = inference;
    Prediction p;
    try {
      const auto load = [&] { return load_network(source, case_load_options(network, batch, inference, input)); };
      if (!loaded) {
        p = predict(load(), hw, config);
      } else {
        auto it = loaded->find(first);
        if (it == loaded->end()) it = loaded->emplace(first, load()).first;
        p = predict(it->second, hw, config);
      }
    } catch (const InputError& e) {
      throw InputError(first + ": " + e.what());
    }
    StepComposition::Case c;
    c.network = network;
    c.batch = batch;
    c.inference = inference;
    c.predicted_s = p.iteration_s;
    c.measured_s = 0.5 * (a.median + b.median) / speed;
    c.kernel_sigma = p.iteration_high_s > p.iteration_s ? std::log(p.iteration_high_s / p.iteration_s) / 1.96 : 0.0;
    c.log_error = std::log(c.measured_s / c.predicted_s);
    result.cases.push_back(c);
  }
  if (result.cases.size() >= kMinSteps) {
    double excess = 0, bias = 0, kernel_sigma = 0;
    for (const auto& c : result.cases) {
      excess += c.log_error * c.log_error - c.kernel_sigma * c.kernel_sigma;
      bias += c.log_error;
      kernel_sigma += c.kernel_sigma;
    }
    const double n = static_cast<double>(result.cases.size());
    result.sigma = std::sqrt(std::max(0.0, excess / n));
    result.bias = bias / n;
    result.kernel_sigma = kernel_sigma / n;
    double scatter = 0;
    for (const auto& c : result.cases) scatter += (c.log_error - result.bias) * (c.log_error - result.bias);
    result.bias_se = std::sqrt(scatter / (n - 1) / n);
    result.estimated = true;
  }
  return result;
}

}  // namespace dnnperf
