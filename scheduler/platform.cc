#include "scheduler/platform.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include "core/common/error.h"
#include "core/common/json_reader.h"

namespace dnnperf {
namespace {

using nlohmann::json;

TransferCost read_link_cost(JsonObjectReader& r) {
  TransferCost c;
  const double bandwidth = r.positive("bandwidth");
  c.seconds_per_byte = 1.0 / bandwidth;
  c.latency_s = r.real("latency_s", 0.0);
  if (c.latency_s < 0) r.fail("latency_s", "must not be negative");
  r.text("kind", "");
  return c;
}

HardwareProfile resolve_hardware(const std::string& name, const std::filesystem::path& base, const std::string& where) {
  const std::filesystem::path relative = base / name;
  std::error_code error;
  if (std::filesystem::is_regular_file(relative, error)) return load_hardware_profile(relative.string());
  try {
    return find_hardware_profile(name);
  } catch (const InputError& e) {
    throw InputError(where + ": field 'hardware': " + e.what());
  }
}

}  // namespace

int Platform::device_index(const std::string& device) const {
  for (int i = 0; i < size(); ++i)
    if (devices[static_cast<std::size_t>(i)].name == device) return i;
  return -1;
}

void Platform::connect(const std::vector<std::tuple<int, int, TransferCost>>& links) {
  const int n = size();
  constexpr double inf = std::numeric_limits<double>::infinity();
  // Paths are chosen by their time for a 1 MiB tensor, a typical activation.
  constexpr double reference_bytes = 1 << 20;
  transfer_.assign(static_cast<std::size_t>(n * n), TransferCost{inf, inf});
  const auto at = [&](int a, int b) -> TransferCost& { return transfer_[static_cast<std::size_t>(a * n + b)]; };
  for (int i = 0; i < n; ++i) at(i, i) = {0, 0};
  for (const auto& [a, b, cost] : links) {
    if (cost.seconds(reference_bytes) < at(a, b).seconds(reference_bytes)) at(a, b) = at(b, a) = cost;
  }
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const TransferCost via{at(i, k).latency_s + at(k, j).latency_s, at(i, k).seconds_per_byte + at(k, j).seconds_per_byte};
        if (via.seconds(reference_bytes) < at(i, j).seconds(reference_bytes)) at(i, j) = via;
      }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (!std::isfinite(at(i, j).seconds_per_byte))
        throw InputError("platform '" + name + "': device '" + devices[static_cast<std::size_t>(i)].name + "' has no link path to device '" +
                         devices[static_cast<std::size_t>(j)].name + "' (add a link or a network between servers)");
}

Platform load_platform(const std::string& path) { return platform_from_json(read_json_file(path), path); }

Platform platform_from_json(const json& doc, const std::string& path) {
  JsonObjectReader r(doc, path);
  Platform p;
  p.path = path;
  if (r.text("format") != "dnnperf.platform") r.fail("format", "must be \"dnnperf.platform\"");
  if (r.integer("version", std::nullopt) != 1) r.fail("version", "must be 1");
  p.name = r.text("name");
  r.text("description", "");
  if (r.has("sources") && !r.at("sources").is_object()) r.fail("sources", "must map names to where their figures come from");
  const std::filesystem::path base = std::filesystem::path(path).parent_path();

  std::vector<std::tuple<int, int, TransferCost>> links;
  const json& servers = r.at("servers");
  if (!servers.is_array() || servers.empty()) r.fail("servers", "must be a non-empty list");
  std::set<std::string> server_names;
  for (std::size_t s = 0; s < servers.size(); ++s) {
    JsonObjectReader sr(servers[s], path + ": servers[" + std::to_string(s) + "]");
    const std::string server_name = sr.text("name");
    if (!server_names.insert(server_name).second) sr.fail("name", "repeats server '" + server_name + "'");
    const std::int64_t count = sr.integer("count", 1);
    if (count < 1 || count > 4096) sr.fail("count", "must be between 1 and 4096");
    const json& devices = sr.at("devices");
    if (!devices.is_array() || devices.empty()) sr.fail("devices", "must be a non-empty list");

    // Read the server's devices once; instances copy them.
    std::vector<PlatformDevice> declared;
    std::map<std::string, int> local;
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const std::string where = sr.where() + ": devices[" + std::to_string(d) + "]";
      JsonObjectReader dr(devices[d], where);
      PlatformDevice dev;
      dev.name = dr.text("name");
      if (local.count(dev.name)) dr.fail("name", "repeats device '" + dev.name + "'");
      local[dev.name] = static_cast<int>(d);
      dev.hardware = resolve_hardware(dr.text("hardware"), base, where);
      dev.memory_bytes = dr.real("memory_bytes", dev.hardware.device.memory_bytes - dev.hardware.device.reserved_bytes);
      if (!(dev.memory_bytes > 0)) dr.fail("memory_bytes", "must be positive");
      if (dr.has("unsupported_ops")) {
        const json& ops = dr.at("unsupported_ops");
        if (!ops.is_array()) dr.fail("unsupported_ops", "must be a list of op names");
        for (const json& o : ops) {
          if (!o.is_string()) dr.fail("unsupported_ops", "must be a list of op names");
          const auto kind = parse_op_kind(o.get<std::string>());
          if (!kind) dr.fail("unsupported_ops", "names unknown op '" + o.get<std::string>() + "'");
          dev.unsupported.insert(*kind);
        }
      }
      dr.check_unknown();
      declared.push_back(std::move(dev));
    }
    std::vector<std::tuple<int, int, TransferCost>> local_links;
    if (sr.has("intra")) {  // one switch (NVSwitch, a PCIe switch) between every pair of devices
      JsonObjectReader ir(sr.at("intra"), sr.where() + ": intra");
      const TransferCost all = read_link_cost(ir);
      ir.check_unknown();
      for (std::size_t a = 0; a < declared.size(); ++a)
        for (std::size_t b = a + 1; b < declared.size(); ++b) local_links.emplace_back(static_cast<int>(a), static_cast<int>(b), all);
    }
    if (sr.has("links")) {
      const json& ls = sr.at("links");
      if (!ls.is_array()) sr.fail("links", "must be a list");
      for (std::size_t l = 0; l < ls.size(); ++l) {
        JsonObjectReader lr(ls[l], sr.where() + ": links[" + std::to_string(l) + "]");
        const json& between = lr.at("between");
        if (!between.is_array() || between.size() != 2 || !between[0].is_string() || !between[1].is_string())
          lr.fail("between", "must name two devices of the server");
        const std::string a = between[0].get<std::string>(), b = between[1].get<std::string>();
        if (!local.count(a)) lr.fail("between", "names unknown device '" + a + "'");
        if (!local.count(b)) lr.fail("between", "names unknown device '" + b + "'");
        if (a == b) lr.fail("between", "links device '" + a + "' to itself");
        local_links.emplace_back(local[a], local[b], read_link_cost(lr));
        lr.check_unknown();
      }
    }
    sr.check_unknown();
    for (std::int64_t instance = 0; instance < count; ++instance) {
      const std::string instance_name = count == 1 ? server_name : server_name + std::to_string(instance);
      const int offset = p.size();
      for (const PlatformDevice& d : declared) {
        PlatformDevice copy = d;
        copy.server = instance_name;
        copy.server_index = p.servers;
        copy.server_class = p.server_classes;
        if (count > 1 || servers.size() > 1) copy.name = instance_name + "/" + d.name;
        p.devices.push_back(std::move(copy));
      }
      for (const auto& [a, b, cost] : local_links) links.emplace_back(offset + a, offset + b, cost);
      ++p.servers;
    }
    ++p.server_classes;
  }
  if (r.has("network")) {
    JsonObjectReader nr(r.at("network"), path + ": network");
    const TransferCost net = read_link_cost(nr);
    nr.check_unknown();
    for (int a = 0; a < p.size(); ++a)
      for (int b = a + 1; b < p.size(); ++b)
        if (p.devices[static_cast<std::size_t>(a)].server_index != p.devices[static_cast<std::size_t>(b)].server_index) links.emplace_back(a, b, net);
  } else if (p.servers > 1) {
    r.fail("network", "is required: the platform has " + std::to_string(p.servers) + " servers");
  }
  r.check_unknown();
  p.connect(links);
  return p;
}

}  // namespace dnnperf
