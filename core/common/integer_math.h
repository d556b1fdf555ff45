#pragma once
// Integer arithmetic the cost models share.
#include <cstdint>

namespace dnnperf {

/// a / b rounded up, for a >= 0 and b > 0: how many tiles, waves or chunks of b cover a.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace dnnperf
