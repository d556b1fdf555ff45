// Measurement files (JSON Lines, docs/measurement-format.md) as fit, score and bench --resume
// read them. A record read must write back to a record that reads the same, under the same key.
#include <sstream>

#include "records/measurement.h"
#include "tests/fuzz/fuzz_target.h"

DNNPERF_FUZZ_TARGET {
  std::vector<dnnperf::bench::Record> records;
  dnnperf::fuzz::expect_result_or_input_error([&] {
    std::istringstream in(dnnperf::fuzz::text(data, size));
    records = dnnperf::bench::read_records(in, "fuzz.jsonl");
  });
  for (const dnnperf::bench::Record& r : records) {
    const nlohmann::json written = r.to_json();
    const dnnperf::bench::Record back = dnnperf::bench::Record::from_json(written, "written");
    DNNPERF_CHECK(back.key() == r.key());
    DNNPERF_CHECK(back.to_json() == written);
  }
  return 0;
}
