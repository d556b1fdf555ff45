#pragma once
// The one writer of a hardware profile: every field hardware_profile_from_json reads, spelled as
// docs/hardware-format.md gives it, so that reading what this writes yields the same profile
// (tests/profile/profile_writer_test.cc holds it to that over every shipped profile). `dnnperf
// fit` sets a HardwareProfile's fields and writes it through here.
#include <string>

#include <nlohmann/json.hpp>

#include "profile/hardware_profile.h"

namespace dnnperf {

/// The profile as a document: format, version, name, aliases, device, node, cluster, then each
/// fitted section the profile has (empty ones are left out) and the sources.
nlohmann::json hardware_profile_to_json(const HardwareProfile& profile);

/// The device object alone (inside "device").
nlohmann::json device_to_json(const DeviceSpec& device);

/// Writes `profile` to `path` whole: to a temporary file beside it, renamed over `path` once
/// complete, so that an interrupted write leaves the old file. Throws InputError naming the path.
void write_hardware_profile(const HardwareProfile& profile, const std::string& path);

}  // namespace dnnperf
