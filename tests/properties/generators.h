#pragma once
// RapidCheck generators for the property tests: networks, run configurations and profiles drawn
// from the space users give dnnperf, small enough that hundreds of cases run in seconds.
// Call them inside a property (they draw with `*`, so a failure shrinks them too).
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "networks/import/network_loader.h"
#include "predictor/prediction/run_config.h"
#include "profile/hardware_profile.h"

namespace dnnperf::properties {

/// A network as --network names it, with the sizes a command line adds.
struct NetworkCase {
  std::string spec;
  LoadOptions options;
};

/// Small decoders (GPT, Llama-style with GQA, SwiGLU, RMSNorm, rotary, flash attention, mixtures
/// of experts), CNNs at several image sizes and randomly wired networks.
inline NetworkCase network_case() {
  NetworkCase c;
  const int kind = *rc::gen::inRange(0, 4);
  if (kind <= 1) {
    const int heads = *rc::gen::element(1, 2, 4, 8);
    const int hidden = heads * *rc::gen::element(8, 16, 32, 64);
    c.spec = (kind == 0 ? "gpt:" : "transformer:") + std::string("layers=") + std::to_string(*rc::gen::inRange(1, 5)) +
             ",hidden=" + std::to_string(hidden) + ",heads=" + std::to_string(heads) + ",vocab=" + std::to_string(*rc::gen::inRange(16, 5000));
    if (kind == 1) {
      int kv = heads;
      while (kv > 1 && *rc::gen::arbitrary<bool>()) kv /= 2;
      c.spec += ",kv_heads=" + std::to_string(kv) + ",mlp=" + *rc::gen::element<std::string>("gelu", "swiglu") +
                ",norm=" + *rc::gen::element<std::string>("layer", "rms") + ",position=" + *rc::gen::element<std::string>("learned", "rotary") +
                ",flash=" + std::to_string(*rc::gen::inRange(0, 2));
      if (*rc::gen::arbitrary<bool>()) {
        const int experts = *rc::gen::inRange(2, 9);
        c.spec += ",experts=" + std::to_string(experts) + ",top_k=" + std::to_string(*rc::gen::inRange(1, experts + 1));
      }
    }
    c.options.sequence = *rc::gen::element<std::int64_t>(8, 32, 128, 512);
  } else if (kind == 2) {
    c.spec = *rc::gen::element<std::string>("resnet18", "mobilenet_v2", "alexnet", "vgg11");
    const std::int64_t side = *rc::gen::element<std::int64_t>(64, 96, 128, 224);
    c.options.image = std::array<std::int64_t, 2>{side, side};
  } else {
    c.spec = *rc::gen::element<std::string>("randwire-ws", "randwire-er", "randwire-ba") + ":nodes=" +
             std::to_string(*rc::gen::inRange(6, 17)) + ",stages=" + std::to_string(*rc::gen::inRange(1, 3)) +
             ",seed=" + std::to_string(*rc::gen::inRange(0, 1000));
    c.options.image = std::array<std::int64_t, 2>{64, 64};
  }
  c.options.batch = *rc::gen::inRange<std::int64_t>(1, 33);
  return c;
}

/// Every shipped profile by name, and the calibrated ones by path: datasheet, fitted GPU and CPU.
inline const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, aliases] : shipped_hardware_profiles()) out.push_back(name);
    for (const auto& entry : std::filesystem::directory_iterator(shipped_data_dir() / "hardware" / "calibrated"))
      if (entry.path().extension() == ".json") out.push_back(entry.path().string());
    return out;
  }();
  return names;
}

/// Profiles read once: the same name always gives the same object.
inline const HardwareProfile& profile(const std::string& name) {
  static std::map<std::string, HardwareProfile> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, find_hardware_profile(name)).first;
  return it->second;
}

/// A data-parallel run on `hw`: nodes, devices per node within the node, precision, optimizer,
/// gradient synchronisation.
inline RunConfig run_config(const HardwareProfile& hw) {
  RunConfig run;
  run.plan.nodes = *rc::gen::element(1, 2, 3, 4, 8, 16, 64);
  run.plan.devices_per_node = *rc::gen::inRange(1, hw.node.devices + 1);
  run.precision = *rc::gen::element(Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16);
  run.optimizer = *rc::gen::element(Optimizer::sgd, Optimizer::momentum, Optimizer::adam);
  run.plan.sync = *rc::gen::element(GradientSync::bucketed, GradientSync::per_layer, GradientSync::at_end);
  return run;
}

}  // namespace dnnperf::properties

namespace dnnperf {
// How a failing case prints its enums (RapidCheck finds these by argument-dependent lookup).
inline void showValue(Precision p, std::ostream& os) { os << precision_name(p); }
inline void showValue(Optimizer o, std::ostream& os) { os << optimizer_name(o); }
inline void showValue(GradientSync s, std::ostream& os) {
  os << (s == GradientSync::bucketed ? "bucketed" : s == GradientSync::per_layer ? "per_layer" : "at_end");
}
}  // namespace dnnperf
