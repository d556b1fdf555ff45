#include "validation/validate.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/common/format.h"
#include "core/common/progress.h"
#include "validation/ground_truth.h"
#include "records/machine.h"
#include "core/common/dtype.h"
#include "core/common/error.h"
#include "core/common/output_file.h"
#include "core/common/json_reader.h"
#include "records/kernel_record.h"
#include "profile/cpu_identity.h"
#include "profile/fitted_sections.h"
#include "networks/import/network_loader.h"
#include "networks/zoo/zoo.h"
#include "predictor/prediction/predict.h"

namespace dnnperf::validation {
namespace {

/// What the profile was measured on against what the ground truth ran on, as JSON for the
/// report and a line for its text.
struct Comparison {
  nlohmann::json json;
  std::string text;
};

/// The CPU the profile was calibrated on against those the ground truth ran on: JSON (`profile`,
/// `ground_truth`: a list, `same`: true, false or null where either is unknown, `differences`) and
/// a line for the report.
Comparison compare_cpus(const HardwareProfile& hw, const std::map<std::string, nlohmann::json>& run_cpus) {
  Comparison c;
  c.json = {{"profile", hw.measured_on_cpu}, {"ground_truth", nlohmann::json::array()}, {"same", nullptr}};
  std::vector<std::string> differences, names;
  for (const auto& [key, cpu] : run_cpus) {
    c.json["ground_truth"].push_back(cpu);
    names.push_back(describe_cpu(cpu));
    for (const std::string& d : cpu_differences(hw.measured_on_cpu, cpu))
      if (std::find(differences.begin(), differences.end(), d) == differences.end()) differences.push_back(d);
  }
  const std::string runs = run_cpus.empty() ? "" : joined(names);
  if (hw.measured_on_cpu.is_null() || run_cpus.empty()) {
    c.text = "CPU: " + (run_cpus.empty() ? std::string("the runs do not name theirs (torch_train.py records it since 2026-12-02)") : "the runs ran on " + runs) + "; " +
             (hw.measured_on_cpu.is_null() ? "profile '" + hw.name + "' does not name the CPU it was calibrated on (dnnperf fit takes it from files measured since 2026-12-02)"
                                           : "the profile was calibrated on " + describe_cpu(hw.measured_on_cpu)) +
             ": whether this validates the model on its own CPU is not known";
    return c;
  }
  c.json["same"] = differences.empty();
  c.json["differences"] = differences;
  c.text = differences.empty() ? "CPU: the runs ran on the CPU the profile was calibrated on, " + describe_cpu(hw.measured_on_cpu)
                               : "CPU: the profile was calibrated on " + describe_cpu(hw.measured_on_cpu) + ", the runs ran on " + runs + " (" + joined(differences) +
                                     "): its figures carry over only as far as the two CPUs run alike, so these errors judge the move as much as the model; "
                                     "dnnperf calibrate on this CPU judges the model";
  return c;
}

/// The allocator policy the profile's measurements ran with against those of the ground truth:
/// JSON (`profile`, `ground_truth`: a list, `same`: true, false or null where either is unknown)
/// and a line for the report where they differ (empty otherwise).
Comparison compare_allocators(const HardwareProfile& hw, const std::set<std::string>& run_allocators) {
  Comparison c;
  const bool known = !hw.measured_with_allocator.empty() && !run_allocators.empty();
  const bool same = known && run_allocators == std::set<std::string>{hw.measured_with_allocator};
  c.json = {{"profile", hw.measured_with_allocator.empty() ? nlohmann::json() : nlohmann::json(hw.measured_with_allocator)},
            {"ground_truth", run_allocators},
            {"same", known ? nlohmann::json(same) : nlohmann::json()}};
  if (known && !same) {
    std::vector<std::string> runs;
    for (const std::string& a : run_allocators) runs.push_back("'" + a + "'");
    c.text = "allocator: the profile's measurements ran with '" + hw.measured_with_allocator + "', the runs with " + joined(runs) +
             ": where large tensors land (pages touched before or mapped afresh) differs, and so do their kernels' times; calibrate again under the runs' policy";
  }
  return c;
}

/// Runs a shell command; its exit status (-1: not started), with stdout and stderr in `output`.
int run_command(const std::string& command, std::string& output) {
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  return pclose(pipe);
}

/// How fast the machine runs now against its calibration: the profile's reference kernels (and
/// memory passes, where it keeps them) timed again (or read where --measured kept them, or
/// --save-measured did when every case was resumed from there) against their calibrated times.
Drift machine_drift(const ValidateOptions& o, const HardwareProfile& hw, bool every_case_kept) {
  Drift d;
  if (hw.reference_kernels.empty()) {
    d.note = "profile '" + hw.name + "' keeps no reference kernels (dnnperf fit writes them)";
    return d;
  }
  const std::string kept_name = "reference_kernels.jsonl";
  std::string records;
  const std::string resumed = o.save_measured + "/" + kept_name;
  const bool reuse = o.resume && every_case_kept && std::filesystem::exists(resumed);
  if (!o.measured.empty() || reuse) {
    records = reuse ? resumed : o.measured + "/" + kept_name;
    if (!std::filesystem::exists(records)) {
      d.note = records + ": not kept with this ground truth";
      return d;
    }
  } else {
    const auto temp = std::filesystem::temp_directory_path();
    const std::string list = (temp / ("dnnperf_reference_" + std::to_string(getpid()) + ".json")).string();
    records = (temp / ("dnnperf_reference_" + std::to_string(getpid()) + ".jsonl")).string();
    nlohmann::json listed = measured_kernels_section(hw.reference_kernels);
    for (const ReferencePass& p : hw.reference_passes) listed.push_back({{"op", p.op}, {"params", {{"bytes", p.bytes}}}});
    std::ofstream(list) << listed.dump() << "\n";
    std::filesystem::remove(records);
    const bool cpu = hw.device.kind != "gpu";
    const std::string command = "timeout --kill-after=10 " + std::to_string(o.timeout) + " " + o.python + " '" + std::string(DNNPERF_SOURCE_DIR) +
                                "/scripts/torch_bench.py' --kernels '" + list + "' --cold --device " + (cpu ? "cpu --threads " + std::to_string(std::max<std::int64_t>(1, hw.device.multiprocessors)) : std::string("cuda")) +
                                " -o '" + records + "' 2>&1";
    std::string output;
    const int status = run_command(command, output);
    std::filesystem::remove(list);
    if (status != 0 || !std::filesystem::exists(records)) {
      while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
      d.note = "re-timing the reference kernels failed: " + (output.empty() ? "status " + std::to_string(status) : output.substr(output.rfind('\n') + 1));
      return d;
    }
    if (!o.save_measured.empty()) {
      std::filesystem::create_directories(o.save_measured);
      std::filesystem::copy_file(records, o.save_measured + "/" + kept_name, std::filesystem::copy_options::overwrite_existing);
    }
  }
  d = drift_from_records(hw, records);
  if (o.measured.empty() && !reuse) std::filesystem::remove(records);
  return d;
}

/// The size a zoo network runs at, as torch_train.py records it: [tokens] or [H, W].
std::vector<std::int64_t> case_input(const ValidateOptions& o, const std::string& network) {
  if (is_zoo_sequence_model(network)) return {o.sequence};
  return {o.input[0], o.input.size() > 1 ? o.input[1] : o.input[0]};
}

/// A ground-truth run kept in DIR (by --save-measured, or scripts/gpu_validate.sh), checked to be
/// the case predicted.
StepTimes kept_run(const ValidateOptions& o, const std::string& dir, const std::string& network, std::int64_t batch, int procs, int run) {
  StepTimes m;
  const std::string path = dir + "/" + case_stem(network, batch, procs, o.inference, o.accumulate, o.dtype) + "_run" + std::to_string(run) + ".json";
  if (!std::filesystem::exists(path)) {
    m.error = path + ": no measurement for this case";
    return m;
  }
  try {
    const nlohmann::json j = read_json_file(path);
    m = read_step_times(j, path);
    // The run must be the case predicted: a file of another size would compare two cases.
    const auto differs = [&](const char* field, const nlohmann::json& expected, const std::string& option) {
      if (!m.ok || !j.contains(field) || j.at(field) == expected) return;
      m.ok = false;
      m.error = path + ": measured with " + field + " " + j.at(field).dump() + ", predicted with " + expected.dump() + " (" + option + ")";
    };
    differs("batch_per_process", batch, "--batch");
    differs("procs", procs, "--procs");
    differs("inference", o.inference, "--inference");
    if (m.ok && j.value("dtype", std::string("fp32")) != o.dtype) {
      m.ok = false;
      m.error = path + ": measured in " + j.value("dtype", std::string("fp32")) + ", predicted in " + o.dtype + " (--dtype)";
    }
    if (m.ok && j.value("accumulate", 1) != o.accumulate) {
      m.ok = false;
      m.error = path + ": measured with " + std::to_string(j.value("accumulate", 1)) + " micro-batches a step, predicted with " +
                std::to_string(o.accumulate) + " (--accumulate)";
    }
    if (!is_network_file(network)) differs("input", case_input(o, network), is_zoo_sequence_model(network) ? "--seq" : "--input");
  } catch (const std::exception& e) {
    m.error = path + ": not a torch_train.py result: " + e.what();
  }
  return m;
}

/// One ground-truth run of scripts/torch_train.py (read from --measured where given).
StepTimes ground_truth(const ValidateOptions& o, const std::string& network, std::int64_t batch, int procs, int run) {
  if (!o.measured.empty()) return kept_run(o, o.measured, network, batch, procs, run);
  const std::string out = (std::filesystem::temp_directory_path() / ("dnnperf_validate_" + std::to_string(getpid()) + "_" + std::to_string(run) + ".json")).string();
  std::filesystem::remove(out);
  const std::string script = std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_train.py";
  const std::string command = "timeout --kill-after=10 " + std::to_string(o.timeout) + " " + o.python + " '" + script + "' --network '" + network + "' --batch " + std::to_string(batch) +
                              " --procs " + std::to_string(procs) + " --input " + std::to_string(o.input[0]) + "," +
                              std::to_string(o.input.size() > 1 ? o.input[1] : o.input[0]) + " --seq " + std::to_string(o.sequence) +
                              " --iterations " + std::to_string(o.iterations) + (o.inference ? " --inference" : "") +
                              (o.accumulate > 1 ? " --accumulate " + std::to_string(o.accumulate) : "") +
                              (o.dtype != "fp32" ? " --dtype " + o.dtype : "") +
                              (o.reference_list.empty() ? std::string() : " --reference '" + o.reference_list + "'") + " -o '" + out + "' 2>&1";
  StepTimes m;
  std::string output;
  const int status = run_command(command, output);
  if (status < 0) {
    m.error = "cannot start " + o.python;
    return m;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 124) {
    m.error = "the PyTorch run did not finish within " + std::to_string(o.timeout) + " s (--timeout)";
    return m;
  }
  if (status != 0 || !std::filesystem::exists(out)) {
    m.error = output.empty() ? "the PyTorch run failed (status " + std::to_string(status) + ")" : output.substr(output.rfind('\n', output.size() - 2) + 1);
    while (!m.error.empty() && (m.error.back() == '\n' || m.error.back() == '\r')) m.error.pop_back();
    return m;
  }
  nlohmann::json j;
  try {
    j = read_json_file(out);
  } catch (const InputError& e) {
    m.error = std::string("the PyTorch run's result: ") + e.what();
    return m;
  }
  if (!o.save_measured.empty()) {
    std::filesystem::create_directories(o.save_measured);
    const std::string kept = o.save_measured + "/" + case_stem(network, batch, procs, o.inference, o.accumulate, o.dtype) + "_run" + std::to_string(run) + ".json";
    std::filesystem::copy_file(out, kept, std::filesystem::copy_options::overwrite_existing);
  }
  std::filesystem::remove(out);
  return read_step_times(j, out);
}

/// How fast the machine ran during a case's two runs against the calibration (the references
/// each run timed before and after its iterations), as one factor on the case's prediction: the
/// kernels' ratio on the step's GEMMs and convolutions, the passes' on the rest (the kernels'
/// where no pass was timed). Null where either run timed none.
nlohmann::json run_drift(const HardwareProfile& hw, const Graph& graph, const RunConfig& config, const StepTimes& a, const StepTimes& b) {
  if (a.reference.empty() || b.reference.empty()) return nullptr;
  const Drift da = drift_of(hw, a.reference, "run 0"), db = drift_of(hw, b.reference, "run 1");
  if (!da.count || !db.count) return nullptr;
  const double kernels = 0.5 * (da.median + db.median);
  const bool passes_timed = da.pass_count && db.pass_count;
  const double passes = passes_timed ? 0.5 * (da.pass_median + db.pass_median) : kernels;
  const PricedStep step = price_step(graph, hw, config);
  double arithmetic = 0, total = 0;
  for (std::size_t i = 0; i < step.kernels.size(); ++i) {
    total += step.seconds[i];
    if (step.kernels[i].cls == KernelClass::gemm || step.kernels[i].cls == KernelClass::conv) arithmetic += step.seconds[i];
  }
  const double share = total > 0 ? arithmetic / total : 1.0;
  return {{"kernels", kernels},
          {"passes", passes_timed ? nlohmann::json(passes) : nlohmann::json()},
          {"runs", {da.median, db.median}},
          {"arithmetic_share", share},
          {"factor", share * kernels + (1 - share) * passes}};
}

/// The predicted-vs-measured plot of `result` into `path` (scripts/plot_validation.py); a note
/// where it cannot be drawn (matplotlib missing), never a failure of the validation.
void draw_plot(std::ostream& notes, const nlohmann::json& result, const std::string& path) {
  const std::string data = path + ".json";
  write_json_file(data, "plot's data", result);
  const std::string command = "/usr/bin/python3 '" + std::string(DNNPERF_SOURCE_DIR) + "/scripts/plot_validation.py' '" + data + "' -o '" + path + "' >/dev/null 2>&1";
  std::string output;
  if (run_command(command, output) != 0) notes << "note: the plot was not drawn (matplotlib missing?); its data is in " << data << "\n";
}

}  // namespace

void validate(std::ostream& out, std::ostream& notes, ValidateOptions o) {
  if (o.networks.empty() || o.batches.empty()) throw InputError("--networks and --batch are required");
  if (o.inference && o.accumulate != 1) throw InputError("--accumulate applies to training, not --inference");
  const std::optional<Precision> precision = parse_precision(o.dtype);
  if (!precision || *precision == Precision::fp8)
    throw InputError("--dtype: '" + o.dtype + "' is not one a ground-truth run takes (fp32, tf32, fp16 or bf16)");
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  nlohmann::json cases = nlohmann::json::array();
  // The references every run times beside its iterations, written once for all runs.
  struct RemoveOnExit {
    std::string path;
    ~RemoveOnExit() {
      if (!path.empty()) std::filesystem::remove(path);
    }
  } reference_file;
  if (o.run_reference && o.measured.empty())
    if (const nlohmann::json list = run_reference_kernels(hw); !list.empty()) {
      o.reference_list = (std::filesystem::temp_directory_path() / ("dnnperf_run_reference_" + std::to_string(getpid()) + ".json")).string();
      std::ofstream(o.reference_list) << list.dump() << "\n";
      reference_file.path = o.reference_list;
    }
  // Data-parallel ground truth is DDP over gloo (CPU) or NCCL (GPU): price its all-reduces with
  // that library's measured model when the profile has one.
  const std::string library = hw.device.kind == "gpu" ? "nccl" : "gloo";
  const bool library_model = find_comm_model_either_mode(hw, "allreduce", library_choice_name(library), CommMode::stream) != nullptr;
  if (!library_model && std::any_of(o.procs.begin(), o.procs.end(), [](int p) { return p > 1; }))
    notes << "note: profile '" << hw.name << "' has no model of " << library << "'s all-reduce; DDP's all-reduces are priced by "
              << (hw.communication.empty() ? "the datasheet" : "the fitted algorithms") << " (scripts/torch_comm_bench.py measures " << library << ")\n";
  if (o.measured.empty() && !hw.measured_on_cpu.is_null())
    if (const auto differences = cpu_differences(hw.measured_on_cpu, bench::this_cpu()); !differences.empty())
      notes << "note: profile '" << hw.name << "' was calibrated on another CPU (" << joined(differences) << "); the errors below judge the move as much as the model\n";
  std::map<std::string, nlohmann::json> run_cpus;  // the CPUs the ground truth ran on, each once (keyed by its JSON)
  std::set<std::string> run_allocators;            // and the allocator policies it ran with
  std::vector<double> errors, noise;
  // Per (batch, processes): a pooled MAPE over several batches can hide one that misses.
  std::map<std::pair<std::int64_t, int>, std::pair<std::vector<double>, std::vector<double>>> by_size;
  std::array<std::vector<double>, 3> phase_errors;  // per kPhases, where the runs timed them
  std::vector<std::string> phase_rows;
  int inside_count = 0;
  bool every_case_kept = true;  // every case read back by --resume: the kept reference kernels are theirs
  std::vector<double> interval_low, interval_high;  // per case, % below and above the prediction
  std::vector<double> run_adjusted, run_factors;    // per case timed beside its references (run_drift)
  // Wide enough for the longest name: ONNX files are named by their path.
  std::size_t name_width = 22;
  for (const std::string& network : o.networks) name_width = std::max(name_width, network.size() + 2);
  const int nw = static_cast<int>(name_width);
  if (!o.json)
    out << std::left << std::setw(nw) << "network" << std::right << std::setw(7) << "batch" << std::setw(7) << "procs"
              << std::setw(14) << "predicted ms" << std::setw(20) << "95% interval ms" << std::setw(13) << "measured ms" << std::setw(10) << "min ms" << std::setw(9)
              << "error %" << std::setw(9) << "noise %" << std::setw(8) << "speed" << "\n";
  Progress progress(o.networks.size() * o.batches.size() * o.procs.size(), true);
  for (const std::string& network : o.networks)
    for (std::int64_t batch : o.batches)
      for (int procs : o.procs) {
        progress.clear();
        nlohmann::json c = {{"network", network}, {"batch", batch}, {"procs", procs}, {"inference", o.inference}};
        if (o.accumulate > 1) c["accumulate"] = o.accumulate;
        if (o.dtype != "fp32") c["dtype"] = o.dtype;
        try {
          const Graph g = load_network(network, case_load_options(network, batch, o.inference, case_input(o, network)));
          RunConfig config;
          config.inference = o.inference;
          config.accumulation_steps = o.accumulate;
          config.precision = *precision;
          config.plan.devices_per_node = procs;
          if (library_model) config.plan.allreduce_library = library;
          const Prediction p = predict(g, hw, config);
          c["predicted_s"] = p.iteration_s;
          c["predicted_low_s"] = p.iteration_low_s;
          c["predicted_high_s"] = p.iteration_high_s;
          if (procs > 1) {  // what sharing the node and meeting every step added
            c["co_run_slowdown"] = co_run_factor(hw.device, procs);
            c["sync_wait"] = p.sync_wait;
            if (!o.inference) c["ddp_overhead_s"] = p.ddp_overhead_s;
          }
          // Resuming: both runs kept and both the case predicted, or the case is run again.
          StepTimes a, b;
          if (o.resume) {
            a = kept_run(o, o.save_measured, network, batch, procs, 0);
            b = kept_run(o, o.save_measured, network, batch, procs, 1);
          }
          const bool kept = o.resume && a.ok && b.ok;
          if (o.resume && !kept && std::filesystem::exists(o.save_measured + "/" + case_stem(network, batch, procs, o.inference, o.accumulate, o.dtype) + "_run0.json"))
            notes << "note: " << (a.ok ? b.error : a.error) << "; running the case again\n";
          if (!kept) {
            a = ground_truth(o, network, batch, procs, 0);
            b = a.ok ? ground_truth(o, network, batch, procs, 1) : a;
          }
          every_case_kept = every_case_kept && kept;
          if (kept) c["resumed"] = true;
          if (!a.ok || !b.ok) throw InputError(a.ok ? b.error : a.error);
          for (const StepTimes* run : {&a, &b}) {
            if (!run->cpu.is_null()) run_cpus.emplace(run->cpu.dump(), run->cpu);
            if (!run->allocator.empty()) run_allocators.insert(run->allocator);
          }
          const double measured = 0.5 * (a.median + b.median);
          const double error = 100 * (p.iteration_s - measured) / measured;
          const double floor = 100 * std::abs(a.median - b.median) / measured;
          c.update({{"measured_s", measured}, {"measured_runs_s", {a.median, b.median}}, {"min_s", std::min(a.min, b.min)},
                    {"error_percent", error}, {"noise_percent", floor}, {"status", "ok"}});
          errors.push_back(std::abs(error));
          std::string speed = "-";
          if (const nlohmann::json rd = run_drift(hw, g, config, a, b); !rd.is_null()) {
            const double factor = rd["factor"].get<double>();
            const double adjusted_error = 100 * (factor * p.iteration_s - measured) / measured;
            c["run_drift"] = rd;
            c["run_drift_adjusted_error_percent"] = adjusted_error;
            run_adjusted.push_back(std::abs(adjusted_error));
            run_factors.push_back(factor);
            speed = fixed(factor, 2) + "x";
          }
          const bool inside = measured >= p.iteration_low_s && measured <= p.iteration_high_s;
          c["inside_interval"] = inside;
          inside_count += inside;
          // Coverage means little without the width that bought it.
          if (p.iteration_s > 0) {
            interval_low.push_back(100 * (1 - p.iteration_low_s / p.iteration_s));
            interval_high.push_back(100 * (p.iteration_high_s / p.iteration_s - 1));
          }
          noise.push_back(floor);
          by_size[{batch, procs}].first.push_back(std::abs(error));
          by_size[{batch, procs}].second.push_back(floor);
          if (a.phases && b.phases && !o.inference) {
            // The predicted backward phase is the rest of the step: backward kernels, and the
            // all-reduces and bucket copies DDP's backward waits for.
            const double predicted[3] = {p.forward_s, p.iteration_s - p.forward_s - p.update_s, p.update_s};
            std::ostringstream row;
            row << std::left << std::setw(nw) << network << std::right << std::setw(7) << batch << std::setw(7) << procs;
            for (int i = 0; i < 3; ++i) {
              const double seen = 0.5 * ((*a.phases)[i] + (*b.phases)[i]);
              const double phase_error = 100 * (predicted[i] - seen) / seen;
              c["phases"][kPhases[i]] = {{"predicted_s", predicted[i]}, {"measured_s", seen}, {"error_percent", phase_error}};
              phase_errors[i].push_back(std::abs(phase_error));
              row << std::setw(11) << fixed(1e3 * predicted[i], 2) << std::setw(11) << fixed(1e3 * seen, 2) << std::setw(9) << fixed(phase_error, 1);
            }
            phase_rows.push_back(row.str());
          }
          if (!o.json)
            out << std::left << std::setw(nw) << network << std::right << std::setw(7) << batch << std::setw(7) << procs << std::setw(14)
                      << fixed(1e3 * p.iteration_s, 2) << std::setw(20)
                      << (fixed(1e3 * p.iteration_low_s, 1) + "-" + fixed(1e3 * p.iteration_high_s, 1)) << std::setw(13) << fixed(1e3 * measured, 2) << std::setw(10)
                      << fixed(1e3 * std::min(a.min, b.min), 2) << std::setw(9) << fixed(error, 1) << std::setw(9) << fixed(floor, 1)
                      << std::setw(8) << speed << (kept ? "  (kept)" : "") << "\n";
        } catch (const std::exception& e) {
          c.update({{"status", "failed"}, {"reason", e.what()}});
          if (!o.json) out << std::left << std::setw(nw) << network << std::right << std::setw(7) << batch << std::setw(7) << procs << "  FAILED: " << e.what() << "\n";
        }
        cases.push_back(c);
        out.flush();
        progress.step(network + " batch " + std::to_string(batch) + ", " + std::to_string(procs) + " process" + (procs > 1 ? "es" : ""));
      }
  progress.finish();
  const auto summary = [](std::vector<double> v) {
    nlohmann::json s = {{"count", v.size()}};
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    s.update({{"mean", sum / static_cast<double>(v.size())}, {"median", v[v.size() / 2]}, {"max", v.back()}});
    return s;
  };
  // After the cases, so that the reference kernels see the machine as the last runs did.
  const Drift drift = machine_drift(o, hw, every_case_kept);
  nlohmann::json result = {{"hardware", hw.name}, {"cases", cases}, {"absolute_error_percent", summary(errors)},
                           {"noise_floor_percent", summary(noise)}, {"inside_interval", inside_count}};
  if (by_size.size() > 1)
    for (const auto& [size, e] : by_size)
      result["by_size"].push_back({{"batch", size.first}, {"procs", size.second}, {"absolute_error_percent", summary(e.first)}, {"noise_floor_percent", summary(e.second)}});
  if (!interval_low.empty()) result["interval_width_percent"] = {{"below", summary(interval_low)}, {"above", summary(interval_high)}};
  for (int i = 0; i < 3; ++i)
    if (!phase_errors[i].empty()) result["phase_error_percent"][kPhases[i]] = summary(phase_errors[i]);
  const Comparison cpus = compare_cpus(hw, run_cpus);
  result["cpu"] = cpus.json;
  const Comparison allocators = compare_allocators(hw, run_allocators);
  result["allocator"] = allocators.json;
  result["machine_drift"] = drift.count ? nlohmann::json{{"reference_kernels", drift.count}, {"median_ratio", drift.median}, {"p10_ratio", drift.low}, {"p90_ratio", drift.high}}
                                        : nlohmann::json{{"reference_kernels", 0}, {"note", drift.note}};
  if (drift.pass_count)
    result["machine_drift"]["memory_passes"] = {{"passes", drift.pass_count}, {"median_ratio", drift.pass_median}, {"p10_ratio", drift.pass_low},
                                                {"p90_ratio", drift.pass_high}, {"slowest", {{"pass", drift.slowest_pass}, {"ratio", drift.slowest_pass_ratio}}}};
  // The same predictions at the machine's speed now (the reference kernels' median ratio): on a
  // shared machine the error left is the model's, the rest the machine's. Shown beside the plain
  // error, never instead of it.
  std::vector<double> adjusted;
  if (drift.count)
    for (auto& c : cases)
      if (c.value("status", "") == "ok") {
        const double measured = c["measured_s"].get<double>();
        const double error = 100 * (drift.median * c["predicted_s"].get<double>() - measured) / measured;
        c["drift_adjusted_error_percent"] = error;
        adjusted.push_back(std::abs(error));
      }
  if (!adjusted.empty()) result["drift_adjusted_error_percent"] = summary(adjusted);
  if (!run_adjusted.empty()) {
    result["run_drift_adjusted_error_percent"] = summary(run_adjusted);
    result["run_drift_factor"] = summary(run_factors);
    result["run_drift_factor"]["min"] = *std::min_element(run_factors.begin(), run_factors.end());
  }
  result["cases"] = cases;
  if (!o.plot.empty()) draw_plot(notes, result, o.plot);
  int failed = 0;
  for (const auto& c : cases) failed += c.value("status", "") == "failed";
  const auto finish = [&] {
    if (failed) throw InputError(std::to_string(failed) + " of " + std::to_string(cases.size()) + " cases failed (marked in the report)");
  };
  if (o.json) {
    print_json(out, result, "validate");
    finish();
    return;
  }
  const auto& e = result["absolute_error_percent"];
  const auto& n = result["noise_floor_percent"];
  if (!errors.empty())
    out << "\nMAPE " << fixed(e["mean"], 1) << "%, median " << fixed(e["median"], 1) << "%, max " << fixed(e["max"], 1)
              << "% over " << errors.size() << " cases; run-to-run noise floor: mean " << fixed(n["mean"], 1) << "%, max "
              << fixed(n["max"], 1) << "%; measured inside the 95% interval in " << inside_count << " of " << errors.size()
              << (interval_low.empty() ? std::string()
                                       : " (intervals -" + fixed(result["interval_width_percent"]["below"]["mean"], 0) + "% to +" +
                                             fixed(result["interval_width_percent"]["above"]["mean"], 0) + "% on average)")
              << "\n";
  if (result.contains("by_size"))
    for (const auto& g : result["by_size"])
      out << "  batch " << g["batch"].get<std::int64_t>() << ", " << g["procs"].get<int>() << (g["procs"].get<int>() == 1 ? " process" : " processes") << ": MAPE "
                << fixed(g["absolute_error_percent"]["mean"], 1) << "% over " << g["absolute_error_percent"]["count"].get<std::size_t>() << " cases, noise floor mean "
                << fixed(g["noise_floor_percent"]["mean"], 1) << "%\n";
  if (const int most = *std::max_element(o.procs.begin(), o.procs.end()); most > 1 && !errors.empty())
    out << "data-parallel cases: every kernel at " << fixed(co_run_factor(hw.device, most), 3) << "x (ranks sharing the node, device.co_run_slowdown), "
              << "the computation at " << fixed(o.inference ? 1.0 : sync_wait_factor(hw.device, most, o.accumulate), 3)
              << "x (waiting for the slowest rank every step, device.sync_wait)"
              << (o.inference ? "" : ", and DDP's own " + fixed(1e3 * ddp_step_overhead_seconds(hw.device, most), 2) + " ms per step (device.ddp_step_overhead_s)")
              << " at " << most << " processes; 1 (none) where not measured\n";
  if (!phase_rows.empty()) {
    out << "\nper phase (timed apart, phase by phase; backward includes the all-reduces it waits for)\n"
              << std::left << std::setw(nw) << "network" << std::right << std::setw(7) << "batch" << std::setw(7) << "procs";
    for (const char* phase : {"fwd", "bwd", "upd"}) out << std::setw(11) << (phase + std::string(" pred")) << std::setw(11) << (phase + std::string(" meas")) << std::setw(9) << "error %";
    out << "\n";
    for (const std::string& row : phase_rows) out << row << "\n";
    const auto& pe = result["phase_error_percent"];
    out << "phase MAPE: forward " << fixed(pe["forward"]["mean"], 1) << "%, backward " << fixed(pe["backward"]["mean"], 1) << "%, update "
              << fixed(pe["update"]["mean"], 1) << "% over " << phase_rows.size() << " cases\n";
  } else if (!errors.empty() && !o.inference)
    out << "per phase: not timed in these runs (scripts/torch_train.py times phases since 2026-11-30)\n";
  out << cpus.text << "\n";
  if (!allocators.text.empty()) out << allocators.text << "\n";
  if (drift.count) {
    out << "machine against its calibration: the profile's " << drift.count << " reference kernels take " << fixed(drift.median, 2)
              << "x their calibrated time now (median; 10-90%: " << fixed(drift.low, 2) << "-" << fixed(drift.high, 2)
              << "x); a prediction error of that size is the machine's, not the model's\n";
    if (drift.pass_count)
      out << "  and its " << drift.pass_count << " memory passes over " << (kReferencePassBytes >> 20) << " MiB and more " << fixed(drift.pass_median, 2) << "x (10-90%: " << fixed(drift.pass_low, 2)
                << "-" << fixed(drift.pass_high, 2) << "x; slowest " << drift.slowest_pass << " at " << fixed(drift.slowest_pass_ratio, 2)
                << "x): memory-bound work moves with these, arithmetic with the kernels\n";
    else if (!hw.reference_passes.empty())
      out << "  its " << hw.reference_passes.size() << " memory passes: not timed with this ground truth\n";
    if (!adjusted.empty())
      out << "with the predictions scaled by that " << fixed(drift.median, 2) << "x: MAPE " << fixed(result["drift_adjusted_error_percent"]["mean"], 1)
                << "%, median " << fixed(result["drift_adjusted_error_percent"]["median"], 1) << "%, max "
                << fixed(result["drift_adjusted_error_percent"]["max"], 1) << "%\n";
  } else {
    out << "machine against its calibration: unknown (" << drift.note << ")\n";
  }
  if (!run_adjusted.empty()) {
    const auto& r = result["run_drift_adjusted_error_percent"];
    out << "each case at its own runs' speed (column speed: the reference kernels and passes each run timed before and after its iterations, "
              << fixed(result["run_drift_factor"]["min"], 2) << "-" << fixed(result["run_drift_factor"]["max"], 2) << "x over " << run_adjusted.size()
              << " cases, weighted by the step's share of GEMMs and convolutions): MAPE " << fixed(r["mean"], 1) << "%, median " << fixed(r["median"], 1) << "%, max "
              << fixed(r["max"], 1) << "%\n";
  }
  finish();
}


}  // namespace dnnperf::validation
