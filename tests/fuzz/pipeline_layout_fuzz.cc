// --pipeline-layout strings in Megatron's notation ("Et*2|(t*2|)*34,t*3|(t*2|)*3,tL"), with the
// pipeline depth and layer count a command line would pair them with.
#include "predictor/large_model/pipeline_layout.h"
#include "tests/fuzz/fuzz_target.h"

DNNPERF_FUZZ_TARGET {
  // The first byte picks the pipeline stages (1-16) and the model's layers (8 x 1-16).
  const std::uint8_t flags = size > 0 ? data[0] : 0;
  const std::string layout = dnnperf::fuzz::text(data + (size > 0), size - (size > 0));
  const int pp = 1 + (flags & 0xf);
  const std::int64_t layers = 8 * (1 + (flags >> 4));
  dnnperf::fuzz::expect_result_or_input_error([&] {
    std::int64_t placed = 0;
    for (const std::int64_t n : dnnperf::parse_pipeline_layout(layout, pp, layers)) {
      if (n < 0) std::abort();
      placed += n;
    }
    if (placed != layers) std::abort();  // an accepted layout places exactly the model's layers
  });
  return 0;
}
