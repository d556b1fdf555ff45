#include <cstdio>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include <limits>

#include "records/kernel_record.h"
#include "records/record_writer.h"
#include "core/common/error.h"

using namespace dnnperf;
using namespace dnnperf::bench;

namespace {

Record sample_record(std::int64_t bytes) {
  Record r;
  r.op = "allreduce";
  r.params = {{"bytes", bytes}};
  r.dtype = "f32";
  r.algorithm = "dnnperf:ring";
  r.layout = {{"ranks", 4}, {"nodes", 1}, {"ranks_per_node", 4}};
  r.library = "MPI";
  r.library_version = "Open MPI v4.1.4";
  r.host = "test";
  r.date = utc_now();
  r.timing = summarize({3e-6, 1e-6, 2e-6});
  r.verified = true;
  return r;
}

std::string temp_path(const std::string& name) {
  const std::string p = (std::filesystem::temp_directory_path() / ("dnnperf_records_" + name + ".jsonl")).string();
  std::filesystem::remove(p);
  return p;
}

}  // namespace

TEST_CASE("Timing statistics are robust summaries of the samples", "[records]") {
  const Timing t = summarize({5, 1, 3, 2, 4});
  CHECK(t.repetitions == 5);
  CHECK(t.median == 3);
  CHECK(t.min == 1);
  CHECK(t.max == 5);
  CHECK(t.stddev == Approx(std::sqrt(2.5)));
  CHECK(summarize({1, 2}).median == 1.5);
}

TEST_CASE("Records round-trip through JSON and keep their identity", "[records]") {
  const Record r = sample_record(1024);
  const Record back = Record::from_json(r.to_json(), "test");
  CHECK(back.key() == r.key());
  CHECK(back.timing->median == 2e-6);
  CHECK(*back.verified);
  CHECK(sample_record(2048).key() != r.key());
  nlohmann::json broken = r.to_json();
  broken["seconds"]["min"] = 1.0;  // min above the median
  CHECK_THROWS_WITH(Record::from_json(broken, "f.jsonl:3"), Catch::Contains("f.jsonl:3: inconsistent timing"));
  broken = r.to_json();
  broken.erase("op");
  CHECK_THROWS_WITH(Record::from_json(broken, "f.jsonl:3"), Catch::Contains("field 'op' is required"));
}

TEST_CASE("The writer never overwrites, resumes where a run stopped and drops a torn last line", "[records]") {
  const std::string path = temp_path("resume");
  {
    RecordWriter w(path, false, run_context({}));
    w.write(sample_record(4));
    w.write(sample_record(8));
  }
  CHECK_THROWS_WITH(RecordWriter(path, false, run_context({})), Catch::Contains("exists already; pass --resume"));
  // A run killed in the middle of a line.
  { std::ofstream(path, std::ios::app) << R"({"type":"record","op":"allre)"; }
  {
    RecordWriter w(path, true, run_context({}));
    CHECK(w.done_count() == 2);
    CHECK(w.done(sample_record(8).key()));
    CHECK_FALSE(w.done(sample_record(16).key()));
    w.write(sample_record(16));
  }
  const auto records = read_records(path);
  REQUIRE(records.size() == 3);
  CHECK(records[2].params["bytes"] == 16);
  std::filesystem::remove(path);
}

TEST_CASE("Malformed measurement files are reported with file and line", "[records][errors]") {
  const std::string path = temp_path("bad");
  { std::ofstream(path) << run_context({}).dump() << "\n" << "{not json}\n" << sample_record(4).to_json().dump() << "\n"; }
  CHECK_THROWS_WITH(read_records(path), Catch::Contains(path + ":2: not valid JSON"));
  { std::ofstream(path) << sample_record(4).to_json().dump() << "\n"; }
  CHECK_THROWS_WITH(read_records(path), Catch::Contains(":1: a record before any context line"));
  CHECK_THROWS_WITH(read_records("/nonexistent/m.jsonl"), Catch::Contains("cannot open"));
  // Issue 54: sizes are never negative, counts fit their type.
  const std::string context = run_context({}).dump() + "\n";
  nlohmann::json negative = sample_record(4).to_json();
  negative["params"]["bytes"] = -4;
  { std::ofstream(path) << context << negative.dump() << "\n"; }
  CHECK_THROWS_WITH(read_records(path), Catch::Contains(":2: field 'params.bytes' must not be negative, is -4"));
  nlohmann::json many = sample_record(4).to_json();
  many["repetitions"] = 4294967296;
  { std::ofstream(path) << context << many.dump() << "\n"; }
  CHECK_THROWS_WITH(read_records(path), Catch::Contains(":2: field 'repetitions' must be in [1, 2147483647], is 4294967296"));
  { std::ofstream(path) << context << R"({"type":"record","type":"record"})" << "\n" << sample_record(4).to_json().dump() << "\n"; }
  CHECK_THROWS_WITH(read_records(path), Catch::Contains(":2: key 'type' appears twice in one object"));
  std::filesystem::remove(path);
}

TEST_CASE("A kernel's dimensions must be integers in range; a float is refused, not cast", "[records][errors]") {
  const auto gemm = [](const nlohmann::json& m) {
    return nlohmann::json{{"m", m}, {"n", 64}, {"k", 64}, {"batch", 1}, {"trans_a", false}, {"trans_b", false}};
  };
  CHECK(matrix_kernel_of("gemm", gemm(64), DType::f32));
  // A fuzzed profile's measured kernel: converting 3.8e21 to int64 was undefined behaviour.
  CHECK_THROWS_WITH(matrix_kernel_of("gemm", gemm(3.84922e21), DType::f32), Catch::Contains("params field 'm' must be an integer, is 3.84922e+21"));
  CHECK_THROWS_WITH(matrix_kernel_of("gemm", gemm(64.0), DType::f32), Catch::Contains("must be an integer"));
  CHECK_THROWS_WITH(matrix_kernel_of("gemm", gemm(std::numeric_limits<std::uint64_t>::max()), DType::f32), Catch::Contains("at most 2^48"));
  CHECK_THROWS_WITH(matrix_kernel_of("gemm", gemm(0), DType::f32), Catch::Contains("must be positive"));
}
