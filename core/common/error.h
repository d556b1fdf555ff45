#pragma once
// Two tiers of failure, as in Ceres:
//  * InputError — something a user gave us (a file, a network, a field, an option) cannot be used.
//    The message names where (file, node, field) and why; the CLI prints it and exits non-zero.
//  * DNNPERF_CHECK — a broken internal invariant. It aborts with file:line; it is never the
//    answer to bad input.
#include <stdexcept>
#include <string>

namespace dnnperf {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Returns a copy of `error` whose message is prefixed by `context` ("file.json: ...").
InputError with_context(const std::string& context, const std::exception& error);

[[noreturn]] void internal_failure(const char* file, int line, const char* condition);

}  // namespace dnnperf

#define DNNPERF_CHECK(condition)                                           \
  do {                                                                     \
    if (!(condition)) ::dnnperf::internal_failure(__FILE__, __LINE__, #condition); \
  } while (false)
