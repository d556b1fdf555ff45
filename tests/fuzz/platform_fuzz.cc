// Heterogeneous platform files (docs/scheduling.md's "dnnperf.platform"), whose devices name
// hardware profiles as --hardware does.
#include "core/common/json_reader.h"
#include "scheduler/platform.h"
#include "tests/fuzz/fuzz_target.h"

DNNPERF_FUZZ_TARGET {
  dnnperf::fuzz::expect_result_or_input_error([&] {
    const dnnperf::Platform p = dnnperf::platform_from_json(dnnperf::parse_json(dnnperf::fuzz::text(data, size), "fuzz.json"), "fuzz.json");
    DNNPERF_CHECK(!p.devices.empty());
  });
  return 0;
}
