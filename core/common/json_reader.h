#pragma once
// JsonObjectReader: strict reading of one JSON object of a user file. Every getter names the
// object ("net.json: layer 'conv1'") and the field in its error; check_unknown() rejects fields
// nobody asked for, so that a misspelt field is an error instead of a silently ignored default.
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnperf {

/// Parses a JSON file; InputError naming the file if it is a directory, cannot be opened or is
/// not JSON.
nlohmann::json read_json_file(const std::string& path);

/// Parses JSON text that `where` names ("net.json", "runs.jsonl:12"). Every error is an
/// InputError naming it: bad syntax, numbers beyond a double's range ("1e309", which nlohmann
/// reports as out_of_range rather than as a parse error), and a key given twice in one object
/// (which nlohmann would resolve silently to the last).
nlohmann::json parse_json(std::string_view text, const std::string& where);

/// An integer JSON value as int64; InputError naming `where` ("net.json: field 'k'") for a
/// non-integer or one beyond int64 (nlohmann stores 2^63 as unsigned, and get<int64_t> wraps it).
std::int64_t json_integer(const nlohmann::json& value, const std::string& where);

class JsonObjectReader {
 public:
  /// Throws InputError if `object` is not a JSON object.
  JsonObjectReader(const nlohmann::json& object, std::string where);

  [[noreturn]] void fail(const std::string& field, const std::string& message) const;
  const std::string& where() const { return where_; }

  /// True if the field is present; marks it as known either way.
  bool has(const std::string& key);
  /// The raw value of a required field.
  const nlohmann::json& at(const std::string& key);

  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback);
  double real(const std::string& key, std::optional<double> fallback);
  /// A required number that must be at least `min`: by default the smallest normal double, since
  /// a positive subnormal (1e-320) is as good as zero once divided by (1/x is infinite).
  double positive(const std::string& key, double min = std::numeric_limits<double>::min());
  bool boolean(const std::string& key, bool fallback);
  std::string text(const std::string& key, std::optional<std::string> fallback = std::nullopt);
  /// An integer or a list of integers.
  std::vector<std::int64_t> integers(const std::string& key, bool required);
  /// An integer (for both) or a pair [h, w].
  std::array<std::int64_t, 2> pair(const std::string& key, std::array<std::int64_t, 2> fallback, bool required = false);

  /// Throws InputError naming the first field no getter asked for.
  void check_unknown() const;

 private:
  const nlohmann::json& object_;
  std::string where_;
  std::set<std::string> used_;
};

}  // namespace dnnperf
