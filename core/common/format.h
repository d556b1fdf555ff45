#pragma once
// Number formatting for tables and reports.
#include <cstdint>
#include <string>
#include <vector>

namespace dnnperf {

/// 25557032 -> "25,557,032".
std::string with_commas(std::int64_t value);
/// Fixed-point with `digits` decimals. fixed() and significant() throw InputError for an inf or
/// NaN: no non-finite figure reaches an output.
std::string fixed(double value, int digits);
/// `digits` significant digits, as std::ostream's default (general) notation writes them: for
/// files that keep full figures (CSV).
std::string significant(double value, int digits);
/// Bytes in MiB with two decimals.
std::string mebibytes(double bytes);
/// {"a", "b"} -> "a, b".
std::string joined(const std::vector<std::string>& parts);

}  // namespace dnnperf
