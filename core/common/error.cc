#include "core/common/error.h"

#include <cstdio>
#include <cstdlib>

namespace dnnperf {

InputError with_context(const std::string& context, const std::exception& error) {
  return InputError(context + ": " + error.what());
}

void internal_failure(const char* file, int line, const char* condition) {
  std::fprintf(stderr, "dnnperf internal error at %s:%d: check failed: %s\n", file, line, condition);
  std::abort();
}

}  // namespace dnnperf
