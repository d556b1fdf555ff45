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

namespace {

// nlohmann's DOM builder with one check added: a key given twice in one object is an error here,
// where nlohmann would keep the last one without a word. (Its parser callbacks could check keys
// too, but the callback parser scans the parent container at each object's end: a network of
// 10^5 layers took 3 s to read and one of 10^6 layers six minutes.)
class KeyCheckingBuilder final : public nlohmann::json_sax<json> {
 public:
  KeyCheckingBuilder(json& result, const std::string& where) : dom_(result, true), where_(where) {}

  bool null() override { return dom_.null(); }
  bool boolean(bool value) override { return dom_.boolean(value); }
  bool number_integer(number_integer_t value) override { return dom_.number_integer(value); }
  bool number_unsigned(number_unsigned_t value) override { return dom_.number_unsigned(value); }
  bool number_float(number_float_t value, const string_t& text) override { return dom_.number_float(value, text); }
  bool string(string_t& value) override { return dom_.string(value); }
  bool binary(binary_t& value) override { return dom_.binary(value); }
  bool start_object(std::size_t elements) override {
    keys_.emplace_back();
    return dom_.start_object(elements);
  }
  bool key(string_t& key) override {
    if (!keys_.back().insert(key).second) throw InputError(where_ + ": key '" + key + "' appears twice in one object");
    return dom_.key(key);
  }
  bool end_object() override {
    keys_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t elements) override { return dom_.start_array(elements); }
  bool end_array() override { return dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& error) override {
    return dom_.parse_error(position, token, error);
  }

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const std::string& where_;
  std::vector<std::unordered_set<std::string>> keys_;  // of each object being read, innermost last
};

}  // namespace

json parse_json(std::string_view text, const std::string& where) {
  json result;
  KeyCheckingBuilder builder(result, where);
  try {
    json::sax_parse(text, &builder);
  } catch (const json::exception& e) {  // bad syntax, and numbers beyond a double's range (out_of_range)
    throw InputError(where + ": not valid JSON: " + e.what());
  }
  return result;
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
