#include "apps/dnnperf/net_command.h"
#include "apps/dnnperf/cli_style.h"

#include <iomanip>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/common/format.h"
#include "core/common/output_file.h"
#include "core/analysis/network_summary.h"
#include "networks/import/network_loader.h"
#include "core/lowering/lower.h"
#include "networks/zoo/zoo.h"

namespace dnnperf::cli {
namespace {

struct ShowOptions {
  std::string network;
  std::int64_t batch = 0;
  std::vector<std::int64_t> input;
  std::int64_t sequence = 0;
  bool json = false;
  bool totals_only = false;
  bool no_loss = false;
};

std::string output_shape(const Graph& g, const Op& op) {
  std::string s;
  for (std::size_t i = 0; i < op.outputs.size(); ++i) {
    if (i) s += ",";
    s += g.tensor(op.outputs[i]).shape.to_string();
  }
  return s;
}

nlohmann::json layer_json(const Graph& g, const Op& op, const LayerCounts& c) {
  nlohmann::json j;
  j["name"] = op.name;
  j["op"] = op_kind_name(op.kind);
  j["output_shape"] = g.tensor(op.outputs[0]).shape.dims();
  j["params"] = c.params;
  j["forward_flops"] = c.phase(Phase::forward).flops;
  j["forward_macs"] = c.forward_macs;
  j["backward_data_flops"] = c.phase(Phase::backward_data).flops;
  j["backward_weight_flops"] = c.phase(Phase::backward_weight).flops;
  j["backward_flops"] = c.backward_flops();
  j["update_flops"] = c.phase(Phase::update).flops;
  j["forward_bytes"] = c.phase(Phase::forward).bytes_read + c.phase(Phase::forward).bytes_written;
  j["activation_bytes"] = c.activation_bytes;
  return j;
}

void show(const ShowOptions& o) {
  LoadOptions load;
  if (o.batch) load.batch = o.batch;
  if (!o.input.empty()) load.image = std::array<std::int64_t, 2>{o.input[0], o.input.size() > 1 ? o.input[1] : o.input[0]};
  if (o.sequence) load.sequence = o.sequence;
  load.with_loss = !o.no_loss;
  const Graph g = load_network(o.network, load);
  const std::vector<Kernel> kernels = lower(g);
  const NetworkSummary s = summarize(g, kernels);

  if (o.json) {
    nlohmann::json j;
    j["network"] = g.name();
    j["source"] = o.network;
    j["ops"] = g.ops().size();
    j["kernels"] = kernels.size();
    j["totals"] = layer_json(g, g.ops().front(), s.totals);
    j["totals"].erase("name");
    j["totals"].erase("op");
    j["totals"].erase("output_shape");
    nlohmann::json layers = nlohmann::json::array();
    if (!o.totals_only)
      for (std::size_t i = 0; i < g.ops().size(); ++i) layers.push_back(layer_json(g, g.op(static_cast<int>(i)), s.layers[i]));
    j["layers"] = std::move(layers);
    print_json(std::cout, j, "net show");
    return;
  }

  std::cout << "network " << g.name() << " (" << o.network << "): " << g.ops().size() << " ops, "
            << kernels.size() << " kernels per training step\n\n";
  if (!o.totals_only) {
    std::cout << std::left << std::setw(44) << "layer" << std::setw(22) << "op" << std::setw(22) << "output"
              << std::right << std::setw(14) << "params" << std::setw(12) << "fwd GFLOP" << std::setw(12)
              << "bwd GFLOP" << std::setw(12) << "act MiB" << "\n";
    for (std::size_t i = 0; i < g.ops().size(); ++i) {
      const Op& op = g.op(static_cast<int>(i));
      const LayerCounts& c = s.layers[i];
      std::string name = op.name.size() > 43 ? "..." + op.name.substr(op.name.size() - 40) : op.name;
      std::cout << std::left << std::setw(44) << name << std::setw(22) << op_kind_name(op.kind) << std::setw(22)
                << output_shape(g, op) << std::right << std::setw(14) << with_commas(c.params) << std::setw(12)
                << fixed(c.phase(Phase::forward).flops / 1e9, 4) << std::setw(12) << fixed(c.backward_flops() / 1e9, 4)
                << std::setw(12) << mebibytes(static_cast<double>(c.activation_bytes)) << "\n";
    }
    std::cout << "\n";
  }
  const LayerCounts& t = s.totals;
  std::cout << "totals\n"
            << "  parameters          " << with_commas(t.params) << "\n"
            << "  forward             " << fixed(t.phase(Phase::forward).flops / 1e9, 3) << " GFLOP ("
            << fixed(t.forward_macs / 1e9, 3) << " GMAC in GEMMs and convolutions)\n"
            << "  backward            " << fixed(t.backward_flops() / 1e9, 3) << " GFLOP (data "
            << fixed(t.phase(Phase::backward_data).flops / 1e9, 3) << ", weight "
            << fixed(t.phase(Phase::backward_weight).flops / 1e9, 3) << ")\n"
            << "  optimizer update    " << fixed(t.phase(Phase::update).flops / 1e9, 3) << " GFLOP (SGD)\n"
            << "  forward traffic     " << mebibytes(t.phase(Phase::forward).bytes_read + t.phase(Phase::forward).bytes_written) << " MiB\n"
            << "  activations kept    " << mebibytes(static_cast<double>(t.activation_bytes)) << " MiB for backward\n";
}

}  // namespace

void add_net_command(CLI::App& app) {
  CLI::App* net = app.add_subcommand("net", "Inspect networks: the zoo, JSON and ONNX files");
  net->require_subcommand(1);

  CLI::App* list = net->add_subcommand("list", "List the networks of the built-in zoo");
  list->callback([] {
    for (const ZooEntry& e : zoo_networks()) std::cout << std::left << std::setw(22) << e.name << e.description << "\n";
  });

  auto o = std::make_shared<ShowOptions>();
  CLI::App* show_cmd = net->add_subcommand("show", "Per-layer parameters, FLOPs and activation memory of a network");
  show_cmd->footer("Examples:\n  dnnperf net show resnet50 -b 32 --summary\n  dnnperf net show gpt:layers=24,hidden=2048,heads=16 --seq 2048 --json");
  show_cmd->add_option("network", o->network, "zoo name or spec (see `net list`), FILE.json or FILE.onnx")->required();
  show_cmd->add_option("--batch,-b", o->batch, "samples per step (zoo default 1; files keep theirs unless given)")->check(positive());
  show_cmd->add_option("--input", o->input, "image size H,W (zoo CNNs)")->delimiter(',')->expected(1, 2)->check(positive());
  show_cmd->add_option("--seq", o->sequence, "tokens per sample (zoo transformers)")->check(positive());
  show_cmd->add_flag("--json", o->json, "print one JSON object (totals and layers)");
  show_cmd->add_flag("--totals-only", o->totals_only, "omit the per-layer rows");
  show_cmd->add_flag("--no-loss", o->no_loss, "zoo networks: stop at the logits");
  show_cmd->callback([o] { show(*o); });
}

}  // namespace dnnperf::cli
