#include "validation/in_step_warmth.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "models/compute/profile_model.h"
#include "models/compute/step_warmth.h"
#include "core/common/input_file.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "records/kernel_record.h"
#include "networks/import/network_loader.h"
#include "predictor/prediction/predict.h"

namespace dnnperf {
namespace {

/// A step's convolutions priced cold and with all of the warmth's savings, summed per shape.
struct PricedShape {
  int count = 0;
  double cold_s = 0, saved_s = 0, far_bytes = 0;
};
using PricedShapes = std::map<MatrixKernelKey, PricedShape>;

PricedShapes price_convolutions(const Graph& graph, const HardwareProfile& hw, bool inference) {
  RunConfig config;
  config.inference = inference;
  const PricedStep step = price_step(graph, hw, config);  // lowered, with each kernel's residency
  StepWarmth full = hw.device.step_warmth;
  full.realized_share = 1;
  full.realized_share_inference = 1;
  full.in_step_excess = 0;
  full.in_step_excess_inference = 0;  // the savings alone: the fit finds the excess and the far bytes' price beside them
  full.far_s_per_byte = 0;
  full.far_s_per_byte_inference = 0;
  const ProfileComputeModel model(hw);
  PricedShapes shapes;
  for (std::size_t i = 0; i < step.kernels.size(); ++i) {
    const Kernel& k = step.kernels[i];
    if (k.cls != KernelClass::conv) continue;
    const double cold = model.seconds(k, ExecutionOptions{});
    PricedShape& s = shapes[matrix_kernel_key(k)];
    ++s.count;
    s.cold_s += cold;
    s.saved_s += warm_savings_seconds(full, k, step.cache[i], cold, inference);
    s.far_bytes += step.cache[i].far_bytes;
  }
  return shapes;
}

}  // namespace

InStepWarmth in_step_warmth(const HardwareProfile& fitted, const std::string& file, const std::string& networks_dir, StepNetworks& loaded) {
  if (!fitted.device.step_warmth.enabled()) throw InputError(file + ": the profile has no step warmth to realize (fit it from hot pairs first)");
  std::ifstream in = open_input_file(file, "file of scripts/torch_step_warmth.py's output");
  InStepWarmth result;
  std::map<std::string, PricedShapes> priced;  // per network, batch and kind
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = file + ":" + std::to_string(line_no);
    nlohmann::json r;
    r = parse_json(line, where);
    if (!r.is_object() || r.value("type", "") != "step_warmth") continue;
    std::string network;
    std::int64_t batch = 0;
    bool inference = false;
    double calls = 0, in_step = 0, cold = 0;
    std::vector<Kernel> kernels;
    std::vector<std::int64_t> input;
    try {
      network = r.at("network").get<std::string>();
      batch = r.at("batch").get<std::int64_t>();
      inference = r.at("inference").get<bool>();
      calls = r.at("calls_per_step").get<double>();
      in_step = r.at("in_step_s").get<double>();
      cold = r.at("cold_s").get<double>();
      if (!is_network_file(network)) input = r.at("input").get<std::vector<std::int64_t>>();
      for (const nlohmann::json& k : r.at("kernels")) {
        const std::string op = k.at("op").get<std::string>();
        const auto kernel = matrix_kernel_of(op, k.at("params"), DType::f32);
        if (!kernel || kernel->cls != KernelClass::conv) throw InputError(where + ": field 'kernels': '" + op + "' is not a convolution");
        kernels.push_back(*kernel);
      }
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where + ": not a torch_step_warmth.py record (" + e.what() + ")");
    }
    if (batch <= 0 || !(calls > 0) || !(in_step > 0) || !(cold > 0) || kernels.empty())
      throw InputError(where + ": fields batch, calls_per_step, in_step_s and cold_s must be positive, and kernels not empty");
    std::string source = network;
    if (!std::filesystem::exists(source) && !networks_dir.empty() && is_network_file(network))
      source = networks_dir + "/" + std::filesystem::path(network).filename().string();
    std::string key = network + "|" + std::to_string(batch) + (inference ? "|inference" : "|training");
    for (const std::int64_t d : input) key += "|" + std::to_string(d);
    auto it = priced.find(key);
    if (it == priced.end()) {
      if (is_network_file(network) && !std::filesystem::exists(source))
        throw InputError(where + ": network file '" + network + "' is not there" + (networks_dir.empty() ? "" : " nor in " + networks_dir) +
                         " (name where the files are with --step-networks)");
      try {
        const std::string loaded_key = "step_warmth:" + key;
        auto g = loaded.find(loaded_key);
        if (g == loaded.end()) g = loaded.emplace(loaded_key, load_network(source, case_load_options(network, batch, inference, input))).first;
        it = priced.emplace(key, price_convolutions(g->second, fitted, inference)).first;
      } catch (const InputError& e) {
        throw InputError(where + ": " + e.what());
      }
    }
    double priced_cold = 0, priced_saved = 0, priced_far = 0;
    bool found = true;
    for (const Kernel& k : kernels) {
      const auto shape = it->second.find(matrix_kernel_key(k));
      if (shape == it->second.end()) {
        found = false;
        break;
      }
      priced_cold += shape->second.cold_s / shape->second.count;
      priced_saved += shape->second.saved_s / shape->second.count;
      priced_far += shape->second.far_bytes / shape->second.count;
    }
    if (!found) {
      result.skipped.push_back(where + ": a convolution the network's lowering does not have (another batch or input size?)");
      continue;
    }
    result.observations[inference].push_back({network, priced_saved / priced_cold, 1 - in_step / cold, calls * cold, priced_far / priced_cold});
  }
  return result;
}

}  // namespace dnnperf
