// The command line's numbers, ranges and lists: node counts ("1..4096", "2..64:2", "1,2,8"),
// lists ("f32,bf16"), byte sizes ("64K"), dtypes, bench's shape sets ("sample:200:7:1.5") and the
// number checks every option shares (apps/dnnperf/cli_style.h). The first byte picks the parser.
#include "apps/dnnperf/cli_style.h"
#include "core/common/dtype.h"
#include "core/common/text_lists.h"
#include "microbench/shapes/shape_sets.h"
#include "predictor/prediction/scaling.h"
#include "tests/fuzz/fuzz_target.h"

DNNPERF_FUZZ_TARGET {
  if (size == 0) return 0;
  const std::string arg = dnnperf::fuzz::text(data + 1, size - 1);
  dnnperf::fuzz::expect_result_or_input_error([&] {
    switch (data[0] % 6) {
      case 0: {
        const std::vector<int> nodes = dnnperf::parse_node_counts(arg);
        for (int n : nodes) DNNPERF_CHECK(n >= 1);
        break;
      }
      case 1: {
        for (const std::string& item : dnnperf::split_list(arg, "--list")) DNNPERF_CHECK(!item.empty());
        break;
      }
      case 2:
        DNNPERF_CHECK(dnnperf::parse_byte_size(arg, "--sizes") > 0);
        break;
      case 3:
        (void)dnnperf::parse_dtype(arg);
        break;
      case 4:
        (void)dnnperf::bench::shape_set(arg);
        break;
      default: {
        std::string value = arg;
        (void)dnnperf::cli::positive()(value);
        value = arg;
        (void)dnnperf::cli::non_negative()(value);
        break;
      }
    }
  });
  return 0;
}
