#include "records/machine.h"

#include <sched.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace dnnperf::bench {
namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return trimmed(line);
}

// sysfs cache sizes read "32K", "1024K", "32768K" (or "8M"); 0 where unreadable.
long long cache_bytes(const std::string& text) {
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    const std::string unit = text.substr(used);
    return unit == "K" ? value << 10 : unit == "M" ? value << 20 : unit == "G" ? value << 30 : unit.empty() ? value : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

nlohmann::json caches() {
  nlohmann::json out = nlohmann::json::object();
  std::error_code ec;
  const std::filesystem::path base = "/sys/devices/system/cpu/cpu0/cache";
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    if (!entry.path().filename().string().starts_with("index")) continue;
    const std::string type = read_line(entry.path() / "type");
    const std::string level = read_line(entry.path() / "level");
    const long long size = cache_bytes(read_line(entry.path() / "size"));
    if (type == "Instruction" || level.empty() || size <= 0) continue;
    out["l" + level + (type == "Data" ? "d" : "")] = size;
  }
  return out;
}

}  // namespace

nlohmann::json this_cpu() {
  std::ifstream in("/proc/cpuinfo");
  if (!in) return nlohmann::json::object();
  // The first processor's block describes them all.
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(in, line) && !trimmed(line).empty()) {
    const auto colon = line.find(':');
    if (colon != std::string::npos) fields[trimmed(line.substr(0, colon))] = trimmed(line.substr(colon + 1));
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, name] : {std::pair{"vendor_id", "vendor"}, {"CPU implementer", "vendor"}, {"model name", "name"}})
    if (fields.count(key)) out[name] = fields[key];
  for (const auto& [key, name] : {std::pair{"cpu family", "family"}, {"model", "model"}, {"stepping", "stepping"}, {"CPU architecture", "family"},
                                  {"CPU part", "model"}, {"CPU variant", "stepping"}}) {
    if (!fields.count(key)) continue;
    try {
      out[name] = std::stoll(fields[key], nullptr, 0);
    } catch (const std::exception&) {
    }
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) out["logical_cpus"] = CPU_COUNT(&set);
  if (const nlohmann::json c = caches(); !c.empty()) out["caches"] = c;
  std::istringstream flag_text(fields.count("flags") ? fields["flags"] : fields["Features"]);
  std::set<std::string> flags;
  for (std::string f; flag_text >> f;) flags.insert(f);
  out["isa"] = nlohmann::json::array();
  for (const char* f : kIsaFlags)
    if (flags.count(f)) out["isa"].push_back(f);
  out["virtualized"] = flags.count("hypervisor") > 0;
  return out;
}

}  // namespace dnnperf::bench
