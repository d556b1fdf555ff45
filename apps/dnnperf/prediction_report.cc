#include "apps/dnnperf/prediction_report.h"

#include <iomanip>
#include <map>

#include "core/common/format.h"
#include "core/common/table.h"

namespace dnnperf::cli {

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
  if (!p.config.inference) j["accumulation_steps"] = p.config.accumulation_steps;
  j["dtype"] = precision_name(p.config.precision);
  j["optimizer"] = optimizer_name(p.config.optimizer);
  if (!p.config.inference) j["fused_optimizer"] = p.config.fused_optimizer;
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
  j["overlap_cost_s"] = p.overlap_cost_s;
  j["gradient_bytes"] = p.gradient_bytes;
  j["launch"] = launch_name(p.config.launch);
  if (p.host_dispatch_s > 0) {
    j["host_dispatch_s"] = p.host_dispatch_s;
    j["device_waiting_s"] = p.device_waiting_s;
    nlohmann::json bounds;
    const auto phase = [&](const char* name, const Prediction::PhaseLoad& l) {
      if (l.host_s > 0 || l.kernels_s > 0)
        bounds[name] = {{"bound", l.host_bound() ? "host" : "device"}, {"host_s", l.host_s}, {"kernels_s", l.kernels_s}, {"waiting_s", l.waiting_s}};
    };
    phase("forward", p.forward_load);
    phase("backward", p.backward_load);
    phase("update", p.update_load);
    j["phase_bounds"] = std::move(bounds);
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

void add_step_limit(nlohmann::json& j, const StepLimit& l) {
  j["bound"] = step_limit_name(l.limit);
  j["bound_parts_s"] = {{"network", l.network_s}, {"latency", l.latency_s}, {"straggler", l.straggler_s}, {"host", l.host_s}};
}

void print_step_limit(std::ostream& out, const StepLimit& l) {
  out << "bound               " << step_limit_name(l.limit) << " (beyond the kernels' own work: network " << ms(l.network_s) << ", latency "
      << ms(l.latency_s) << ", stragglers " << ms(l.straggler_s) << ", host " << ms(l.host_s) << " ms)\n";
}

void print_memory(std::ostream& out, const Prediction& p) {
  const MemoryEstimate& m = p.memory;
  const auto gib = [](double b) { return fixed(b / (1024.0 * 1024.0 * 1024.0), 2) + " GiB"; };
  out << "memory per device   " << gib(m.total()) << " of " << gib(m.capacity) << " (weights " << gib(m.weights)
            << ", gradients " << gib(m.gradients) << ", optimizer " << gib(m.optimizer_state) << ", activations "
            << gib(m.activations) << ", workspace " << gib(m.workspace) << ")\n";
  if (!m.fits()) out << "DOES NOT FIT: short by " << gib(m.shortfall()) << " per device\n";
}

void print_prediction(std::ostream& out, const Prediction& p, const Graph& g, bool summary) {
  out << p.network << " on " << p.devices << " x " << p.hardware << " (" << p.config.plan.nodes << " node"
            << (p.config.plan.nodes > 1 ? "s" : "") << " x " << p.config.plan.devices_per_node << "), batch "
            << p.batch_per_device << " per device"
            << (p.config.accumulation_steps > 1 && !p.config.inference ? " x " + std::to_string(p.config.accumulation_steps) + " micro-batches" : "")
            << " (global " << p.global_batch << "), " << precision_name(p.config.precision)
            << (p.config.inference ? ", inference"
                                : ", " + std::string(p.config.fused_optimizer ? "fused " : "") + std::string(optimizer_name(p.config.optimizer)) +
                                      ", gradients " + sync_name(p.config.plan.sync))
            << "\n\n";
  if (!summary) {
    Table layers;
    layers.column("layer", Table::left).column("op", Table::left).column("forward ms").column("backward ms");
    for (const LayerTime& l : p.layers) {
      const Op& op = g.op(l.op);
      const std::string name = op.name.size() > 43 ? "..." + op.name.substr(op.name.size() - 40) : op.name;
      layers.row({name, std::string(op_kind_name(op.kind)), ms(l.forward_s), ms(l.backward_s)});
    }
    layers.print(out);
    out << "\n";
  }
  if (p.config.inference) {
    out << "latency             " << ms(p.iteration_s) << " ms per batch of " << p.batch_per_device << "\n"
              << "throughput          " << fixed(p.samples_per_s, 1) << " samples/s over " << p.devices << " devices\n";
  } else {
    out << "forward             " << ms(p.forward_s) << " ms (loss " << ms(p.loss_s) << " ms)\n"
              << "backward            " << ms(p.backward_s) << " ms\n"
              << "optimizer update    " << ms(p.update_s) << " ms\n"
              << "compute             " << ms(p.compute_s) << " ms\n"
              << "all-reduce          " << ms(p.comm_s) << " ms in " << p.allreduces.size() << " calls, "
              << fixed(p.gradient_bytes / (1024.0 * 1024.0), 1) << " MiB of gradients"
              << (p.ddp_overhead_s > 0 ? ", with DDP's own " + ms(p.ddp_overhead_s) + " ms per step (profile's ddp_step_overhead_s)" : "")
              << "; exposed " << ms(p.comm_exposed_s) << " ms"
              << (p.overlap_cost_s > 0 ? "; overlapping it cost the kernels " + ms(p.overlap_cost_s) + " ms" : "") << "\n"
              << "iteration           " << ms(p.iteration_s) << " ms"
              << (p.iteration_high_s > p.iteration_low_s ? " (95% interval " + ms(p.iteration_low_s) + " - " + ms(p.iteration_high_s) + " ms)" : "") << "\n"
              << "throughput          " << fixed(p.samples_per_s, 1) << " samples/s\n";
    if (p.epoch_s)
      out << "epoch               " << fixed(*p.epoch_s, 1) << " s (" << *p.iterations_per_epoch << " iterations)\n";
  }
  if (p.host_dispatch_s > 0) {
    out << "host                " << ms(p.host_dispatch_s) << " ms queueing kernels; the device waits " << ms(p.device_waiting_s)
              << " ms of it (profile's host_dispatch_s; --launch graph removes it)\n";
    const auto phase = [&](const char* name, const Prediction::PhaseLoad& l) {
      if (l.host_s <= 0 && l.kernels_s <= 0) return;
      out << "  " << name << std::string(18 - std::string(name).size(), ' ') << (l.host_bound() ? "host-bound: " : "device-bound: ")
          << "host " << ms(l.host_s) << " ms, kernels " << ms(l.kernels_s) << " ms, device idle " << ms(l.waiting_s) << " ms\n";
    };
    phase("forward", p.forward_load);
    phase("backward", p.backward_load);
    phase("update", p.update_load);
  } else if (p.config.launch == Launch::graph) {
    out << "launch              graph replay: no per-kernel dispatch from the host\n";
  }
  if (p.framework_s > 0)
    out << "framework           " << ms(p.framework_s) << " ms of the computation is the framework's own work per op (profile's host_op_s)\n";
  print_memory(out, p);
}

}  // namespace dnnperf::cli
