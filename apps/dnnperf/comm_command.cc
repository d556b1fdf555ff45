#include "apps/dnnperf/comm_command.h"
#include "apps/dnnperf/cli_style.h"

#include <algorithm>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/common/format.h"
#include "core/common/output_file.h"
#include "models/comm/allreduce.h"
#include "predictor/prediction/predict.h"
#include "models/comm/fitted_comm_model.h"
#include "profile/hardware_profile.h"

namespace dnnperf::cli {
namespace {

struct CommOptions {
  std::string hardware = "cpu";
  std::string collective = "allreduce";
  double bytes = 0;
  int procs = 0;
  std::string algorithm = "best";
  std::string mode = "isolated";
  bool json = false;
};

void run_comm(const CommOptions& o) {
  if (!(o.bytes > 0 && o.bytes < 1e18)) throw InputError("--bytes must be a positive number below 1e18");
  if (o.procs < 1 || o.procs > kMaxRanks) throw InputError("--procs must be in [1, " + std::to_string(kMaxRanks) + "]");
  if (o.collective != "allreduce") throw InputError("--collective: only allreduce has models in this version");
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  nlohmann::json out = {{"collective", o.collective}, {"bytes", o.bytes}, {"procs", o.procs}};
  const std::optional<CommMode> mode = parse_comm_mode(o.mode);
  if (!mode) throw InputError("--mode must be isolated or stream, is '" + o.mode + "'");
  out["mode"] = o.mode;
  const bool fitted = !hw.communication.empty();
  if (fitted) {
    if (comm_mode_for(hw, o.collective, *mode) != mode)
      throw InputError("profile '" + hw.name + "' has no " + o.collective + " models of " + o.mode +
                       " calls; measure them (mpirun ... dnnperf bench " + o.collective + " --mode " + o.mode + ") and fit them in");
    const FittedCommModel* m = nullptr;
    if (o.algorithm == "best") {
      for (const FittedCommModel& c : hw.communication)
        if (c.collective == o.collective && c.mode == *mode && !is_library_choice(c.algorithm) &&
            (!m || comm_seconds(c, o.bytes, o.procs) < comm_seconds(*m, o.bytes, o.procs)))
          m = &c;
    } else {
      m = find_comm_model(hw, o.collective, is_library_name(o.algorithm) ? library_choice_name(o.algorithm) : o.algorithm, *mode);
    }
    if (!m) throw InputError("profile '" + hw.name + "' has no fitted " + o.collective + " model for '" + o.algorithm + "' (" + o.mode + " calls)");
    const CommPrediction p = comm_prediction(*m, o.bytes, o.procs);
    const FittedCommModel& priced_by = m->for_ranks(o.procs);
    out.update({{"algorithm", m->algorithm}, {"model", comm_model_name(m->kind)}, {"seconds", p.seconds}, {"low", p.low}, {"high", p.high}, {"calibrated", true},
                // Priced by a fit of this rank count alone (it was measured), or by the model of all counts.
                {"ranks_measured", &priced_by != m}});
    if (!priced_by.library_choices.empty()) out["library_runs"] = std::string(priced_by.steps_of(o.bytes, o.procs));
  } else {
    if (o.algorithm == "default") throw InputError("'default' is the library's measured choice: fit the profile first (dnnperf fit)");
    // The datasheet's alpha-beta-gamma prices one call alone; a stream overlaps nothing it knows of.
    const CommGroup g = comm_group(hw, o.procs, std::min(o.procs, hw.node.devices));
    if (o.algorithm == "nccl" && hw.device.kind == "gpu") {
      // NCCL unmeasured: its own tuner's choice (models/comm/nccl_tuning.h).
      const NcclChoice c = nccl_allreduce(o.bytes, g, nccl_machine(hw));
      out.update({{"algorithm", c.algorithm}, {"model", "NCCL's tuner"}, {"seconds", c.seconds}, {"low", c.seconds}, {"high", c.seconds}, {"calibrated", false}});
    } else {
      std::pair<AllReduceAlgorithm, double> r;
      if (o.algorithm == "best") r = best_allreduce(o.bytes, g);
      else {
        const auto a = parse_allreduce(o.algorithm);
        if (!a) throw InputError("--algorithm: unknown '" + o.algorithm + "'" + (is_library_name(o.algorithm) ? ": a library's own choice needs its fitted model (dnnperf fit); nccl is priced unmeasured on GPU profiles only" : ""));
        r = {*a, allreduce_seconds(*a, o.bytes, g)};
      }
      out.update({{"algorithm", allreduce_name(r.first)}, {"model", "datasheet alpha-beta-gamma"}, {"seconds", r.second}, {"low", r.second}, {"high", r.second}, {"calibrated", false}});
    }
  }
  if (o.json) {
    print_json(std::cout, out, "comm");
    return;
  }
  std::cout << o.collective << " of " << static_cast<long long>(o.bytes) << " bytes over " << o.procs << " processes on " << hw.name
            << (o.mode == "stream" ? " (a call in a stream)" : "") << ": " << fixed(out["seconds"].get<double>() * 1e6, 2) << " us";
  if (fitted) std::cout << " (95% interval " << fixed(out["low"].get<double>() * 1e6, 2) << " - " << fixed(out["high"].get<double>() * 1e6, 2) << " us)";
  std::cout << ", " << out["algorithm"].get<std::string>();
  if (out.contains("library_runs")) std::cout << " (running " << out["library_runs"].get<std::string>() << " here)";
  std::cout << ", " << out["model"].get<std::string>() << (fitted ? "" : " (uncalibrated)");
  if (fitted) std::cout << (out["ranks_measured"].get<bool>() ? ", fitted to this rank count" : ", from the rank counts measured");
  std::cout << "\n";
}

}  // namespace

void add_comm_command(CLI::App& app) {
  auto o = std::make_shared<CommOptions>();
  CLI::App* c = app.add_subcommand("comm", "Predict one collective's time with a (fitted) profile");
  c->footer("Example:\n  dnnperf comm --hardware a100 --bytes 104857600 --procs 64 --algorithm ring");
  c->add_option("--hardware", o->hardware, "profile: name or path (a fitted one for intervals and 'default')")->capture_default_str();
  c->add_option("--collective", o->collective, "collective")->capture_default_str();
  c->add_option("--bytes", o->bytes, "message size in bytes")->required()->check(positive());
  c->add_option("--procs", o->procs, "number of processes")->required()->check(positive());
  c->add_option("--mode", o->mode,
                "isolated: one call after a barrier (latency); stream: a call among calls back to back, as gradient buckets go "
                "(the models bench --mode measured)")
      ->capture_default_str()
      ->check(CLI::IsMember({"isolated", "stream"}));
  c->add_option("--algorithm", o->algorithm, "ring, recursive_doubling, rabenseifner, binomial_tree, hierarchical, best, or a library's measured choice: default (MPI's), gloo, nccl (unmeasured on a GPU profile: NCCL's own tuner's choice)")->capture_default_str();
  c->add_flag("--json", o->json, "print one JSON object");
  c->callback([o] { run_comm(*o); });
}

}  // namespace dnnperf::cli
