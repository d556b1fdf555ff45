#include "apps/dnnperf/score_command.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/common/format.h"
#include "fitting/comm/comm_score.h"
#include "fitting/compute/compute_score.h"
#include "core/common/error.h"
#include "core/common/output_file.h"
#include "records/kernel_record.h"
#include "profile/hardware_profile.h"

namespace dnnperf::cli {
namespace {

struct ScoreOptions {
  std::string hardware;
  std::vector<std::string> files;
  bool json = false;
  std::string points;
};

/// The records' own run-to-run noise (fitting::run_noise) in percent; -1 where each point was timed once.
double run_noise(const fitting::CommScore& s) {
  std::vector<fitting::CommSample> samples;
  for (const fitting::ScoredMessage& m : s.messages) samples.push_back(m.sample);
  const fitting::RunNoise n = fitting::run_noise(samples);
  return n.points ? n.mean_percent : -1;
}

nlohmann::json comm_json(const fitting::CommData& data, const std::vector<fitting::CommScore>& scores) {
  nlohmann::json out = {{"excluded", nlohmann::json::array()}, {"models", nlohmann::json::array()}};
  for (const fitting::Exclusion& e : data.excluded) out["excluded"].push_back({{"where", e.where}, {"reason", e.reason}});
  for (const fitting::CommScore& s : scores) {
    nlohmann::json points = nlohmann::json::array();
    for (const fitting::ScoredMessage& m : s.messages)
      points.push_back({{"bytes", m.sample.bytes}, {"measured_s", m.sample.seconds}, {"predicted_s", m.prediction.seconds},
                        {"low_s", m.prediction.low}, {"high_s", m.prediction.high}});
    out["models"].push_back({{"algorithm", s.algorithm}, {"mode", comm_mode_name(s.mode)}, {"ranks", s.ranks}, {"model", s.model},
                             {"count", s.errors.count}, {"mape", s.errors.mape}, {"median", s.errors.median}, {"p90", s.errors.p90},
                             {"coverage", s.errors.coverage},
                             {"run_to_run_noise", run_noise(s) < 0 ? nlohmann::json(nullptr) : nlohmann::json(run_noise(s))}, {"points", points}});
  }
  return out;
}

void print_comm(const fitting::CommData& data, const std::vector<fitting::CommScore>& scores, const std::string& profile) {
  fitting::log_exclusions(std::cout, data.excluded);
  std::cout << data.samples.size() << " all-reduce measurements from " << data.host << " priced with " << profile << "\n\n"
            << std::left << std::setw(22) << "algorithm" << std::setw(10) << "mode" << std::setw(10) << "model" << std::right << std::setw(6) << "ranks"
            << std::setw(7) << "count" << std::setw(8) << "MAPE" << std::setw(8) << "median" << std::setw(8) << "p90" << std::setw(9) << "in 95%"
            << std::setw(8) << "bias %" << std::setw(8) << "noise" << "\n";
  for (const fitting::CommScore& s : scores) {
    double measured = 0, predicted = 0;
    for (const fitting::ScoredMessage& m : s.messages) measured += m.sample.seconds, predicted += m.prediction.seconds;
    std::cout << std::left << std::setw(22) << s.algorithm << std::setw(10) << comm_mode_name(s.mode) << std::setw(10) << s.model << std::right
              << std::setw(6) << s.ranks << std::setw(7) << s.errors.count << std::setw(8) << fixed(s.errors.mape, 1) << std::setw(8)
              << fixed(s.errors.median, 1) << std::setw(8) << fixed(s.errors.p90, 1) << std::setw(9) << fixed(100 * s.errors.coverage, 1)
              << std::setw(8) << fixed(100 * (predicted / measured - 1), 1) << std::setw(8)
              << (run_noise(s) < 0 ? std::string("-") : fixed(run_noise(s), 1)) << "\n";
  }
  std::cout << "\nnoise: where several files timed the same points, the mean (slowest - fastest) / mean of their runs, in percent\n";
}

void run_score(const ScoreOptions& o) {
  const HardwareProfile profile = find_hardware_profile(o.hardware);
  const fitting::ComputeData data = fitting::load_compute_data(o.files);
  // All-reduce records are priced by the profile's collective models, each by its algorithm and mode.
  fitting::CommData comm = fitting::load_comm_data(o.files, "allreduce");
  nlohmann::json comm_out;
  if (!comm.samples.empty()) {
    if (profile.communication.empty())
      throw InputError("profile '" + profile.name + "' has no fitted communication models to score all-reduce records with (dnnperf fit them first)");
    const std::vector<fitting::CommScore> scores = fitting::score_comm(profile, comm, "allreduce");
    if (data.samples.empty()) {
      if (scores.empty()) throw InputError("profile '" + profile.name + "' has no model of any algorithm and mode these all-reduce records hold");
      if (!o.points.empty())
        write_file_atomically(o.points, "points", [&](std::ostream& out) {
          out << "algorithm,mode,ranks,bytes,measured_s,predicted_s,low_s,high_s\n";
          for (const fitting::CommScore& c : scores)
            for (const fitting::ScoredMessage& m : c.messages)
              out << c.algorithm << "," << comm_mode_name(c.mode) << "," << c.ranks << "," << m.sample.bytes << "," << m.sample.seconds << ","
                  << m.prediction.seconds << "," << m.prediction.low << "," << m.prediction.high << "\n";
        });
      if (o.json) print_json(std::cout, {{"hardware", profile.name}, {"host", comm.host}, {"communication", comm_json(comm, scores)}}, "score");
      else print_comm(comm, scores, profile.name);
      return;
    }
    comm_out = comm_json(comm, scores);
    if (!o.json) {
      print_comm(comm, scores, profile.name);
      std::cout << "\n";
    }
  }
  fitting::check_device_kind(data, profile, o.files);
  if (data.samples.empty()) throw InputError("no usable GEMM, convolution, memory-pass or all-reduce measurements in the given files");
  std::vector<fitting::ScoredKernel> kernels;
  const std::vector<fitting::ClassScore> scores = fitting::score_compute(profile, data, &kernels);
  if (!o.points.empty()) {
    write_file_atomically(o.points, "points", [&](std::ostream& out) {
    out << "class,priced_by,op,params,flops,bytes,measured_s,predicted_s,low_s,high_s\n";
    for (const fitting::ScoredKernel& k : kernels) {
      const fitting::ComputeSample& s = *k.sample;
      std::string op = s.kernel_class, params;
      if (s.kernel.cls == KernelClass::gemm || s.kernel.cls == KernelClass::conv) {
        auto [name, p] = matrix_kernel_record(s.kernel);
        op = name;
        params = p.dump();
      }
      std::string quoted;  // CSV: the JSON's quotes doubled
      for (char ch : params) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      out << s.kernel_class << "," << k.priced_by << "," << op << ",\"" << quoted << "\"," << s.kernel.flops << ","
          << s.kernel.bytes_read + s.kernel.bytes_written << "," << s.seconds << "," << k.predicted_seconds << "," << k.low << ","
          << k.high << "\n";
    }
    });
  }
  if (o.json) {
    nlohmann::json out = {{"hardware", profile.name}, {"host", data.host}, {"device", data.device}};
    if (!comm_out.is_null()) out["communication"] = comm_out;
    out["excluded"] = nlohmann::json::array();
    for (const fitting::Exclusion& e : data.excluded) out["excluded"].push_back({{"where", e.where}, {"reason", e.reason}});
    if (fitting::has_unheld_convolutions(data)) out["notes"].push_back(fitting::kUnheldConvolutionsNote);
    for (const fitting::ClassScore& s : scores)
      out["classes"].push_back({{"class", s.kernel_class}, {"priced_by", s.priced_by}, {"count", s.errors.count},
                                {"mape", s.errors.mape}, {"median", s.errors.median}, {"p90", s.errors.p90}, {"weighted", s.errors.weighted},
                                {"coverage", s.errors.coverage}, {"measured_s", s.measured_seconds},
                                {"predicted_s", s.predicted_seconds}});
    print_json(std::cout, out, "score");
    return;
  }
  int duplicates = 0;  // the same shape in several networks' files: scored once
  for (const fitting::Exclusion& e : data.excluded)
    if (e.reason == "duplicate shape") ++duplicates;
    else std::cout << "excluded: " << e.where << ": " << e.reason << "\n";
  if (duplicates) std::cout << duplicates << " repeated shapes scored once\n";
  std::cout << data.samples.size() << " measured kernels from " << data.host << " (" << data.device << ") priced with "
            << profile.name << "\n\n"
            << std::left << std::setw(24) << "class" << std::setw(12) << "priced by" << std::right << std::setw(7) << "count"
            << std::setw(8) << "MAPE" << std::setw(8) << "median" << std::setw(8) << "p90" << std::setw(10) << "weighted" << std::setw(9) << "in 95%"
            << std::setw(13) << "measured ms" << std::setw(14) << "predicted ms" << std::setw(8) << "bias %" << "\n";
  for (const fitting::ClassScore& s : scores)
    std::cout << std::left << std::setw(24) << s.kernel_class << std::setw(12) << s.priced_by << std::right << std::setw(7)
              << s.errors.count << std::setw(8) << fixed(s.errors.mape, 1) << std::setw(8) << fixed(s.errors.median, 1) << std::setw(8)
              << fixed(s.errors.p90, 1) << std::setw(10) << fixed(s.errors.weighted, 1) << std::setw(9) << fixed(100 * s.errors.coverage, 1) << std::setw(13)
              << fixed(1e3 * s.measured_seconds, 2) << std::setw(14) << fixed(1e3 * s.predicted_seconds, 2) << std::setw(8)
              << fixed(100 * (s.predicted_seconds / s.measured_seconds - 1), 1) << "\n";
  std::cout << "\nbias: sum of predicted over sum of measured times, minus one (what a network's total would be off by)\n";
  if (fitting::has_unheld_convolutions(data)) std::cout << "note: " << fitting::kUnheldConvolutionsNote << "\n";
}

}  // namespace

void add_score_command(CLI::App& app) {
  auto o = std::make_shared<ScoreOptions>();
  CLI::App* c = app.add_subcommand(
      "score", "Price measured kernels with a profile; errors and time-weighted bias per kernel class, on data the fit did not see");
  c->footer("Examples:\n  dnnperf score --hardware h200 gemm.jsonl conv.jsonl --points scored.csv\n  dnnperf score --hardware fitted.json loop.jsonl   # all-reduce records");
  c->add_option("measurements", o->files, "measurement files (JSON Lines from dnnperf bench, scripts/torch_bench.py or dnnperf-allreduce-loop)")->required();
  c->add_option("--hardware", o->hardware, "profile to score: name or path")->required();
  c->add_flag("--json", o->json, "print one JSON object");
  c->add_option("--points", o->points, "also write every kernel's (all-reduce records alone: every message's) measured and predicted time to this CSV file");
  c->callback([o] { run_score(*o); });
}

}  // namespace dnnperf::cli
