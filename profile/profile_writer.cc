#include "profile/profile_writer.h"

#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/common/output_file.h"
#include "core/graph/op_kind.h"
#include "profile/fitted_sections.h"
#include "profile/gpu_section.h"

namespace dnnperf {
namespace {

using nlohmann::json;

json matrix_json(const MatrixEfficiency& e) {
  return {{"max_efficiency", e.max_efficiency}, {"tile_m", e.tile_m}, {"tile_n", e.tile_n}, {"half_efficiency_k", e.half_efficiency_k},
          {"residual_sigma", e.residual_sigma}, {"shared_sigma", e.shared_sigma}};
}

json memory_json(const MemoryEfficiency& e) {
  return {{"max_efficiency", e.max_efficiency}, {"half_efficiency_bytes", e.half_efficiency_bytes}, {"cache_bytes", e.cache_bytes},
          {"dram_slowdown", e.dram_slowdown}, {"short_run_element_s", e.short_run_element_s}, {"operation_s", e.operation_s},
          {"residual_sigma", e.residual_sigma}, {"shared_sigma", e.shared_sigma}};
}

json link_json(const LinkSpec& l) { return {{"kind", l.kind}, {"bandwidth", l.bandwidth}, {"latency_s", l.latency_s}}; }

template <typename Map>
json per_key(const Map& values) {
  json out = json::object();
  for (const auto& [key, value] : values) {
    if constexpr (std::is_same_v<std::decay_t<decltype(key)>, int>) out[std::to_string(key)] = value;
    else out[key] = value;
  }
  return out;
}

json step_warmth_json(const StepWarmth& w) {
  json conv = json::object();
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    const ConvWarmSavings& s = w.conv[static_cast<std::size_t>(phase)];
    json c = {{"call_s", s.call_s}, {"call_tau_s", s.call_tau_s}, {"input_s_per_byte", s.input_s_per_byte},
              {"weight_s_per_byte", s.weight_s_per_byte}, {"output_s_per_byte", s.output_s_per_byte}};
    if (s.native_call_s) c["native_call_s"] = *s.native_call_s;
    conv[std::string(phase_name(phase))] = c;
  }
  json j = {{"cache_bytes", w.cache_bytes}, {"most_saved", w.most_saved}, {"realized_share", w.realized_share},
            {"in_step_excess", w.in_step_excess}, {"cold_eviction_bytes", w.cold_eviction_bytes},
            {"last_level_cache_bytes", w.last_level_cache_bytes}, {"far_s_per_byte", w.far_s_per_byte},
            {"far_reach_bytes", w.far_reach_bytes}, {"pass_far_read_s_per_byte", w.pass_far_read_s_per_byte},
            {"pass_far_written_s_per_byte", w.pass_far_written_s_per_byte}, {"conv", conv}};
  if (w.realized_share_inference) j["realized_share_inference"] = *w.realized_share_inference;
  if (w.in_step_excess_inference) j["in_step_excess_inference"] = *w.in_step_excess_inference;
  if (w.far_s_per_byte_inference) j["far_s_per_byte_inference"] = *w.far_s_per_byte_inference;
  return j;
}

}  // namespace

json device_to_json(const DeviceSpec& d) {
  json peaks = json::object();
  for (const auto& [mode, flops] : d.peak_flops) peaks[std::string(math_mode_name(mode))] = flops;
  json j = {{"kind", d.kind}, {"model", d.model}, {"peak_flops", peaks}, {"memory_bandwidth", d.memory_bandwidth},
            {"memory_bytes", d.memory_bytes}, {"multiprocessors", d.multiprocessors}, {"launch_overhead_s", d.launch_overhead_s},
            {"reserved_bytes", d.reserved_bytes}, {"fp32_conv_math", std::string(math_mode_name(d.fp32_conv_math))},
            {"pointwise_conv_gemm_below_batch", d.pointwise_conv_gemm_below_batch}, {"host_dispatch_sigma", d.host_dispatch_sigma},
            {"step_sigma", d.step_sigma}};
  if (!d.co_run_slowdown.empty()) j["co_run_slowdown"] = per_key(d.co_run_slowdown);
  if (!d.sync_wait.empty()) j["sync_wait"] = per_key(d.sync_wait);
  if (d.step_jitter > 0) j["step_jitter"] = d.step_jitter;
  if (d.speed_spread > 0) j["speed_spread"] = d.speed_spread;
  if (d.overlap_slowdown) j["overlap_slowdown"] = *d.overlap_slowdown;
  if (!d.ddp_step_overhead_s.empty()) j["ddp_step_overhead_s"] = per_key(d.ddp_step_overhead_s);
  if (!d.host_dispatch_s.empty()) j["host_dispatch_s"] = per_key(d.host_dispatch_s);
  if (!d.host_op_s.empty()) {
    json ops = json::object();
    for (const auto& [kind, t] : d.host_op_s) ops[kind] = {{"forward", t.forward}, {"backward", t.backward}};
    j["host_op_s"] = ops;
  }
  if (d.step_warmth.enabled()) j["step_warmth"] = step_warmth_json(d.step_warmth);
  json efficiency = {{"gemm", matrix_json(d.gemm)}, {"conv", matrix_json(d.conv)}, {"memory", memory_json(d.memory)}};
  if (d.gpu.enabled) efficiency["gpu"] = gpu_section(d.gpu);
  if (d.blocked_gemm.enabled()) efficiency["blocked_gemm"] = blocked_gemm_section(d.blocked_gemm);
  json direct = json::object();
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight})
    if (const DirectConv& c = d.direct_conv[static_cast<std::size_t>(phase)]; c.enabled()) direct[std::string(phase_name(phase))] = direct_conv_section(c);
  if (!direct.empty()) efficiency["direct_conv"] = direct;
  if (!d.passes.empty()) {
    json passes = json::object();
    for (const auto& [name, e] : d.passes) passes[name] = memory_json(e);
    efficiency["passes"] = passes;
  }
  j["efficiency"] = efficiency;
  return j;
}

json hardware_profile_to_json(const HardwareProfile& p) {
  json j = {{"format", "dnnperf.hardware"}, {"version", 1}, {"name", p.name}, {"device", device_to_json(p.device)},
            {"node", {{"devices", p.node.devices}, {"intra", link_json(p.node.intra)}}},
            {"cluster", {{"inter", link_json(p.cluster.inter)}, {"nics_per_node", p.cluster.nics_per_node}, {"topology", p.cluster.topology}}}};
  if (!p.cluster.transport.empty()) j["cluster"]["transport"] = p.cluster.transport;
  if (!p.cluster.gpudirect_rdma) j["cluster"]["gpudirect_rdma"] = false;
  if (p.cluster.straggler_share > 0) {
    j["cluster"]["straggler_share"] = p.cluster.straggler_share;
    j["cluster"]["straggler_slowdown"] = p.cluster.straggler_slowdown;
  }
  if (p.node.host.bandwidth > 0) j["node"]["host"] = link_json(p.node.host);
  if (p.cluster.oversubscription != 1) j["cluster"]["oversubscription"] = p.cluster.oversubscription;
  if (p.cluster.switch_ports > 0) j["cluster"]["switch_ports"] = p.cluster.switch_ports;
  if (!p.cluster.torus_dims.empty()) j["cluster"]["torus_dims"] = p.cluster.torus_dims;
  if (p.cluster.group_nodes > 0) {
    j["cluster"]["group_nodes"] = p.cluster.group_nodes;
    j["cluster"]["global_links"] = p.cluster.global_links;
  }
  if (p.cluster.achieved_fraction > 0) j["cluster"]["achieved_fraction"] = p.cluster.achieved_fraction;
  if (!p.aliases.empty()) j["aliases"] = p.aliases;
  if (!p.communication.empty()) j["communication"] = communication_section(p.communication);
  if (!p.compute_regression.empty()) j["compute_regression"] = compute_regression_section(p.compute_regression);
  if (!p.measured_kernels.empty()) j["measured_kernels"] = measured_kernels_section(p.measured_kernels);
  if (!p.reference_kernels.empty()) j["reference_kernels"] = measured_kernels_section(p.reference_kernels);
  if (!p.reference_passes.empty()) j["reference_passes"] = reference_passes_section(p.reference_passes);
  json on = json::object();
  if (!p.measured_on_cpu.is_null()) on["cpu"] = p.measured_on_cpu;
  if (!p.measured_with_allocator.empty()) on["allocator"] = p.measured_with_allocator;
  if (!on.empty()) j["measured_on"] = on;
  if (!p.sources.empty()) j["sources"] = p.sources;
  return j;
}

void write_hardware_profile(const HardwareProfile& profile, const std::string& path) {
  write_json_file(path, "profile", hardware_profile_to_json(profile));
}

}  // namespace dnnperf
