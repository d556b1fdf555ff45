#include "core/common/json_reader.h"

#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "core/common/error.h"
#include "core/common/input_file.h"

namespace dnnperf {

using nlohmann::json;

json read_json_file(const std::string& path) {
  std::ifstream in = open_input_file(path, "JSON file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read the JSON file");
  return parse_json(text.str(), path);
}

json parse_json(std::string_view text, const std::string& where) {
  // The keys seen so far in each object being parsed, innermost last: a key given twice in one
  // object is an error here, where nlohmann would keep the last one without a word.
  std::vector<std::unordered_set<std::string>> keys;
  const json::parser_callback_t check_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      keys.pop_back();
    } else if (event == json::parse_event_t::key) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!keys.back().insert(key).second) throw InputError(where + ": key '" + key + "' appears twice in one object");
    }
    return true;
  };
  try {
    return json::parse(text, check_keys);
  } catch (const json::exception& e) {  // bad syntax, and numbers beyond a double's range (out_of_range)
    throw InputError(where + ": not valid JSON: " + e.what());
  }
}

std::int64_t json_integer(const json& value, const std::string& where) {
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw InputError(where + " is " + value.dump() + ", beyond a 64-bit integer");
  if (!value.is_number_integer()) throw InputError(where + " must be an integer, is " + value.dump());
  return value.get<std::int64_t>();
}

JsonObjectReader::JsonObjectReader(const json& object, std::string where) : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) throw InputError(where_ + " must be a JSON object");
}

void JsonObjectReader::fail(const std::string& field, const std::string& message) const {
  throw InputError(where_ + ": field '" + field + "' " + message);
}

bool JsonObjectReader::has(const std::string& key) {
  used_.insert(key);
  return object_.contains(key);
}

const json& JsonObjectReader::at(const std::string& key) {
  if (!has(key)) fail(key, "is required");
  return object_.at(key);
}

std::int64_t JsonObjectReader::integer(const std::string& key, std::optional<std::int64_t> fallback) {
  if (!has(key)) {
    if (!fallback) fail(key, "is required");
    return *fallback;
  }
  return json_integer(object_.at(key), where_ + ": field '" + key + "'");
}

double JsonObjectReader::real(const std::string& key, std::optional<double> fallback) {
  if (!has(key)) {
    if (!fallback) fail(key, "is required");
    return *fallback;
  }
  const json& v = object_.at(key);
  if (!v.is_number()) fail(key, "must be a number, is " + v.dump());
  return v.get<double>();
}

double JsonObjectReader::positive(const std::string& key, double min) {
  const double v = real(key, std::nullopt);
  if (!(v > 0)) fail(key, "must be positive, is " + object_.at(key).dump());
  if (v < min) {
    std::ostringstream bound;
    bound << min;
    fail(key, "is " + object_.at(key).dump() + ", below the least it may be (" + bound.str() + ")");
  }
  return v;
}

bool JsonObjectReader::boolean(const std::string& key, bool fallback) {
  if (!has(key)) return fallback;
  const json& v = object_.at(key);
  if (!v.is_boolean()) fail(key, "must be true or false, is " + v.dump());
  return v.get<bool>();
}

std::string JsonObjectReader::text(const std::string& key, std::optional<std::string> fallback) {
  if (!has(key)) {
    if (!fallback) fail(key, "is required");
    return *fallback;
  }
  const json& v = object_.at(key);
  if (!v.is_string()) fail(key, "must be a string, is " + v.dump());
  return v.get<std::string>();
}

std::vector<std::int64_t> JsonObjectReader::integers(const std::string& key, bool required) {
  if (!has(key)) {
    if (required) fail(key, "is required");
    return {};
  }
  const json& v = object_.at(key);
  const std::string field = where_ + ": field '" + key + "'";
  if (v.is_number_integer()) return {json_integer(v, field)};
  if (!v.is_array()) fail(key, "must be an integer or a list of integers, is " + v.dump());
  std::vector<std::int64_t> out;
  for (const json& e : v) {
    if (!e.is_number_integer()) fail(key, "must hold integers only, is " + v.dump());
    out.push_back(json_integer(e, field));
  }
  return out;
}

std::array<std::int64_t, 2> JsonObjectReader::pair(const std::string& key, std::array<std::int64_t, 2> fallback, bool required) {
  const auto v = integers(key, required);
  if (v.empty() && !object_.contains(key)) return fallback;
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() != 2) fail(key, "must be an integer or a list of 2 integers");
  return {v[0], v[1]};
}

void JsonObjectReader::check_unknown() const {
  for (auto it = object_.begin(); it != object_.end(); ++it)
    if (!used_.count(it.key())) throw InputError(where_ + ": unknown field '" + it.key() + "'");
}

}  // namespace dnnperf
