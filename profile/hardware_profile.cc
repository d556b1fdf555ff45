#include "profile/hardware_profile.h"

#include "profile/gpu_section.h"
#include "profile/transport.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <numbers>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/graph/op_kind.h"
#include "profile/cpu_identity.h"
#include "profile/fitted_sections.h"
#include "core/lowering/kernel.h"

#ifndef DNNPERF_DEFAULT_DATA_DIR
#define DNNPERF_DEFAULT_DATA_DIR "data"
#endif

namespace dnnperf {
namespace {

using nlohmann::json;

// The least a bandwidth (bytes/s) or a peak (FLOP/s) may be: far below any device, yet enough
// that no size divided by it comes out infinite.
constexpr double kMinRate = 1.0;

constexpr std::array<std::pair<MathMode, const char*>, 9> kModes{{
    {MathMode::fp64, "fp64"}, {MathMode::fp64_tensor, "fp64_tensor"}, {MathMode::fp32, "fp32"},
    {MathMode::tf32_tensor, "tf32_tensor"}, {MathMode::fp16, "fp16"}, {MathMode::fp16_tensor, "fp16_tensor"},
    {MathMode::bf16, "bf16"}, {MathMode::bf16_tensor, "bf16_tensor"}, {MathMode::fp8_tensor, "fp8_tensor"}}};

double fraction(JsonObjectReader& r, const std::string& key, double fallback) {
  const double v = r.real(key, fallback);
  if (!(v > 0 && v <= 1)) r.fail(key, "must be in (0, 1], is " + std::to_string(v));
  return v;
}

// Per process count (a key of at least 2), a number in [low, high] (`open_low`: above low):
// co_run_slowdown's, sync_wait's and ddp_step_overhead_s's form; `example` shows one.
std::map<int, double> read_per_process(JsonObjectReader& r, const std::string& key, const std::string& noun, double low, bool open_low, double high,
                                       const std::string& example) {
  std::map<int, double> values;
  if (!r.has(key)) return values;
  const json& c = r.at(key);
  if (!c.is_object()) r.fail(key, "must be an object of process counts and numbers (" + noun + "), e.g. " + example);
  std::ostringstream range;
  range << (open_low ? "(" : "[") << low << ", " << high << "]";
  for (const auto& [count, value] : c.items()) {
    char* end = nullptr;
    const long processes = std::strtol(count.c_str(), &end, 10);
    if (count.empty() || *end != '\0' || processes < 2 || processes > 1000000)
      r.fail(key, "key '" + count + "' is not a process count of at least 2");
    const bool in_range = value.is_number() && value.get<double>() <= high && (open_low ? value.get<double>() > low : value.get<double>() >= low);
    if (!in_range) r.fail(key, noun + " for " + count + " processes must be a number in " + range.str());
    values[static_cast<int>(processes)] = value.get<double>();
  }
  return values;
}

// `low` 0: factors above 0 (sharing a node may even speed a rank up, in principle); `low` 1:
// factors of at least 1 (waiting for the slowest rank never shortens a step).
std::map<int, double> read_process_factors(JsonObjectReader& r, const std::string& key, double low) {
  return read_per_process(r, key, "factor", low, !(low > 0), 100, "{\"2\": 1.15}");
}

MatrixEfficiency read_matrix(const json& j, const std::string& where, MatrixEfficiency e) {
  JsonObjectReader r(j, where);
  e.max_efficiency = fraction(r, "max_efficiency", e.max_efficiency);
  e.tile_m = r.integer("tile_m", e.tile_m);
  e.tile_n = r.integer("tile_n", e.tile_n);
  if (e.tile_m <= 0) r.fail("tile_m", "must be positive");
  if (e.tile_n <= 0) r.fail("tile_n", "must be positive");
  e.half_efficiency_k = r.real("half_efficiency_k", e.half_efficiency_k);
  if (e.half_efficiency_k < 0) r.fail("half_efficiency_k", "must not be negative");
  e.residual_sigma = r.real("residual_sigma", e.residual_sigma);
  if (!(e.residual_sigma >= 0)) r.fail("residual_sigma", "must not be negative");
  e.shared_sigma = r.real("shared_sigma", e.shared_sigma);
  if (!(e.shared_sigma >= 0 && e.shared_sigma <= e.residual_sigma)) r.fail("shared_sigma", "must be in [0, residual_sigma]");
  r.check_unknown();
  return e;
}

MemoryEfficiency read_memory(const json& j, const std::string& where, MemoryEfficiency e) {
  JsonObjectReader r(j, where);
  e.max_efficiency = fraction(r, "max_efficiency", e.max_efficiency);
  e.half_efficiency_bytes = r.real("half_efficiency_bytes", e.half_efficiency_bytes);
  if (e.half_efficiency_bytes < 0) r.fail("half_efficiency_bytes", "must not be negative");
  e.cache_bytes = r.real("cache_bytes", e.cache_bytes);
  if (e.cache_bytes < 0) r.fail("cache_bytes", "must not be negative");
  e.dram_slowdown = r.real("dram_slowdown", e.dram_slowdown);
  if (!(e.dram_slowdown >= 1)) r.fail("dram_slowdown", "must be at least 1");
  e.short_run_element_s = r.real("short_run_element_s", e.short_run_element_s);
  if (!(e.short_run_element_s >= 0 && e.short_run_element_s < 1)) r.fail("short_run_element_s", "must be in [0, 1) seconds");
  e.operation_s = r.real("operation_s", e.operation_s);
  if (!(e.operation_s >= 0 && e.operation_s < 1)) r.fail("operation_s", "must be in [0, 1) seconds");
  e.residual_sigma = r.real("residual_sigma", e.residual_sigma);
  if (!(e.residual_sigma >= 0)) r.fail("residual_sigma", "must not be negative");
  e.shared_sigma = r.real("shared_sigma", e.shared_sigma);
  if (!(e.shared_sigma >= 0 && e.shared_sigma <= e.residual_sigma)) r.fail("shared_sigma", "must be in [0, residual_sigma]");
  r.check_unknown();
  return e;
}

LinkSpec read_link(const json& j, const std::string& where) {
  JsonObjectReader r(j, where);
  LinkSpec l;
  l.kind = r.text("kind");
  l.bandwidth = r.positive("bandwidth", kMinRate);
  l.latency_s = r.real("latency_s", std::nullopt);
  if (l.latency_s < 0) r.fail("latency_s", "must not be negative");
  r.check_unknown();
  return l;
}

DeviceSpec read_device(const json& j, const std::string& where) {
  JsonObjectReader r(j, where);
  DeviceSpec d;
  d.kind = r.text("kind");
  if (d.kind != "gpu" && d.kind != "cpu") r.fail("kind", "must be \"gpu\" or \"cpu\", is \"" + d.kind + "\"");
  d.model = r.text("model");
  JsonObjectReader peaks(r.at("peak_flops"), where + ": peak_flops");
  for (const auto& [mode, name] : kModes)
    if (peaks.has(name)) d.peak_flops[mode] = peaks.positive(name, kMinRate);
  peaks.check_unknown();
  if (!d.peak_flops.count(MathMode::fp32)) peaks.fail("fp32", "is required");
  d.memory_bandwidth = r.positive("memory_bandwidth", kMinRate);
  d.memory_bytes = r.positive("memory_bytes", 1.0);
  d.multiprocessors = r.integer("multiprocessors", std::nullopt);
  if (d.multiprocessors <= 0) r.fail("multiprocessors", "must be positive");
  d.launch_overhead_s = r.real("launch_overhead_s", std::nullopt);
  if (d.launch_overhead_s < 0) r.fail("launch_overhead_s", "must not be negative");
  d.reserved_bytes = r.real("reserved_bytes", 0.0);
  if (d.reserved_bytes < 0 || d.reserved_bytes >= d.memory_bytes) r.fail("reserved_bytes", "must be in [0, memory_bytes)");
  if (r.has("fp32_conv_math")) {
    const std::string math = r.text("fp32_conv_math");
    if (math == "tf32_tensor") d.fp32_conv_math = MathMode::tf32_tensor;
    else if (math != "fp32") r.fail("fp32_conv_math", "must be \"fp32\" or \"tf32_tensor\", is \"" + math + "\"");
    if (!d.peak_flops.count(d.fp32_conv_math)) r.fail("fp32_conv_math", "is " + math + ", which peak_flops does not list");
  }
  d.pointwise_conv_gemm_below_batch = r.integer("pointwise_conv_gemm_below_batch", 0);
  if (d.pointwise_conv_gemm_below_batch < 0) r.fail("pointwise_conv_gemm_below_batch", "must not be negative");
  d.co_run_slowdown = read_process_factors(r, "co_run_slowdown", 0.0);
  d.sync_wait = read_process_factors(r, "sync_wait", 1.0);
  d.step_jitter = r.real("step_jitter", 0.0);
  if (!(d.step_jitter >= 0 && d.step_jitter < 1)) r.fail("step_jitter", "must be a relative spread in [0, 1)");
  d.speed_spread = r.real("speed_spread", 0.0);
  if (!(d.speed_spread >= 0 && d.speed_spread < 1)) r.fail("speed_spread", "must be a relative spread in [0, 1)");
  if (r.has("overlap_slowdown")) {
    d.overlap_slowdown = r.real("overlap_slowdown", std::nullopt);
    if (!(*d.overlap_slowdown >= 0 && *d.overlap_slowdown < 1)) r.fail("overlap_slowdown", "must be a fraction in [0, 1)");
  }
  d.ddp_step_overhead_s = read_per_process(r, "ddp_step_overhead_s", "seconds", 0, false, 10, "{\"2\": 0.008}");
  if (r.has("host_dispatch_s")) {
    const json& h = r.at("host_dispatch_s");
    if (!h.is_object()) r.fail("host_dispatch_s", "must be an object of kernel classes and seconds, e.g. {\"gemm\": 1.5e-05}");
    for (const auto& [cls, seconds] : h.items()) {
      if (!seconds.is_number() || !(seconds.get<double>() >= 0 && seconds.get<double>() < 1))
        r.fail("host_dispatch_s", "seconds for '" + cls + "' must be a number in [0, 1)");
      d.host_dispatch_s[cls] = seconds.get<double>();
    }
  }
  d.host_dispatch_sigma = r.real("host_dispatch_sigma", 0.0);
  if (!(d.host_dispatch_sigma >= 0 && d.host_dispatch_sigma < 5)) r.fail("host_dispatch_sigma", "must be in [0, 5)");
  d.step_sigma = r.real("step_sigma", 0.0);
  if (!(d.step_sigma >= 0 && d.step_sigma < 5)) r.fail("step_sigma", "must be in [0, 5)");
  if (r.has("step_warmth")) {
    JsonObjectReader w(r.at("step_warmth"), where + ": step_warmth");
    StepWarmth& sw = d.step_warmth;
    sw.cache_bytes = w.real("cache_bytes", std::nullopt);
    if (!(sw.cache_bytes > 0 && sw.cache_bytes < 1e12)) w.fail("cache_bytes", "must be in (0, 1e12)");
    sw.most_saved = w.real("most_saved", std::nullopt);
    if (!(sw.most_saved >= 0 && sw.most_saved < 1)) w.fail("most_saved", "must be in [0, 1)");
    sw.realized_share = w.real("realized_share", 1.0);
    if (!(sw.realized_share >= 0 && sw.realized_share <= 1)) w.fail("realized_share", "must be in [0, 1]");
    if (w.has("realized_share_inference")) {
      sw.realized_share_inference = w.real("realized_share_inference", std::nullopt);
      if (!(sw.realized_share_inference >= 0 && sw.realized_share_inference <= 1)) w.fail("realized_share_inference", "must be in [0, 1]");
    }
    sw.in_step_excess = w.real("in_step_excess", 0.0);
    if (!(sw.in_step_excess >= 0 && sw.in_step_excess < 1)) w.fail("in_step_excess", "must be in [0, 1)");
    if (w.has("in_step_excess_inference")) {
      sw.in_step_excess_inference = w.real("in_step_excess_inference", std::nullopt);
      if (!(sw.in_step_excess_inference >= 0 && sw.in_step_excess_inference < 1)) w.fail("in_step_excess_inference", "must be in [0, 1)");
    }
    for (auto [field, value] : {std::pair{"cold_eviction_bytes", &sw.cold_eviction_bytes}, std::pair{"last_level_cache_bytes", &sw.last_level_cache_bytes}}) {
      *value = w.real(field, 0.0);
      if (!(*value >= 0 && *value < 1e13)) w.fail(field, "must be in [0, 1e13) bytes");
    }
    sw.far_s_per_byte = w.real("far_s_per_byte", 0.0);
    if (!(sw.far_s_per_byte >= 0 && sw.far_s_per_byte < 1e-6)) w.fail("far_s_per_byte", "must be in [0, 1e-6)");
    if (w.has("far_s_per_byte_inference")) {
      sw.far_s_per_byte_inference = w.real("far_s_per_byte_inference", std::nullopt);
      if (!(sw.far_s_per_byte_inference >= 0 && sw.far_s_per_byte_inference < 1e-6)) w.fail("far_s_per_byte_inference", "must be in [0, 1e-6)");
    }
    sw.far_reach_bytes = w.real("far_reach_bytes", 0.0);
    if (!(sw.far_reach_bytes == 0 || (sw.far_reach_bytes > sw.cold_eviction_bytes && sw.far_reach_bytes < 1e13)))
      w.fail("far_reach_bytes", "must be 0 (not measured) or above cold_eviction_bytes and below 1e13 bytes");
    for (auto [field, value] : {std::pair{"pass_far_read_s_per_byte", &sw.pass_far_read_s_per_byte}, std::pair{"pass_far_written_s_per_byte", &sw.pass_far_written_s_per_byte}}) {
      *value = w.real(field, 0.0);
      if (!(*value >= 0 && *value < 1e-6)) w.fail(field, "must be in [0, 1e-6)");
    }
    JsonObjectReader conv(w.at("conv"), where + ": step_warmth.conv");
    for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
      const std::string name(phase_name(phase));
      if (!conv.has(name)) continue;
      JsonObjectReader c(conv.at(name), where + ": step_warmth.conv." + name);
      ConvWarmSavings& s = sw.conv[static_cast<std::size_t>(phase)];
      for (auto [field, value, most] : {std::tuple{"call_s", &s.call_s, 1.0}, std::tuple{"input_s_per_byte", &s.input_s_per_byte, 1e-6},
                                         std::tuple{"weight_s_per_byte", &s.weight_s_per_byte, 1e-6}, std::tuple{"output_s_per_byte", &s.output_s_per_byte, 1e-6}}) {
        *value = c.real(field, std::nullopt);
        if (!(*value >= 0 && *value < most)) c.fail(field, "must be in [0, " + std::string(most == 1.0 ? "1" : "1e-6") + ")");
      }
      s.call_tau_s = c.real("call_tau_s", 0.0);
      if (!(s.call_tau_s >= 0 && s.call_tau_s < 1)) c.fail("call_tau_s", "must be in [0, 1)");
      if (c.has("native_call_s")) {  // absent: the native path's fixed part is call_s
        s.native_call_s = c.real("native_call_s", std::nullopt);
        if (!(s.native_call_s >= 0 && s.native_call_s < 1)) c.fail("native_call_s", "must be in [0, 1)");
      }
      c.check_unknown();
    }
    conv.check_unknown();
    w.check_unknown();
  }
  if (r.has("host_op_s")) {
    const json& h = r.at("host_op_s");
    if (!h.is_object()) r.fail("host_op_s", "must be an object of op kinds, e.g. {\"attention\": {\"forward\": 8e-05, \"backward\": 1.2e-04}}");
    for (const auto& [kind, times] : h.items()) {
      if (!parse_op_kind(kind)) r.fail("host_op_s", "names an unknown op kind '" + kind + "'");
      JsonObjectReader t(times, where + ": host_op_s." + kind);
      DeviceSpec::HostOpSeconds& out = d.host_op_s[kind];
      for (auto [name, value] : {std::pair{"forward", &out.forward}, std::pair{"backward", &out.backward}}) {
        *value = t.real(name, std::nullopt);
        if (!(*value >= 0 && *value < 1)) t.fail(name, "must be seconds in [0, 1)");
      }
      t.check_unknown();
    }
  }
  if (r.has("efficiency")) {
    JsonObjectReader e(r.at("efficiency"), where + ": efficiency");
    if (e.has("gemm")) d.gemm = read_matrix(e.at("gemm"), where + ": efficiency.gemm", d.gemm);
    if (e.has("blocked_gemm")) d.blocked_gemm = read_blocked_gemm_section(e.at("blocked_gemm"), where + ": efficiency.blocked_gemm");
    if (e.has("direct_conv")) {
      JsonObjectReader dc(e.at("direct_conv"), where + ": efficiency.direct_conv");
      for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
        const std::string name(phase_name(phase));
        if (dc.has(name)) d.direct_conv[static_cast<int>(phase)] = read_direct_conv_section(dc.at(name), where + ": efficiency.direct_conv." + name);
      }
      dc.check_unknown();
    }
    if (e.has("conv")) d.conv = read_matrix(e.at("conv"), where + ": efficiency.conv", d.conv);
    if (e.has("gpu")) d.gpu = read_gpu_section(e.at("gpu"), where + ": efficiency.gpu");
    if (e.has("memory")) d.memory = read_memory(e.at("memory"), where + ": efficiency.memory", d.memory);
    if (e.has("passes")) {
      const json& passes = e.at("passes");
      if (!passes.is_object()) e.fail("passes", "must be an object of pass families");
      for (const auto& [name, value] : passes.items()) {
        const auto& known = op_pass_names();
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          std::string list;
          for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
          e.fail("passes", "unknown pass family '" + name + "' (known: " + list + ")");
        }
        d.passes[name] = read_memory(value, where + ": efficiency.passes." + name, d.memory);
      }
    }
    e.check_unknown();
  }
  r.check_unknown();
  return d;
}

HardwareProfile read_profile(const json& doc, const std::string& source) {
  JsonObjectReader r(doc, source);
  if (r.has("format") && r.text("format") != "dnnperf.hardware") r.fail("format", "must be \"dnnperf.hardware\"");
  if (r.has("version") && r.integer("version", 1) != 1) r.fail("version", "must be 1");
  HardwareProfile p;
  p.path = source;
  p.name = r.text("name");
  if (r.has("aliases")) {
    const json& a = r.at("aliases");
    if (!a.is_array() || !std::all_of(a.begin(), a.end(), [](const json& x) { return x.is_string(); }))
      r.fail("aliases", "must be a list of strings");
    for (const json& alias : a) p.aliases.push_back(alias.get<std::string>());
  }
  p.device = read_device(r.at("device"), source + ": device");
  {
    JsonObjectReader n(r.at("node"), source + ": node");
    const std::int64_t devices = n.integer("devices", std::nullopt);
    if (devices <= 0 || devices > kMaxRanks) n.fail("devices", "must be in [1, " + std::to_string(kMaxRanks) + "], is " + std::to_string(devices));
    p.node.devices = static_cast<int>(devices);
    p.node.intra = read_link(n.at("intra"), source + ": node.intra");
    if (n.has("host")) p.node.host = read_link(n.at("host"), source + ": node.host");
    n.check_unknown();
  }
  {
    JsonObjectReader c(r.at("cluster"), source + ": cluster");
    p.cluster.inter = read_link(c.at("inter"), source + ": cluster.inter");
    p.cluster.nics_per_node = static_cast<int>(c.integer("nics_per_node", std::nullopt));
    if (p.cluster.nics_per_node <= 0) c.fail("nics_per_node", "must be positive");
    p.cluster.topology = c.text("topology", "fat-tree");
    if (p.cluster.topology != "fat-tree" && p.cluster.topology != "rail-optimized" && p.cluster.topology != "torus" &&
        p.cluster.topology != "dragonfly")
      c.fail("topology", std::string("must be one of ") + kTopologyNames + ", is '" + p.cluster.topology + "'");
    const bool tree = p.cluster.topology == "fat-tree" || p.cluster.topology == "rail-optimized";
    const bool dragonfly = p.cluster.topology == "dragonfly";
    for (const char* key : {"group_nodes", "global_links"}) {
      if (c.has(key) != dragonfly)
        c.fail(key, dragonfly ? "needed with topology \"dragonfly\": nodes per group and the global links leaving a group"
                              : "applies to topology \"dragonfly\" only");
      if (!dragonfly) continue;
      const std::int64_t v = c.integer(key, std::nullopt);
      if (v < 1 || v > kMaxRanks) c.fail(key, "must be in [1, " + std::to_string(kMaxRanks) + "], is " + std::to_string(v));
      (std::string(key) == "group_nodes" ? p.cluster.group_nodes : p.cluster.global_links) = static_cast<int>(v);
    }
    if (c.has("oversubscription")) {
      if (!tree) c.fail("oversubscription", "applies to fat-tree and rail-optimized fabrics, not to a " + p.cluster.topology);
      p.cluster.oversubscription = c.real("oversubscription", std::nullopt);
      if (!(p.cluster.oversubscription >= 1 && p.cluster.oversubscription <= 1e6))
        c.fail("oversubscription", "must be at least 1 (a leaf's downlink over its uplink bandwidth; 1: full bisection), is " + std::to_string(p.cluster.oversubscription));
    }
    if (c.has("switch_ports")) {
      if (!tree) c.fail("switch_ports", "applies to fat-tree and rail-optimized fabrics, not to a " + p.cluster.topology);
      const std::int64_t ports = c.integer("switch_ports", std::nullopt);
      if (ports < 1 || ports > kMaxRanks) c.fail("switch_ports", "must be in [1, " + std::to_string(kMaxRanks) + "], is " + std::to_string(ports));
      p.cluster.switch_ports = static_cast<int>(ports);
      if (p.cluster.topology == "fat-tree" && ports < p.cluster.nics_per_node)
        c.fail("switch_ports", "a leaf of " + std::to_string(ports) + " ports cannot hold one node's " + std::to_string(p.cluster.nics_per_node) + " NICs");
    }
    if (p.cluster.oversubscription > 1 && p.cluster.switch_ports == 0)
      c.fail("switch_ports", "needed with an oversubscription above 1: how many nodes share a leaf's uplinks");
    if (c.has("torus_dims")) {
      if (p.cluster.topology != "torus") c.fail("torus_dims", "applies to topology \"torus\" only");
      std::int64_t product = 1;
      for (const std::int64_t d : c.integers("torus_dims", true)) {
        if (d < 1 || d > kMaxRanks) c.fail("torus_dims", "each dimension must be in [1, " + std::to_string(kMaxRanks) + "], one is " + std::to_string(d));
        product *= d;
        if (product > kMaxRanks) c.fail("torus_dims", "holds more than the " + std::to_string(kMaxRanks) + " nodes dnnperf prices");
        p.cluster.torus_dims.push_back(static_cast<int>(d));
      }
      if (p.cluster.torus_dims.empty() || p.cluster.torus_dims.size() > 6) c.fail("torus_dims", "must list 1 to 6 dimensions");
    } else if (p.cluster.topology == "torus") {
      c.fail("torus_dims", "needed with topology \"torus\": nodes per dimension, e.g. [8, 8, 8]");
    }
    if (c.has("transport")) {
      p.cluster.transport = c.text("transport", std::nullopt);
      if (!find_transport(p.cluster.transport)) {
        std::string names;
        for (const TransportFigures& t : transports()) names += (names.empty() ? "" : ", ") + std::string(t.name);
        c.fail("transport", "must be one of " + names + ", is '" + p.cluster.transport + "'");
      }
    }
    if (c.has("achieved_fraction")) {
      p.cluster.achieved_fraction = c.real("achieved_fraction", std::nullopt);
      if (!(p.cluster.achieved_fraction > 0 && p.cluster.achieved_fraction <= 1)) c.fail("achieved_fraction", "must be in (0, 1]");
    }
    if (c.has("straggler_share") != c.has("straggler_slowdown"))
      c.fail(c.has("straggler_share") ? "straggler_slowdown" : "straggler_share", "needed with the other: stragglers are a share of nodes and how much slower they run");
    if (c.has("straggler_share")) {
      p.cluster.straggler_share = c.real("straggler_share", std::nullopt);
      if (!(p.cluster.straggler_share >= 0 && p.cluster.straggler_share < 1)) c.fail("straggler_share", "must be a share of nodes in [0, 1)");
      p.cluster.straggler_slowdown = c.real("straggler_slowdown", std::nullopt);
      if (!(p.cluster.straggler_slowdown >= 1 && p.cluster.straggler_slowdown <= 100))
        c.fail("straggler_slowdown", "must be a factor on a step's computation in [1, 100]");
    }
    p.cluster.gpudirect_rdma = c.boolean("gpudirect_rdma", true);
    if (!p.cluster.gpudirect_rdma && p.node.host.bandwidth <= 0)
      c.fail("gpudirect_rdma", "false needs node.host: the device's link to host memory, which staged transfers cross");
    c.check_unknown();
  }
  if (r.has("communication")) p.communication = read_communication_section(r.at("communication"), source + ": communication");
  if (r.has("measured_kernels")) p.measured_kernels = read_measured_kernels_section(r.at("measured_kernels"), source + ": measured_kernels");
  if (r.has("reference_kernels")) p.reference_kernels = read_measured_kernels_section(r.at("reference_kernels"), source + ": reference_kernels");
  if (r.has("reference_passes")) p.reference_passes = read_reference_passes_section(r.at("reference_passes"), source + ": reference_passes");
  if (r.has("compute_regression"))
    p.compute_regression = read_compute_regression_section(r.at("compute_regression"), source + ": compute_regression");
  if (r.has("measured_on")) {
    JsonObjectReader m(r.at("measured_on"), source + ": measured_on");
    if (m.has("cpu")) p.measured_on_cpu = read_cpu_identity(m.at("cpu"), source + ": measured_on.cpu");
    if (m.has("allocator")) p.measured_with_allocator = m.text("allocator", std::nullopt);
    m.check_unknown();
  }
  if (r.has("sources")) {
    for (const auto& [key, value] : r.at("sources").items()) {
      if (!value.is_string()) r.fail("sources", "must map fields to strings");
      p.sources[key] = value.get<std::string>();
    }
  }
  r.check_unknown();
  return p;
}

}  // namespace

std::filesystem::path shipped_data_dir() {
  if (const char* env = std::getenv("DNNPERF_DATA_DIR")) return env;
  return DNNPERF_DEFAULT_DATA_DIR;
}

namespace {

// Linear in the process count between measured counts, from `at_one` at one process.
double interpolated(const std::map<int, double>& factors, int processes, double at_one = 1.0) {
  const auto above = factors.lower_bound(processes);
  if (above->first == processes) return above->second;
  const double p0 = above == factors.begin() ? 1.0 : std::prev(above)->first;
  const double f0 = above == factors.begin() ? at_one : std::prev(above)->second;
  const double share = (processes - p0) / (above->first - p0);
  return f0 + share * (above->second - f0);
}

}  // namespace

double ddp_step_overhead_seconds(const DeviceSpec& d, int ranks) {
  if (ranks <= 1 || d.ddp_step_overhead_s.empty()) return 0.0;
  if (ranks > d.ddp_step_overhead_s.rbegin()->first) return d.ddp_step_overhead_s.rbegin()->second;
  return interpolated(d.ddp_step_overhead_s, ranks, 0.0);
}

double co_run_factor(const DeviceSpec& d, int processes) {
  if (processes <= 1 || d.co_run_slowdown.empty()) return 1.0;
  if (processes > d.co_run_slowdown.rbegin()->first) return d.co_run_slowdown.rbegin()->second;
  return interpolated(d.co_run_slowdown, processes);
}

double overlap_slowdown(const HardwareProfile& hw) {
  if (hw.device.overlap_slowdown) return *hw.device.overlap_slowdown;
  if (hw.device.kind != "gpu") return 0;
  const double channels = 2.0 * std::max(1, hw.cluster.nics_per_node);
  return std::min(0.5, channels / static_cast<double>(std::max<std::int64_t>(1, hw.device.multiprocessors)));
}

double straggler_factor(const ClusterSpec& c, int nodes) {
  if (c.straggler_share <= 0 || c.straggler_slowdown <= 1 || nodes <= 0) return 1;
  return 1 + (c.straggler_slowdown - 1) * (1 - std::pow(1 - c.straggler_share, nodes));
}

double expected_maximum_of_normals(int n) {
  if (n <= 1) return 0.0;
  // Remembered per n: a plan search asks for the same few counts thousands of times.
  static std::mutex mutex;
  static std::unordered_map<int, double> known;
  {
    const std::lock_guard lock(mutex);
    if (const auto it = known.find(n); it != known.end()) return it->second;
  }
  // E[max] = integral of x n phi(x) Phi(x)^(n-1) dx, by Simpson's rule; the integrand's mass
  // lies within a few units of sqrt(2 ln n) (under 5 for a million ranks), well inside [-12, 12].
  constexpr int kIntervals = 4800;
  constexpr double kFrom = -12, kTo = 12, kH = (kTo - kFrom) / kIntervals;
  const auto f = [n](double x) {
    const double phi = std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi);
    const double cdf = 0.5 * std::erfc(-x / std::numbers::sqrt2);
    return cdf <= 0 ? 0.0 : x * n * phi * std::exp((n - 1) * std::log(cdf));
  };
  double sum = f(kFrom) + f(kTo);
  for (int i = 1; i < kIntervals; ++i) sum += (i % 2 ? 4 : 2) * f(kFrom + i * kH);
  const double value = sum * kH / 3;
  const std::lock_guard lock(mutex);
  known.emplace(n, value);
  return value;
}

double sync_wait_factor(const DeviceSpec& d, int ranks, std::int64_t micro_batches) {
  if (ranks <= 1) return 1.0;
  const double k = static_cast<double>(std::max<std::int64_t>(1, micro_batches));
  if (d.sync_wait.empty()) {
    const double spread = std::sqrt(d.speed_spread * d.speed_spread + d.step_jitter * d.step_jitter / k);
    return 1 + spread * expected_maximum_of_normals(ranks);
  }
  const auto& [largest, factor] = *d.sync_wait.rbegin();
  double wander = 0;
  if (ranks <= largest) {
    wander = interpolated(d.sync_wait, ranks) - 1;
  } else {
    // Beyond the measured counts: ranks whose steps wander independently with the spread the
    // largest measurement implies, the step lasting as long as the slowest.
    wander = (factor - 1) / expected_maximum_of_normals(largest) * expected_maximum_of_normals(ranks);
  }
  return 1 + wander / std::sqrt(k);
}

std::string_view math_mode_name(MathMode mode) {
  for (const auto& [m, name] : kModes)
    if (m == mode) return name;
  return "?";
}

double HardwareProfile::peak(MathMode mode) const {
  const auto it = device.peak_flops.find(mode);
  if (it == device.peak_flops.end())
    throw InputError("hardware '" + name + "' (" + device.model + ") has no " + std::string(math_mode_name(mode)) + " arithmetic");
  return it->second;
}

const FittedCommModel* find_comm_model(const HardwareProfile& p, const std::string& collective, const std::string& algorithm, CommMode mode) {
  for (const FittedCommModel& m : p.communication)
    if (m.collective == collective && m.algorithm == algorithm && m.mode == mode) return &m;
  return nullptr;
}

const FittedCommModel* find_comm_model_either_mode(const HardwareProfile& p, const std::string& collective, const std::string& algorithm,
                                                   CommMode preferred) {
  if (const FittedCommModel* m = find_comm_model(p, collective, algorithm, preferred)) return m;
  return find_comm_model(p, collective, algorithm, preferred == CommMode::stream ? CommMode::isolated : CommMode::stream);
}

std::optional<CommMode> comm_mode_for(const HardwareProfile& p, const std::string& collective, CommMode wanted) {
  std::optional<CommMode> other;
  for (const FittedCommModel& m : p.communication) {
    if (m.collective != collective) continue;
    if (m.mode == wanted) return wanted;
    other = m.mode;
  }
  return other;
}

HardwareProfile load_hardware_profile(const std::string& path) { return read_profile(read_json_file(path), path); }

HardwareProfile hardware_profile_from_json(const json& document, const std::string& source) { return read_profile(document, source); }

std::vector<std::pair<std::string, std::vector<std::string>>> shipped_hardware_profiles() {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  const auto dir = shipped_data_dir() / "hardware";
  if (!std::filesystem::is_directory(dir)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const json doc = read_json_file(f.string());
    std::vector<std::string> aliases;
    if (doc.contains("aliases") && doc["aliases"].is_array())
      for (const json& a : doc["aliases"])
        if (a.is_string()) aliases.push_back(a.get<std::string>());
    out.push_back({doc.value("name", f.stem().string()), aliases});
  }
  return out;
}

HardwareProfile find_hardware_profile(const std::string& name) {
  if (name.find('/') != std::string::npos || name.ends_with(".json")) {
    std::error_code error;  // a name too long for a path is no file either
    if (!std::filesystem::exists(name, error)) throw InputError(name + ": no such hardware profile file");
    return load_hardware_profile(name);
  }
  const auto dir = shipped_data_dir() / "hardware";
  std::string known;
  for (const auto& [profile, aliases] : shipped_hardware_profiles()) {
    if (profile == name || std::find(aliases.begin(), aliases.end(), name) != aliases.end())
      return load_hardware_profile((dir / (profile + ".json")).string());
    known += (known.empty() ? "" : ", ") + profile;
  }
  throw InputError("unknown hardware '" + name + "' (shipped: " + (known.empty() ? "none found in " + dir.string() : known) +
                   "; or give a path to a profile JSON)");
}

double ClusterSpec::achieved_bandwidth() const {
  if (achieved_fraction > 0) return inter.bandwidth * achieved_fraction;
  const std::optional<TransportFigures> t = transport.empty() ? transport_of_link_kind(inter.kind) : find_transport(transport);
  return inter.bandwidth * (t ? t->achieved_fraction : 1.0);
}

}  // namespace dnnperf
