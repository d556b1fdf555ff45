// Network JSON files (docs/network-format.md), both forms: layer lists and "dnnperf.transformer"
// hyper-parameters.
#include "core/common/json_reader.h"
#include "networks/import/json_network.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/network_oracle.h"

DNNPERF_FUZZ_TARGET {
  dnnperf::fuzz::expect_result_or_input_error([&] {
    const nlohmann::json doc = dnnperf::parse_json(dnnperf::fuzz::text(data, size), "fuzz.json");
    dnnperf::fuzz::check_network(dnnperf::network_from_json(doc, "fuzz.json"));
  });
  return 0;
}
