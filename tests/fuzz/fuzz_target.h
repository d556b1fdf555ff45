#pragma once
// What every fuzz target promises: a reader given any bytes returns a result or throws
// InputError (the clear error a user sees, exit 1). Any other exception escapes the target and
// is reported as a crash, as are the sanitizers' reports, a timeout and running out of memory.
//
// Each target is built two ways (tests/fuzz/CMakeLists.txt): with libFuzzer under
// -DDNNPERF_FUZZ=ON (scripts/fuzz.sh runs it), and always with replay_main.cc, which feeds it the
// regression inputs under tests/fuzz/regressions/ and the seed files as an ordinary test.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "core/common/error.h"

namespace dnnperf::fuzz {

/// The input as text (any bytes, NUL included).
inline std::string text(const std::uint8_t* data, std::size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

/// Runs `read`; an InputError is the expected answer to bad input and is swallowed (printed
/// where DNNPERF_FUZZ_VERBOSE is set, to see which seeds a reader accepts).
template <typename Read>
void expect_result_or_input_error(Read&& read) {
  try {
    read();
    if (std::getenv("DNNPERF_FUZZ_VERBOSE")) std::cerr << "accepted\n";
  } catch (const InputError& e) {
    if (std::getenv("DNNPERF_FUZZ_VERBOSE")) std::cerr << "input error: " << e.what() << "\n";
  }
}

}  // namespace dnnperf::fuzz

#define DNNPERF_FUZZ_TARGET extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
