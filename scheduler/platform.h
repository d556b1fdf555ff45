#pragma once
// Platform: the machines a network's operators are scheduled onto — devices (each priced by a
// hardware profile), the links between devices of a server, and the network between servers.
// docs/platform-format.md describes the JSON file.
//
//   const Platform p = load_platform("data/platforms/cpu-v100-a100.json");
//   double t = p.transfer_seconds(0, 2, 4 << 20);  // 4 MiB from device 0 to device 2
//
// Devices without a direct link reach each other over several links, store-and-forward: latencies
// and per-byte times add up along the path, and the path is the one fastest for a 1 MiB tensor.
#include <set>
#include <string>
#include <vector>

#include "core/graph/op_kind.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

struct PlatformDevice {
  std::string name;    // unique, "server/device" when the server is repeated
  std::string server;  // name of the server instance it belongs to
  int server_index = 0;
  /// Servers declared once with "count": n share a class; identical servers have equal classes.
  int server_class = 0;
  HardwareProfile hardware;
  double memory_bytes = 0;  // capacity for weights and activations
  std::set<OpKind> unsupported;  // ops it cannot run (accelerators without an op)
};

/// A link's cost for one transfer: latency_s + bytes * seconds_per_byte.
struct TransferCost {
  double latency_s = 0;
  double seconds_per_byte = 0;
  double seconds(double bytes) const { return bytes > 0 ? latency_s + bytes * seconds_per_byte : 0.0; }
};

class Platform {
 public:
  std::string name;
  std::string path;
  std::vector<PlatformDevice> devices;
  int servers = 0;
  int server_classes = 0;

  int size() const { return static_cast<int>(devices.size()); }
  /// Time to move `bytes` from device `from` to device `to` (0 on the same device).
  double transfer_seconds(int from, int to, double bytes) const {
    return from == to ? 0.0 : transfer_[static_cast<std::size_t>(from * size() + to)].seconds(bytes);
  }
  const TransferCost& transfer(int from, int to) const { return transfer_[static_cast<std::size_t>(from * size() + to)]; }
  /// Index of a device by name, or -1.
  int device_index(const std::string& name) const;

  /// Sets the direct links (symmetric) and computes all device-to-device paths. Throws
  /// InputError naming the first device that cannot reach another.
  void connect(const std::vector<std::tuple<int, int, TransferCost>>& links);

 private:
  std::vector<TransferCost> transfer_;
};

/// Reads and checks a platform file: unknown fields, unknown hardware profiles or op names,
/// non-positive figures, duplicate names and devices that cannot reach each other are InputErrors
/// naming the file and the field. Hardware profiles are looked up as by --hardware, and also
/// relative to the platform file's directory.
Platform load_platform(const std::string& path);

/// The same from a parsed document; `path` names it in errors and places the relative profile
/// lookups.
Platform platform_from_json(const nlohmann::json& document, const std::string& path);

}  // namespace dnnperf
