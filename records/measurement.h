#pragma once
// The measurement record: one timed operation at one shape, in the one format every benchmark
// writes and fitting reads (docs/measurement-format.md).
//
// A file is JSON Lines: a context line opens each run ({"type": "context", ...}: host, date, tool
// and library versions, build), then one {"type": "record", ...} line per measurement. Records are
// written and flushed one at a time, so an interrupted run keeps everything measured before.
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnperf::bench {

inline constexpr const char* kMeasurementSchema = "dnnperf.measurements/1";

/// Robust statistics of repeated timings, in seconds.
struct Timing {
  int repetitions = 0;
  double median = 0, min = 0, max = 0, stddev = 0;
};

/// Median, extremes and sample standard deviation; `samples` must not be empty.
Timing summarize(std::vector<double> samples);

struct Record {
  std::string op;              // gemm, conv_forward, memory_copy, launch, p2p, allreduce, ...
  nlohmann::json params = nlohmann::json::object();  // every shape parameter, e.g. {"m": 1024, ...}
  std::string dtype;           // f32, tf32, f16, bf16, ...
  std::string algorithm;       // "", "mpi:default", "mpi:ring", "dnnperf:ring", "cudnn:heuristic:..."
  nlohmann::json layout = nlohmann::json::object();  // {"ranks", "nodes", "ranks_per_node"} or {"device", ...}
  std::string library;         // "OpenMPI", "cuBLAS", ...
  std::string library_version;
  std::string host;
  std::string date;            // ISO 8601, UTC
  std::optional<Timing> timing;
  std::string status = "ok";   // ok, skipped (with reason), failed (with reason)
  std::string reason;
  std::optional<bool> verified;  // the result was checked before timing
  nlohmann::json metrics = nlohmann::json::object();  // derived figures: busbw, flop_rate, ...
  /// The context line of the run the record was read from (read_records sets it; not written by
  /// to_json): how the run's libraries were configured, e.g. PyTorch's TF32 switches.
  std::shared_ptr<const nlohmann::json> context;

  /// Identifies the measurement (op, algorithm, dtype, params, layout): resume skips records
  /// whose key is already in the file.
  std::string key() const;
  nlohmann::json to_json() const;
  /// Throws InputError naming `where` and the field for a malformed record.
  static Record from_json(const nlohmann::json& j, const std::string& where);
};

/// The context block of a run: host, date, tool version, build type and `libraries`.
nlohmann::json run_context(const nlohmann::json& libraries);

std::string hostname();
std::string utc_now();

/// A measurement file read one record at a time, so that a file of millions of records is read
/// in the memory of one:
///
///   bench::RecordStream records(path);
///   while (const bench::Record* r = records.next()) use(*r, records.index());
///
/// next() throws InputError naming the file and line for a malformed line (a truncated last
/// line, as an interrupted writer may leave, ends the file instead).
class RecordStream {
 public:
  explicit RecordStream(const std::string& path);
  /// Reads from `in`, which must outlive the stream; `source` names it in errors.
  RecordStream(std::istream& in, std::string source);

  /// The next record, or nullptr at the end; valid until the next call.
  const Record* next();
  /// The index of the record next() returned last, from 0 (records only, not lines).
  std::size_t index() const { return index_ - 1; }

 private:
  std::unique_ptr<std::istream> owned_;
  std::istream* in_;
  std::string source_;
  std::string line_;
  int line_number_ = 0;
  std::size_t index_ = 0;
  std::shared_ptr<const nlohmann::json> context_;
  Record record_;
};

/// Every record of a measurement file (RecordStream's checks); for files that fit in memory.
std::vector<Record> read_records(const std::string& path);

/// The same from an open stream; `source` names it in errors (a path, "<stdin>").
std::vector<Record> read_records(std::istream& in, const std::string& source);

}  // namespace dnnperf::bench
