#include "core/common/json_reader.h"

#include <fstream>

#include "core/common/error.h"

namespace dnnperf {

using nlohmann::json;

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the file");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(path + ": not valid JSON: " + e.what());
  }
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
  const json& v = object_.at(key);
  if (!v.is_number_integer()) fail(key, "must be an integer, is " + v.dump());
  return v.get<std::int64_t>();
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

double JsonObjectReader::positive(const std::string& key) {
  const double v = real(key, std::nullopt);
  if (!(v > 0)) fail(key, "must be positive, is " + object_.at(key).dump());
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
  if (v.is_number_integer()) return {v.get<std::int64_t>()};
  if (!v.is_array()) fail(key, "must be an integer or a list of integers, is " + v.dump());
  std::vector<std::int64_t> out;
  for (const json& e : v) {
    if (!e.is_number_integer()) fail(key, "must hold integers only, is " + v.dump());
    out.push_back(e.get<std::int64_t>());
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
