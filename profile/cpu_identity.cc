#include "profile/cpu_identity.h"

#include <algorithm>
#include <sstream>

#include "core/common/error.h"
#include "core/common/json_reader.h"

namespace dnnperf {
namespace {

std::string bytes_text(std::int64_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1 << 10) && bytes % (1 << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

}  // namespace

nlohmann::json read_cpu_identity(const nlohmann::json& cpu, const std::string& where) {
  JsonObjectReader r(cpu, where);
  for (const char* f : {"vendor", "name"})
    if (r.has(f)) r.text(f);
  for (const char* f : {"family", "model", "stepping", "logical_cpus"})
    if (r.has(f) && r.integer(f, std::nullopt) < 0) r.fail(f, "must not be negative");
  if (r.has("caches")) {
    JsonObjectReader c(r.at("caches"), where + ": caches");
    for (const auto& [level, size] : cpu.at("caches").items()) {
      c.has(level);
      if (!size.is_number_integer() || size.get<std::int64_t>() <= 0) c.fail(level, "must be a positive number of bytes");
    }
  }
  if (r.has("isa")) {
    const nlohmann::json& isa = r.at("isa");
    if (!isa.is_array() || !std::all_of(isa.begin(), isa.end(), [](const nlohmann::json& x) { return x.is_string(); }))
      r.fail("isa", "must be a list of strings");
  }
  if (r.has("virtualized")) r.boolean("virtualized", false);
  r.check_unknown();
  return cpu;
}

std::string describe_cpu(const nlohmann::json& cpu) {
  if (!cpu.is_object() || cpu.empty()) return "unknown CPU";
  std::ostringstream out;
  out << cpu.value("name", std::string("CPU"));
  std::string id = cpu.value("vendor", std::string());
  for (const char* f : {"family", "model", "stepping"})
    if (cpu.contains(f)) id += (id.empty() ? "" : " ") + std::string(f) + " " + cpu.at(f).dump();
  if (!id.empty()) out << " (" << id << ")";
  if (cpu.contains("caches"))
    for (const char* level : {"l2", "l3"})
      if (cpu["caches"].contains(level)) out << ", " << char(level[0] - 32) << level[1] << " " << bytes_text(cpu["caches"][level].get<std::int64_t>());
  if (cpu.contains("isa")) {
    const auto has = [&](const char* f) { return std::find(cpu["isa"].begin(), cpu["isa"].end(), f) != cpu["isa"].end(); };
    out << (has("amx_tile") ? ", AMX" : has("avx512f") ? ", AVX-512" : has("avx2") ? ", AVX2" : has("sve") ? ", SVE" : "");
  }
  if (cpu.value("virtualized", false)) out << ", virtualized";
  return out.str();
}

std::vector<std::string> cpu_differences(const nlohmann::json& from, const nlohmann::json& to) {
  std::vector<std::string> out;
  if (!from.is_object() || !to.is_object()) return out;
  const auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  for (const char* f : {"vendor", "name", "family", "model", "stepping"})
    if (from.contains(f) && to.contains(f) && from[f] != to[f]) out.push_back(std::string(f) + " " + text(from[f]) + " -> " + text(to[f]));
  if (from.contains("caches") && to.contains("caches"))
    for (const auto& [level, size] : from["caches"].items())
      if (to["caches"].contains(level) && to["caches"][level] != size)
        out.push_back(level + " " + bytes_text(size.get<std::int64_t>()) + " -> " + bytes_text(to["caches"][level].get<std::int64_t>()));
  if (from.contains("isa") && to.contains("isa")) {
    std::vector<std::string> a = from["isa"].get<std::vector<std::string>>(), b = to["isa"].get<std::vector<std::string>>();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::vector<std::string> lost, gained;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(lost));
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(gained));
    for (const std::string& f : lost) out.push_back("without " + f);
    for (const std::string& f : gained) out.push_back("with " + f);
  }
  return out;
}

}  // namespace dnnperf
