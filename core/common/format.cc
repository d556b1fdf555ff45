#include "core/common/format.h"

#include <cmath>
#include <cstdio>

#include "core/common/error.h"

namespace dnnperf {

std::string with_commas(std::int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

namespace {

// The output layer's guard: every figure a table or a CSV shows passes through fixed() or
// significant(), and an inf or NaN there means an input outside any physical range (a bandwidth
// of 1e-320, say) got through; a named error beats "-nan ms" in a plot.
void check_finite(double value) {
  if (!std::isfinite(value))
    throw InputError(std::string("a figure came out as ") + (std::isnan(value) ? "NaN" : "infinite") +
                     "; an input is outside any physical range (a zero or tiny bandwidth or rate?)");
}

}  // namespace

std::string fixed(double value, int digits) {
  check_finite(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string significant(double value, int digits) {
  check_finite(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

std::string mebibytes(double bytes) { return fixed(bytes / (1024.0 * 1024.0), 2); }

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace dnnperf
