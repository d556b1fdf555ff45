// The zoo's "name:key=value,..." network specs ("gpt:layers=24,hidden=2048,heads=16",
// "randwire-er:nodes=32") as --network takes them, with the batch, image and sequence options.
#include "networks/zoo/zoo.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/network_oracle.h"

DNNPERF_FUZZ_TARGET {
  // The first byte picks which size options accompany the spec, as a command line would.
  const std::uint8_t flags = size > 0 ? data[0] : 0;
  const std::string spec = dnnperf::fuzz::text(data + (size > 0), size - (size > 0));
  dnnperf::NetworkOptions options;
  options.batch = 1 + (flags & 0x7);
  if (flags & 0x10) options.sequence = 1 << ((flags >> 5) & 0x7);
  if (flags & 0x08) options.image = std::array<std::int64_t, 2>{32 << ((flags >> 5) & 0x3), 32};
  options.with_loss = (flags & 0x80) == 0;
  dnnperf::fuzz::expect_result_or_input_error([&] { dnnperf::fuzz::check_network(dnnperf::build_zoo_network(spec, options)); });
  return 0;
}
