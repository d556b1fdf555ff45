#include "records/measurement.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>

#include "records/machine.h"
#include "core/common/input_file.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"

namespace dnnperf::bench {

using nlohmann::json;

Timing summarize(std::vector<double> s) {
  Timing t;
  t.repetitions = static_cast<int>(s.size());
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  t.median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  t.min = s.front();
  t.max = s.back();
  double mean = 0;
  for (double x : s) mean += x;
  mean /= static_cast<double>(n);
  double var = 0;
  for (double x : s) var += (x - mean) * (x - mean);
  t.stddev = n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0.0;
  return t;
}

std::string Record::key() const {
  return op + "|" + algorithm + "|" + dtype + "|" + params.dump() + "|" + layout.dump();
}

json Record::to_json() const {
  json j = {{"type", "record"}, {"op", op}, {"params", params}, {"dtype", dtype}, {"algorithm", algorithm},
            {"layout", layout}, {"library", library}, {"library_version", library_version}, {"host", host},
            {"date", date}, {"status", status}};
  if (timing) {
    j["repetitions"] = timing->repetitions;
    j["seconds"] = {{"median", timing->median}, {"min", timing->min}, {"max", timing->max}, {"stddev", timing->stddev}};
  }
  if (!reason.empty()) j["reason"] = reason;
  if (verified) j["verified"] = *verified;
  if (!metrics.empty()) j["metrics"] = metrics;
  return j;
}

Record Record::from_json(const json& j, const std::string& where) {
  const auto need = [&](const char* key) -> const json& {
    if (!j.contains(key)) throw InputError(where + ": field '" + key + "' is required");
    return j.at(key);
  };
  const auto text = [&](const char* key) {
    const json& v = need(key);
    if (!v.is_string()) throw InputError(where + ": field '" + key + "' must be a string");
    return v.get<std::string>();
  };
  Record r;
  r.op = text("op");
  r.params = need("params");
  if (!r.params.is_object()) throw InputError(where + ": field 'params' must be an object");
  // Every number a kernel or a message is described by is a size, a count or a stride: one that
  // is negative or past int64 would be fitted as if it were real.
  for (auto it = r.params.begin(); it != r.params.end(); ++it) {
    if (!it->is_number()) continue;
    const std::string field = where + ": field 'params." + it.key() + "'";
    if (it->is_number_integer()) json_integer(*it, field);
    if (!(it->get<double>() >= 0)) throw InputError(field + " must not be negative, is " + it->dump());
  }
  r.dtype = text("dtype");
  r.algorithm = text("algorithm");
  r.layout = need("layout");
  if (!r.layout.is_object()) throw InputError(where + ": field 'layout' must be an object");
  r.library = text("library");
  r.library_version = text("library_version");
  r.host = text("host");
  r.date = text("date");
  r.status = text("status");
  if (r.status != "ok" && r.status != "skipped" && r.status != "failed")
    throw InputError(where + ": field 'status' must be ok, skipped or failed");
  if (j.contains("reason")) {
    if (!j["reason"].is_string()) throw InputError(where + ": field 'reason' must be a string");
    r.reason = j["reason"].get<std::string>();
  }
  if (j.contains("verified")) {
    if (!j["verified"].is_boolean()) throw InputError(where + ": field 'verified' must be true or false");
    r.verified = j["verified"].get<bool>();
  }
  if (j.contains("metrics")) {
    r.metrics = j["metrics"];
    if (!r.metrics.is_object()) throw InputError(where + ": field 'metrics' must be an object");
  }
  if (r.status == "ok") {
    const json& s = need("seconds");
    Timing t;
    const std::int64_t repetitions = json_integer(need("repetitions"), where + ": field 'repetitions'");
    if (repetitions <= 0 || repetitions > std::numeric_limits<int>::max())
      throw InputError(where + ": field 'repetitions' must be in [1, " + std::to_string(std::numeric_limits<int>::max()) + "], is " + std::to_string(repetitions));
    t.repetitions = static_cast<int>(repetitions);
    for (const char* k : {"median", "min", "max", "stddev"})
      if (!s.contains(k) || !s[k].is_number()) throw InputError(where + ": field 'seconds." + std::string(k) + "' must be a number");
    t.median = s["median"];
    t.min = s["min"];
    t.max = s["max"];
    t.stddev = s["stddev"];
    if (!(t.median > 0) || t.min > t.median || t.median > t.max || t.repetitions <= 0)
      throw InputError(where + ": inconsistent timing (need 0 < min <= median <= max, repetitions > 0)");
    r.timing = t;
  }
  return r;
}

std::string hostname() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "unknown";
  return host;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

json run_context(const json& libraries) {
  return {{"type", "context"},
          {"schema", kMeasurementSchema},
          {"host", hostname()},
          {"date", utc_now()},
          {"tool", "dnnperf 0.1.0"},
#ifdef NDEBUG
          {"build", "release"},
#else
          {"build", "debug"},
#endif
          {"libraries", libraries},
          {"cpu", this_cpu()}};
}

RecordStream::RecordStream(const std::string& path)
    : owned_(std::make_unique<std::ifstream>(open_input_file(path, "measurement file"))), in_(owned_.get()), source_(path) {}

RecordStream::RecordStream(std::istream& in, std::string source) : in_(&in), source_(std::move(source)) {}

const Record* RecordStream::next() {
  while (std::getline(*in_, line_)) {
    ++line_number_;
    if (line_.empty()) continue;
    const std::string where = source_ + ":" + std::to_string(line_number_);
    json j;
    try {
      j = parse_json(line_, where);
    } catch (const InputError&) {
      if (in_->peek() == EOF) return nullptr;  // a last line cut short by an interrupted run
      throw;
    }
    if (!j.is_object()) throw InputError(where + ": a line must be a JSON object");
    const auto type_field = j.find("type");
    const std::string type = type_field != j.end() && type_field->is_string() ? type_field->get<std::string>() : "";
    if (type == "context") {
      const auto schema = j.find("schema");
      if (schema == j.end() || *schema != kMeasurementSchema)
        throw InputError(where + ": schema must be \"" + std::string(kMeasurementSchema) + "\"");
      context_ = std::make_shared<const json>(std::move(j));
    } else if (type == "record") {
      if (!context_) throw InputError(where + ": a record before any context line");
      record_ = Record::from_json(j, where);
      record_.context = context_;
      ++index_;
      return &record_;
    } else {
      throw InputError(where + ": field 'type' must be \"context\" or \"record\"");
    }
  }
  if (in_->bad()) throw InputError(source_ + ": cannot read the measurement file");
  return nullptr;
}

std::vector<Record> read_records(const std::string& path) {
  std::ifstream in = open_input_file(path, "measurement file");
  return read_records(in, path);
}

std::vector<Record> read_records(std::istream& in, const std::string& source) {
  std::vector<Record> records;
  RecordStream stream(in, source);
  while (const Record* r = stream.next()) records.push_back(*r);
  return records;
}

}  // namespace dnnperf::bench
