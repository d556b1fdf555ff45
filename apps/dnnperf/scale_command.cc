#include "apps/dnnperf/predict_command.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/dnnperf/prediction_report.h"
#include "apps/dnnperf/run_options.h"
#include "core/common/error.h"
#include "core/common/format.h"
#include "networks/import/network_loader.h"
#include "predictor/prediction/scaling.h"

namespace dnnperf::cli {
namespace {

void run_scale(const RunOptions& o, const std::string& scaling_name, const std::string& csv_path) {
  if (o.batch <= 0) throw InputError("--batch must be positive");
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  const RunConfig config = run_config(o, hw);
  const std::vector<int> nodes = parse_node_counts(o.nodes);
  Scaling scaling = Scaling::weak;
  if (scaling_name == "strong") scaling = Scaling::strong;
  else if (scaling_name != "weak") throw InputError("--scaling: unknown value '" + scaling_name + "' (weak or strong)");
  std::optional<Graph> last;
  const auto points = scale(
      [&](std::int64_t batch) { return load_network(o.network, load_options(o, batch)); }, hw, config, o.batch, nodes, scaling);
  const Graph g = load_network(o.network, load_options(o, points.front().prediction.batch_per_device));

  if (!csv_path.empty()) {
    std::ofstream csv(csv_path);
    if (!csv) throw InputError(csv_path + ": cannot write the CSV file");
    csv << "nodes,devices,batch_per_device,global_batch,iteration_s,samples_per_s,speedup,efficiency,compute_s,comm_s,comm_exposed_s,memory_per_device_bytes,fits_in_memory,sync_wait\n";
    csv << std::setprecision(9);
    for (const ScalePoint& s : points) {
      const Prediction& p = s.prediction;
      csv << s.nodes << "," << p.devices << "," << p.batch_per_device << "," << p.global_batch << "," << p.iteration_s << ","
          << p.samples_per_s << "," << s.speedup << "," << s.efficiency << "," << p.compute_s << "," << p.comm_s << ","
          << p.comm_exposed_s << "," << p.memory.total() << "," << (p.memory.fits() ? 1 : 0) << "," << p.sync_wait << "\n";
    }
  }
  if (o.json) {
    nlohmann::json j;
    j["network"] = g.name();
    j["hardware"] = hw.name;
    j["scaling"] = scaling_name;
    j["points"] = nlohmann::json::array();
    for (const ScalePoint& s : points) {
      nlohmann::json point = prediction_json(s.prediction, g, false);
      point["speedup"] = s.speedup;
      point["efficiency"] = s.efficiency;
      j["points"].push_back(std::move(point));
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  const Prediction& first = points.front().prediction;
  // The wait for the slowest rank, where the profile measured it (DeviceSpec::sync_wait).
  const bool waits = std::any_of(points.begin(), points.end(), [](const ScalePoint& s) { return s.prediction.sync_wait != 1.0; });
  std::cout << g.name() << " on " << hw.name << " nodes of " << first.config.plan.devices_per_node << ", " << scaling_name
            << " scaling, batch " << o.batch << (scaling == Scaling::weak ? " per device" : " global") << ", "
            << precision_name(first.config.precision) << ", " << optimizer_name(first.config.optimizer) << ", gradients "
            << sync_name(first.config.plan.sync) << "\n\n";
  std::cout << std::right << std::setw(7) << "nodes" << std::setw(8) << "GPUs" << std::setw(8) << "batch" << std::setw(14)
            << "iteration ms" << std::setw(14) << "samples/s" << std::setw(9) << "speedup" << std::setw(8) << "eff %"
            << std::setw(12) << "compute ms" << std::setw(13) << "exposed ms" << std::setw(10) << "mem GiB" << (waits ? "    wait" : "") << "\n";
  for (const ScalePoint& s : points) {
    const Prediction& p = s.prediction;
    std::cout << std::setw(7) << s.nodes << std::setw(8) << p.devices << std::setw(8) << p.batch_per_device << std::setw(14)
              << ms(p.iteration_s) << std::setw(14) << fixed(p.samples_per_s, 0) << std::setw(9) << fixed(s.speedup, 1)
              << std::setw(8) << fixed(100 * s.efficiency, 1) << std::setw(12) << ms(p.compute_s) << std::setw(13)
              << ms(p.comm_exposed_s) << std::setw(10) << fixed(p.memory.total() / (1024.0 * 1024 * 1024), 1)
              << (waits ? (std::ostringstream() << std::setw(7) << fixed(p.sync_wait, 3) << "x").str() : "")
              << (p.memory.fits() ? "" : "  does not fit") << "\n";
  }
  if (waits)
    std::cout << "\nwait: the computation's factor for waiting, every step, for the slowest rank (profile's sync_wait, measured at "
              << hw.device.sync_wait.rbegin()->first << " ranks; beyond, the slowest of that many independently wandering ranks)\n";
  if (!csv_path.empty()) std::cout << "\nwrote " << csv_path << " (plot it: /usr/bin/python3 scripts/plot_scaling.py " << csv_path << ")\n";
}

}  // namespace

void add_scale_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  o->nodes = "1..64";
  auto scaling = std::make_shared<std::string>("weak");
  auto csv = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("scale", "Predict how training throughput scales over node counts");
  add_run_options(c, *o);
  c->add_option("--batch,-b", o->batch, "samples per device (weak) or in total (strong)")->required();
  c->add_option("--nodes", o->nodes, "node counts: a list 1,2,8, a range of powers of two 1..4096, or A..B:STEP")->capture_default_str();
  c->add_option("--scaling", *scaling, "weak (fixed batch per device) or strong (fixed global batch)")->capture_default_str();
  c->add_option("--csv", *csv, "also write the points to this CSV file");
  c->callback([o, scaling, csv] { run_scale(*o, *scaling, *csv); });
}

}  // namespace dnnperf::cli
