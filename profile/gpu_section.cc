#include "profile/gpu_section.h"

#include <array>
#include <functional>

#include "core/common/json_reader.h"
#include "core/lowering/kernel.h"

namespace dnnperf {
namespace {

using nlohmann::json;

constexpr std::array<GpuGeneration, 3> kGenerations{GpuGeneration::volta, GpuGeneration::ampere, GpuGeneration::hopper};

double in_range(JsonObjectReader& r, const std::string& key, double fallback, double low, double high, const std::string& range) {
  const double v = r.real(key, fallback);
  if (!(v > low && v <= high)) r.fail(key, "must be in " + range + ", is " + std::to_string(v));
  return v;
}

double non_negative(JsonObjectReader& r, const std::string& key, double fallback) {
  const double v = r.real(key, fallback);
  if (!(v >= 0 && v < 1e30)) r.fail(key, "must be a finite number >= 0");
  return v;
}

double positive_or(JsonObjectReader& r, const std::string& key, double fallback) {
  const double v = r.real(key, fallback);
  if (!(v > 0 && v < 1e30)) r.fail(key, "must be a finite number > 0");
  return v;
}

json math_entry(const GpuMathParams& mp) {
  return {{"max_efficiency", mp.max_efficiency}, {"tile_fixed_s", mp.tile_fixed_s}, {"k_step_min_s", mp.k_step_min_s},
          {"operand_bandwidth", mp.operand_bandwidth}, {"misaligned_efficiency", mp.misaligned_efficiency}};
}

/// Reads one math's entry over `mp` (fields it lacks keep their values).
void read_math_entry(JsonObjectReader& e, GpuMathParams& mp) {
  mp.max_efficiency = in_range(e, "max_efficiency", mp.max_efficiency, 0, 1, "(0, 1]");
  mp.tile_fixed_s = non_negative(e, "tile_fixed_s", mp.tile_fixed_s);
  mp.k_step_min_s = non_negative(e, "k_step_min_s", mp.k_step_min_s);
  mp.operand_bandwidth = positive_or(e, "operand_bandwidth", mp.operand_bandwidth);
  if (e.has("misaligned_efficiency")) {
    const json& a = e.at("misaligned_efficiency");
    if (!a.is_array() || a.size() != 3) e.fail("misaligned_efficiency", "must be a list of 3 numbers (8, 4 and 2-byte alignment)");
    for (std::size_t i = 0; i < 3; ++i) {
      if (!a[i].is_number() || !(a[i].get<double>() > 0 && a[i].get<double>() <= 1))
        e.fail("misaligned_efficiency", "element " + std::to_string(i) + " must be a number in (0, 1], is " + a[i].dump());
      mp.misaligned_efficiency[i] = a[i].get<double>();
    }
  }
  e.check_unknown();
}

}  // namespace

std::string_view gpu_math_name(GpuMath math) {
  switch (math) {
    case GpuMath::fp32: return "fp32";
    case GpuMath::tf32: return "tf32";
    case GpuMath::half: return "half";
    case GpuMath::fp64: return "fp64";
    case GpuMath::fp8: return "fp8";
  }
  return "?";
}

std::string_view gpu_generation_name(GpuGeneration generation) {
  switch (generation) {
    case GpuGeneration::volta: return "volta";
    case GpuGeneration::ampere: return "ampere";
    case GpuGeneration::hopper: return "hopper";
  }
  return "?";
}

json gpu_section(const GpuKernelParams& p) {
  json math = json::object(), conv_loop = json::object();
  for (const GpuMath m : kAllGpuMaths) {
    const auto i = static_cast<std::size_t>(m);
    math[std::string(gpu_math_name(m))] = math_entry(p.math[i]);
    if (p.conv_loop[i]) conv_loop[std::string(gpu_math_name(m))] = math_entry(*p.conv_loop[i]);
  }
  json conv = json::object();
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    const GpuConvParams& c = p.conv[static_cast<int>(phase)];
    conv[std::string(phase_name(phase))] = {{"efficiency", c.efficiency}, {"tile_fixed_s", c.tile_fixed_s}, {"fixed_s", c.fixed_s}, {"thin_group_efficiency", c.thin_group_efficiency}};
  }
  json passes = json::object();
  for (const auto& [name, e] : p.pass_efficiency) passes[name] = e;
  json kernels = json::object();
  for (const auto& [name, n] : p.pass_kernels) kernels[name] = n;
  json sigma = json::object(), shared = json::object();
  for (const auto& [name, s] : p.residual_sigma) sigma[name] = s;
  for (const auto& [name, s] : p.shared_sigma) shared[name] = s;
  json section = {{"generation", std::string(gpu_generation_name(p.generation))},
          {"l2_bytes", p.l2_bytes},
          {"kernel_min_s", p.kernel_min_s},
          {"pass_min_s", p.pass_min_s},
          {"dram_efficiency", p.dram_efficiency},
          {"math", math},
          {"conv", conv},
          {"pass_efficiency", passes},
          {"pass_kernels", kernels},
          {"l2_speedup", p.l2_speedup},
          {"residual_sigma", sigma},
          {"shared_sigma", shared}};
  if (!conv_loop.empty()) section["conv_loop"] = conv_loop;
  return section;
}

GpuKernelParams read_gpu_section(const json& section, const std::string& where) {
  JsonObjectReader r(section, where);
  GpuKernelParams p;
  p.enabled = true;
  const std::string generation = r.text("generation");
  bool known = false;
  for (const GpuGeneration g : kGenerations)
    if (generation == gpu_generation_name(g)) p.generation = g, known = true;
  if (!known) r.fail("generation", "must be volta, ampere or hopper, is '" + generation + "'");
  p.l2_bytes = positive_or(r, "l2_bytes", p.l2_bytes);
  p.kernel_min_s = non_negative(r, "kernel_min_s", p.kernel_min_s);
  if (p.kernel_min_s > 1e-3) r.fail("kernel_min_s", "must be at most 1 ms");
  p.pass_min_s = non_negative(r, "pass_min_s", p.pass_min_s);
  if (p.pass_min_s > 1e-3) r.fail("pass_min_s", "must be at most 1 ms");
  p.dram_efficiency = in_range(r, "dram_efficiency", p.dram_efficiency, 0, 1, "(0, 1]");
  p.l2_speedup = in_range(r, "l2_speedup", p.l2_speedup, 0, 8, "[1, 8]");
  if (p.l2_speedup < 1) r.fail("l2_speedup", "must be in [1, 8] (the L2 streams no slower than DRAM), is " + std::to_string(p.l2_speedup));
  const auto per_math = [&](const std::string& key, const std::function<GpuMathParams&(GpuMath)>& entry) {
    if (!r.has(key)) return;
    JsonObjectReader m(r.at(key), where + ": " + key);
    for (const GpuMath math : kAllGpuMaths) {
      const std::string name(gpu_math_name(math));
      if (!m.has(name)) continue;
      JsonObjectReader e(m.at(name), where + ": " + key + "." + name);
      read_math_entry(e, entry(math));
    }
    m.check_unknown();
  };
  per_math("math", [&](GpuMath m) -> GpuMathParams& { return p.math[static_cast<std::size_t>(m)]; });
  // After `math`: a convolution k-loop's fields it does not name are its math's.
  per_math("conv_loop", [&](GpuMath m) -> GpuMathParams& {
    return p.conv_loop[static_cast<std::size_t>(m)].emplace(p.math[static_cast<std::size_t>(m)]);
  });
  if (r.has("conv")) {
    JsonObjectReader c(r.at("conv"), where + ": conv");
    for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
      const std::string name(phase_name(phase));
      if (!c.has(name)) continue;
      JsonObjectReader e(c.at(name), where + ": conv." + name);
      GpuConvParams& cp = p.conv[static_cast<int>(phase)];
      cp.efficiency = in_range(e, "efficiency", cp.efficiency, 0, 2, "(0, 2]");
      cp.tile_fixed_s = non_negative(e, "tile_fixed_s", cp.tile_fixed_s);
      cp.fixed_s = non_negative(e, "fixed_s", cp.fixed_s);
      cp.thin_group_efficiency = in_range(e, "thin_group_efficiency", cp.thin_group_efficiency, 0, 1, "(0, 1]");
      e.check_unknown();
    }
    c.check_unknown();
  }
  const auto per_name = [&](const std::string& key, std::map<std::string, double, std::less<>>& out, double low, double high, const std::string& range) {
    if (!r.has(key)) return;
    const json& o = r.at(key);
    if (!o.is_object()) r.fail(key, "must be an object of names to numbers");
    for (const auto& [name, value] : o.items()) {
      if (!value.is_number() || !(value.get<double>() > low && value.get<double>() <= high))
        r.fail(key + "." + name, "must be a number in " + range + ", is " + value.dump());
      out[name] = value.get<double>();
    }
  };
  per_name("pass_efficiency", p.pass_efficiency, 0.0, 2.0, "(0, 2]");
  per_name("pass_kernels", p.pass_kernels, 0.0, 64.0, "[1, 64]");
  for (const auto& [name, n] : p.pass_kernels)
    if (n < 1) r.fail("pass_kernels." + name, "must be a number in [1, 64], is " + std::to_string(n));
  per_name("residual_sigma", p.residual_sigma, -1e-300, 10.0, "[0, 10]");
  per_name("shared_sigma", p.shared_sigma, -1e-300, 10.0, "[0, 10]");
  for (const auto& [name, s] : p.shared_sigma) {
    const auto it = p.residual_sigma.find(name);
    if (it == p.residual_sigma.end() || s > it->second) r.fail("shared_sigma." + name, "must be at most residual_sigma." + name);
  }
  r.check_unknown();
  return p;
}

}  // namespace dnnperf
