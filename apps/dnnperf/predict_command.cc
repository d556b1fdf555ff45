#include "apps/dnnperf/predict_command.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/dnnperf/format.h"
#include "predictor/common/error.h"
#include "predictor/import/network_loader.h"
#include "predictor/prediction/scaling.h"

namespace dnnperf::cli {
namespace {

struct Options {
  std::string network;
  std::string hardware = "a100";
  std::int64_t batch = 0;
  std::string nodes = "1";
  int gpus_per_node = 0;  // 0: all devices of a node
  std::string dtype = "fp32";
  std::string optimizer = "sgd";
  std::string allreduce = "best";
  double bucket_mib = 25;
  bool no_overlap = false;
  std::string sync = "bucketed";
  std::int64_t dataset_size = 0;
  bool inference = false;
  bool json = false;
  bool summary = false;
  std::vector<std::int64_t> input;
  std::int64_t sequence = 0;
  std::string scaling = "weak";
  std::string csv;
};

void add_common_options(CLI::App* c, Options& o) {
  c->add_option("--network,-n", o.network, "zoo name or spec, FILE.json or FILE.onnx")->required();
  c->add_option("--hardware", o.hardware, "hardware profile: short name (v100, a100, a100-40gb, h100, h200, cpu) or a JSON path")->capture_default_str();
  c->add_option("--gpus-per-node", o.gpus_per_node, "devices used per node (default: all of the profile's node)");
  c->add_option("--dtype", o.dtype, "fp32, tf32, fp16 or bf16 (the last two: mixed precision with fp32 master weights)")->capture_default_str();
  c->add_option("--optimizer", o.optimizer, "sgd, momentum or adam")->capture_default_str();
  c->add_option("--allreduce", o.allreduce, "ring, recursive_doubling, rabenseifner, binomial_tree, hierarchical, best (the cheapest per message), or a library's own measured choice: default (MPI's), gloo, nccl")->capture_default_str();
  c->add_option("--bucket-mib", o.bucket_mib, "DDP gradient bucket size in MiB")->capture_default_str();
  c->add_flag("--no-overlap", o.no_overlap, "one blocking all-reduce after backward (same as --sync end)");
  c->add_option("--sync", o.sync, "gradient all-reduce: bucketed (DDP, overlapping backward), per-layer (blocking) or end (blocking)")->capture_default_str();
  c->add_option("--dataset-size", o.dataset_size, "samples per epoch, for the epoch time");
  c->add_flag("--inference", o.inference, "predict inference (forward pass) instead of training");
  c->add_option("--input", o.input, "image size H,W (zoo CNNs)")->delimiter(',')->expected(1, 2);
  c->add_option("--seq", o.sequence, "tokens per sample (zoo transformers)");
  c->add_flag("--json", o.json, "print one JSON object");
}

template <typename T>
T parse_or_fail(std::optional<T> value, const std::string& option, const std::string& text) {
  if (!value) throw InputError("--" + option + ": unknown value '" + text + "'");
  return *value;
}

RunConfig run_config(const Options& o, const HardwareProfile& hw) {
  RunConfig c;
  c.precision = parse_or_fail(parse_precision(o.dtype), "dtype", o.dtype);
  c.optimizer = parse_or_fail(parse_optimizer(o.optimizer), "optimizer", o.optimizer);
  if (o.allreduce == "default" || is_library_name(o.allreduce))
    c.plan.allreduce_library = o.allreduce == "default" ? "mpi" : o.allreduce;
  else if (o.allreduce != "best")
    c.plan.allreduce = parse_or_fail(parse_allreduce(o.allreduce), "allreduce", o.allreduce);
  if (!(o.bucket_mib > 0)) throw InputError("--bucket-mib must be positive, is " + std::to_string(o.bucket_mib));
  c.plan.bucket_bytes = o.bucket_mib * 1024 * 1024;
  c.plan.first_bucket_bytes = std::min(c.plan.first_bucket_bytes, c.plan.bucket_bytes);
  if (o.sync == "bucketed") c.plan.sync = GradientSync::bucketed;
  else if (o.sync == "per-layer") c.plan.sync = GradientSync::per_layer;
  else if (o.sync == "end") c.plan.sync = GradientSync::at_end;
  else throw InputError("--sync: unknown value '" + o.sync + "' (bucketed, per-layer or end)");
  if (o.no_overlap) c.plan.sync = GradientSync::at_end;
  c.plan.devices_per_node = o.gpus_per_node > 0 ? o.gpus_per_node : hw.node.devices;
  if (o.gpus_per_node < 0) throw InputError("--gpus-per-node must be positive");
  if (o.dataset_size < 0) throw InputError("--dataset-size must be positive");
  if (o.dataset_size > 0) c.dataset_size = o.dataset_size;
  c.inference = o.inference;
  return c;
}

LoadOptions load_options(const Options& o, std::int64_t batch) {
  LoadOptions l;
  l.batch = batch;
  if (!o.input.empty()) l.image = std::array<std::int64_t, 2>{o.input[0], o.input.size() > 1 ? o.input[1] : o.input[0]};
  if (o.sequence) l.sequence = o.sequence;
  l.with_loss = !o.inference;
  return l;
}

std::string ms(double seconds) { return fixed(seconds * 1e3, 3); }

std::string sync_name(GradientSync s) {
  switch (s) {
    case GradientSync::bucketed: return "bucketed";
    case GradientSync::per_layer: return "per-layer";
    case GradientSync::at_end: return "end";
  }
  return "?";
}

nlohmann::json prediction_json(const Prediction& p, const Graph& g, bool layers) {
  nlohmann::json j;
  j["network"] = p.network;
  j["hardware"] = p.hardware;
  j["devices"] = p.devices;
  j["nodes"] = p.config.plan.nodes;
  j["devices_per_node"] = p.config.plan.devices_per_node;
  j["batch_per_device"] = p.batch_per_device;
  j["global_batch"] = p.global_batch;
  j["dtype"] = precision_name(p.config.precision);
  j["optimizer"] = optimizer_name(p.config.optimizer);
  j["inference"] = p.config.inference;
  j["gradient_sync"] = sync_name(p.config.plan.sync);
  j["iteration_s"] = p.iteration_s;
  j["low"] = p.iteration_low_s;
  j["high"] = p.iteration_high_s;
  j["samples_per_s"] = p.samples_per_s;
  j["compute_s"] = p.compute_s;
  j["forward_s"] = p.forward_s;
  j["backward_s"] = p.backward_s;
  j["loss_s"] = p.loss_s;
  j["update_s"] = p.update_s;
  j["comm_s"] = p.comm_s;
  j["comm_exposed_s"] = p.comm_exposed_s;
  j["gradient_bytes"] = p.gradient_bytes;
  if (p.host_dispatch_s > 0) {
    j["host_dispatch_s"] = p.host_dispatch_s;
    j["device_waiting_s"] = p.device_waiting_s;
  }
  if (p.framework_s > 0) j["framework_s"] = p.framework_s;
  if (p.sync_wait != 1.0) j["sync_wait"] = p.sync_wait;
  if (p.ddp_overhead_s > 0) j["ddp_overhead_s"] = p.ddp_overhead_s;
  j["allreduce_calls"] = p.allreduces.size();
  j["communication_model"] = p.fitted_communication ? "fitted" : "datasheet";
  if (!p.allreduces.empty()) {
    std::map<std::string, int> algorithms;
    for (const AllReduceCall& c : p.allreduces) ++algorithms[c.algorithm];
    j["allreduce_algorithms"] = algorithms;
  }
  if (p.epoch_s) {
    j["iterations_per_epoch"] = *p.iterations_per_epoch;
    j["epoch_s"] = *p.epoch_s;
  }
  j["memory_per_device_bytes"] = p.memory.total();
  j["memory"] = {{"weights", p.memory.weights},       {"gradients", p.memory.gradients},
                 {"optimizer_state", p.memory.optimizer_state}, {"activations", p.memory.activations},
                 {"workspace", p.memory.workspace},   {"capacity", p.memory.capacity},
                 {"shortfall", p.memory.shortfall()}};
  j["fits_in_memory"] = p.memory.fits();
  if (layers) {
    nlohmann::json rows = nlohmann::json::array();
    for (const LayerTime& l : p.layers)
      rows.push_back({{"name", g.op(l.op).name}, {"op", op_kind_name(g.op(l.op).kind)}, {"forward_s", l.forward_s},
                      {"backward_s", l.backward_s}, {"update_s", l.update_s}});
    j["layers"] = std::move(rows);
  }
  return j;
}

void print_memory(const Prediction& p) {
  const MemoryEstimate& m = p.memory;
  const auto gib = [](double b) { return fixed(b / (1024.0 * 1024.0 * 1024.0), 2) + " GiB"; };
  std::cout << "memory per device   " << gib(m.total()) << " of " << gib(m.capacity) << " (weights " << gib(m.weights)
            << ", gradients " << gib(m.gradients) << ", optimizer " << gib(m.optimizer_state) << ", activations "
            << gib(m.activations) << ", workspace " << gib(m.workspace) << ")\n";
  if (!m.fits()) std::cout << "DOES NOT FIT: short by " << gib(m.shortfall()) << " per device\n";
}

void print_prediction(const Prediction& p, const Graph& g, const Options& o) {
  std::cout << p.network << " on " << p.devices << " x " << p.hardware << " (" << p.config.plan.nodes << " node"
            << (p.config.plan.nodes > 1 ? "s" : "") << " x " << p.config.plan.devices_per_node << "), batch "
            << p.batch_per_device << " per device (global " << p.global_batch << "), " << precision_name(p.config.precision)
            << (p.config.inference ? ", inference" : ", " + std::string(optimizer_name(p.config.optimizer)) + ", gradients " + sync_name(p.config.plan.sync))
            << "\n\n";
  if (!o.summary) {
    std::cout << std::left << std::setw(44) << "layer" << std::setw(22) << "op" << std::right << std::setw(14)
              << "forward ms" << std::setw(14) << "backward ms" << "\n";
    for (const LayerTime& l : p.layers) {
      const Op& op = g.op(l.op);
      const std::string name = op.name.size() > 43 ? "..." + op.name.substr(op.name.size() - 40) : op.name;
      std::cout << std::left << std::setw(44) << name << std::setw(22) << op_kind_name(op.kind) << std::right
                << std::setw(14) << ms(l.forward_s) << std::setw(14) << ms(l.backward_s) << "\n";
    }
    std::cout << "\n";
  }
  if (p.config.inference) {
    std::cout << "latency             " << ms(p.iteration_s) << " ms per batch of " << p.batch_per_device << "\n"
              << "throughput          " << fixed(p.samples_per_s, 1) << " samples/s over " << p.devices << " devices\n";
  } else {
    std::cout << "forward             " << ms(p.forward_s) << " ms (loss " << ms(p.loss_s) << " ms)\n"
              << "backward            " << ms(p.backward_s) << " ms\n"
              << "optimizer update    " << ms(p.update_s) << " ms\n"
              << "compute             " << ms(p.compute_s) << " ms\n"
              << "all-reduce          " << ms(p.comm_s) << " ms in " << p.allreduces.size() << " calls, "
              << fixed(p.gradient_bytes / (1024.0 * 1024.0), 1) << " MiB of gradients"
              << (p.ddp_overhead_s > 0 ? ", with DDP's own " + ms(p.ddp_overhead_s) + " ms per step (profile's ddp_step_overhead_s)" : "")
              << "; exposed " << ms(p.comm_exposed_s) << " ms\n"
              << "iteration           " << ms(p.iteration_s) << " ms"
              << (p.iteration_high_s > p.iteration_low_s ? " (95% interval " + ms(p.iteration_low_s) + " - " + ms(p.iteration_high_s) + " ms)" : "") << "\n"
              << "throughput          " << fixed(p.samples_per_s, 1) << " samples/s\n";
    if (p.epoch_s)
      std::cout << "epoch               " << fixed(*p.epoch_s, 1) << " s (" << *p.iterations_per_epoch << " iterations)\n";
  }
  if (p.host_dispatch_s > 0)
    std::cout << "host                " << ms(p.host_dispatch_s) << " ms queueing kernels; the device waits " << ms(p.device_waiting_s)
              << " ms of it (profile's host_dispatch_s)\n";
  if (p.framework_s > 0)
    std::cout << "framework           " << ms(p.framework_s) << " ms of the computation is the framework's own work per op (profile's host_op_s)\n";
  print_memory(p);
}

void run_predict(const Options& o) {
  if (o.batch <= 0) throw InputError("--batch must be positive");
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  RunConfig config = run_config(o, hw);
  const std::vector<int> nodes = parse_node_counts(o.nodes);
  if (nodes.size() != 1) throw InputError("--nodes: predict takes one node count; use `dnnperf scale` for several");
  config.plan.nodes = nodes[0];
  const Graph g = load_network(o.network, load_options(o, o.batch));
  const Prediction p = predict(g, hw, config);
  if (o.json) std::cout << prediction_json(p, g, true).dump(2) << "\n";
  else {
    print_prediction(p, g, o);
    if (const double f = co_run_factor(hw.device, config.plan.devices_per_node); f != 1.0)
      std::cout << "co-running          every kernel " << fixed(f, 3) << "x its time alone: " << config.plan.devices_per_node
                << " ranks share a node (profile's co_run_slowdown)\n";
    if (p.sync_wait != 1.0)
      std::cout << "waiting             the computation " << fixed(p.sync_wait, 3) << "x a rank's own: each step waits for the slowest of "
                << p.devices << " ranks (profile's sync_wait)\n";
  }
}

void run_scale(const Options& o) {
  if (o.batch <= 0) throw InputError("--batch must be positive");
  const HardwareProfile hw = find_hardware_profile(o.hardware);
  const RunConfig config = run_config(o, hw);
  const std::vector<int> nodes = parse_node_counts(o.nodes);
  Scaling scaling = Scaling::weak;
  if (o.scaling == "strong") scaling = Scaling::strong;
  else if (o.scaling != "weak") throw InputError("--scaling: unknown value '" + o.scaling + "' (weak or strong)");
  std::optional<Graph> last;
  const auto points = scale(
      [&](std::int64_t batch) { return load_network(o.network, load_options(o, batch)); }, hw, config, o.batch, nodes, scaling);
  const Graph g = load_network(o.network, load_options(o, points.front().prediction.batch_per_device));

  if (!o.csv.empty()) {
    std::ofstream csv(o.csv);
    if (!csv) throw InputError(o.csv + ": cannot write the CSV file");
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
    j["scaling"] = o.scaling;
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
  std::cout << g.name() << " on " << hw.name << " nodes of " << first.config.plan.devices_per_node << ", " << o.scaling
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
  if (!o.csv.empty()) std::cout << "\nwrote " << o.csv << " (plot it: /usr/bin/python3 scripts/plot_scaling.py " << o.csv << ")\n";
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("predict", "Predict one training iteration (or inference) of a network on a cluster");
  add_common_options(c, *o);
  c->add_option("--batch,-b", o->batch, "samples per device")->required();
  c->add_option("--nodes", o->nodes, "number of nodes")->capture_default_str();
  c->add_flag("--summary", o->summary, "omit the per-layer table");
  c->callback([o] { run_predict(*o); });
}

void add_scale_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  o->nodes = "1..64";
  CLI::App* c = app.add_subcommand("scale", "Predict how training throughput scales over node counts");
  add_common_options(c, *o);
  c->add_option("--batch,-b", o->batch, "samples per device (weak) or in total (strong)")->required();
  c->add_option("--nodes", o->nodes, "node counts: a list 1,2,8, a range of powers of two 1..4096, or A..B:STEP")->capture_default_str();
  c->add_option("--scaling", o->scaling, "weak (fixed batch per device) or strong (fixed global batch)")->capture_default_str();
  c->add_option("--csv", o->csv, "also write the points to this CSV file");
  c->callback([o] { run_scale(*o); });
}

}  // namespace dnnperf::cli
