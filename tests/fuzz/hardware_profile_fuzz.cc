// Hardware profiles (docs/hardware-format.md). A profile the reader accepts must survive the
// writer: written and read back, it is read without error and writes the same document again.
#include "core/common/json_reader.h"
#include "profile/hardware_profile.h"
#include "profile/profile_writer.h"
#include "tests/fuzz/fuzz_target.h"

DNNPERF_FUZZ_TARGET {
  std::optional<dnnperf::HardwareProfile> profile;
  dnnperf::fuzz::expect_result_or_input_error([&] {
    profile = dnnperf::hardware_profile_from_json(dnnperf::parse_json(dnnperf::fuzz::text(data, size), "fuzz.json"), "fuzz.json");
  });
  if (profile) {
    const nlohmann::json written = dnnperf::hardware_profile_to_json(*profile);
    const nlohmann::json again = dnnperf::hardware_profile_to_json(dnnperf::hardware_profile_from_json(written, "written"));
    DNNPERF_CHECK(written == again);
  }
  return 0;
}
