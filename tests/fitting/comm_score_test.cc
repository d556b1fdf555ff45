#include "fitting/comm/comm_score.h"
#include "fitting/comm/comm_fit.h"

#include <cmath>
#include <filesystem>

#include <catch2/catch.hpp>

#include "models/comm/fitted_comm_model.h"
#include "profile/fitted_sections.h"
#include "records/record_writer.h"

using namespace dnnperf;
using namespace dnnperf::fitting;

namespace {

/// A Hockney model of MPI's default: alpha + bytes * beta per step.
FittedCommModel hockney(CommMode mode, double alpha) {
  FittedCommModel m;
  m.kind = CommModelKind::hockney;
  m.algorithm = "default";
  m.mode = mode;
  m.params = {alpha, 1e-10, 0.0};
  return m;
}

/// Writes records of MPI's default on 2 ranks, in `mode` (none: no layout.mode), at 1 kB and 1 MB:
/// `seconds` of each size, or where `model` is given, its price.
void write_records(const std::string& path, const char* mode, double seconds, const FittedCommModel* model = nullptr) {
  std::filesystem::remove(path);
  bench::RecordWriter w(path, false, bench::run_context({}));
  for (const int bytes : {1000, 1000000}) {
    bench::Record r;
    r.op = "allreduce";
    r.dtype = "f32";
    r.algorithm = "mpi:default";
    r.layout = {{"ranks", 2}, {"nodes", 1}, {"ranks_per_node", 2}};
    if (mode) r.layout["mode"] = mode;
    r.library = "MPI";
    r.library_version = "x";
    r.host = "a";
    r.date = bench::utc_now();
    r.params = {{"bytes", bytes}};
    r.timing = bench::summarize({model ? comm_seconds(*model, bytes, 2) : seconds});
    w.write(r);
  }
}

}  // namespace

TEST_CASE("Records name the mode their calls were timed in; each mode's points are distinct", "[fitting]") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string isolated = (dir / "dnnperf_mode_isolated.jsonl").string(), stream = (dir / "dnnperf_mode_stream.jsonl").string(),
                    old = (dir / "dnnperf_mode_none.jsonl").string(), bad = (dir / "dnnperf_mode_bad.jsonl").string();
  write_records(isolated, "isolated", 2e-5);
  write_records(stream, "stream", 1e-5);
  write_records(old, nullptr, 3e-5);
  write_records(bad, "burst", 1e-5);
  // Isolated and stream records of the same point are two samples; a record without a mode is
  // an isolated call (a repeated run of the isolated file's points); an unknown mode is excluded.
  const CommData d = load_comm_data({isolated, stream, old, bad}, "allreduce");
  REQUIRE(d.samples.size() == 4);
  int streams = 0;
  for (const CommSample& s : d.samples) {
    streams += s.mode == CommMode::stream;
    if (s.mode == CommMode::isolated) CHECK(s.runs == 2);
  }
  CHECK(streams == 2);
  REQUIRE(d.excluded.size() == 2);
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("layout.mode must be isolated or stream"));
  CHECK(of_algorithm(d.samples, "default", CommMode::stream).size() == 2);
  for (const auto& f : {isolated, stream, old, bad}) std::filesystem::remove(f);
}

TEST_CASE("A profile's models are scored on records of their own mode only", "[fitting]") {
  HardwareProfile profile;
  profile.name = "p";
  profile.communication = {hockney(CommMode::isolated, 2e-5), hockney(CommMode::stream, 1e-5)};
  const std::string path = (std::filesystem::temp_directory_path() / "dnnperf_score_stream.jsonl").string();
  // Streamed calls whose times the stream model gives exactly.
  write_records(path, "stream", 0, &profile.communication[1]);
  CommData data = load_comm_data({path}, "allreduce");
  std::vector<CommScore> scores = score_comm(profile, data, "allreduce");
  REQUIRE(scores.size() == 1);
  CHECK(scores[0].mode == CommMode::stream);
  CHECK(scores[0].ranks == 2);
  CHECK(scores[0].errors.count == 2);
  CHECK(scores[0].errors.mape < 1e-9);
  // Without a stream model the records are excluded, naming what is missing, not priced by the
  // isolated model.
  profile.communication.pop_back();
  data = load_comm_data({path}, "allreduce");
  scores = score_comm(profile, data, "allreduce");
  CHECK(scores.empty());
  REQUIRE(data.excluded.size() == 2);
  CHECK_THAT(data.excluded[0].reason, Catch::Contains("no allreduce model of this algorithm in this mode"));
  std::filesystem::remove(path);
}

TEST_CASE("A model's mode is written and read back; profiles without one hold isolated calls", "[fitting][hardware]") {
  const nlohmann::json section = communication_section({hockney(CommMode::stream, 1e-5), hockney(CommMode::isolated, 2e-5)});
  const std::vector<FittedCommModel> back = read_communication_section(section, "p.json: communication");
  REQUIRE(back.size() == 2);
  CHECK(back[0].mode == CommMode::stream);
  CHECK(back[1].mode == CommMode::isolated);
  nlohmann::json old = section;
  old[0].erase("mode");
  CHECK(read_communication_section(old, "old.json: communication")[0].mode == CommMode::isolated);
  nlohmann::json bad = section;
  bad[0]["mode"] = "burst";
  CHECK_THROWS_WITH(read_communication_section(bad, "bad.json: communication"), Catch::Contains("bad.json: communication[0]") && Catch::Contains("mode"));
  HardwareProfile p;
  p.communication = back;
  CHECK(comm_mode_for(p, "allreduce", CommMode::stream) == CommMode::stream);
  CHECK(find_comm_model(p, "allreduce", "default", CommMode::isolated)->params[0] == 2e-5);
  p.communication.erase(p.communication.begin());
  CHECK(comm_mode_for(p, "allreduce", CommMode::stream) == CommMode::isolated);
  CHECK_FALSE(comm_mode_for(p, "allgather", CommMode::stream));
}

TEST_CASE("Size corrections price a measured size as measured, interpolate between sizes and keep to their rank count", "[fitting][hardware]") {
  FittedCommModel m = hockney(CommMode::isolated, 1e-5);
  const double form_1k = comm_seconds(m, 1000, 2), form_2k = comm_seconds(m, 2000, 2), form_8k = comm_seconds(m, 8000, 2);
  m.size_corrections = {{2, 1000, std::log(2.0)}, {2, 4000, 0.0}};
  CHECK(comm_seconds(m, 1000, 2) == Approx(2 * form_1k));
  CHECK(comm_seconds(m, 2000, 2) == Approx(std::sqrt(2.0) * form_2k));  // halfway in log size
  CHECK(comm_seconds(m, 500, 2) == Approx(2 * comm_seconds(hockney(CommMode::isolated, 1e-5), 500, 2)));  // the nearest end's
  CHECK(comm_seconds(m, 8000, 2) == Approx(form_8k));
  CHECK(comm_seconds(m, 1000, 3) == Approx(comm_seconds(hockney(CommMode::isolated, 1e-5), 1000, 3)));  // another count: none
  const std::vector<FittedCommModel> back = read_communication_section(communication_section({m}), "p.json: communication");
  CHECK(comm_seconds(back.at(0), 2000, 2) == Approx(comm_seconds(m, 2000, 2)));
  nlohmann::json bad = communication_section({m});
  bad[0]["size_corrections"] = {{2, 4000, 0.0}, {2, 1000, 0.1}};
  CHECK_THROWS_WITH(read_communication_section(bad, "bad.json: communication"), Catch::Contains("size_corrections[1]") && Catch::Contains("sorted"));
  bad[0]["size_corrections"] = {{2, 4000}};
  CHECK_THROWS_WITH(read_communication_section(bad, "bad.json: communication"), Catch::Contains("[ranks, bytes, log_ratio]"));
}

TEST_CASE("A fit with size corrections keeps what its form missed at each measured size", "[fitting]") {
  // A Hockney-shaped library with one band 60% slower, which no smooth form places.
  std::vector<CommSample> samples;
  for (double b = 8; b <= 1 << 22; b *= 2) samples.push_back({"default", b, 2, (b >= 8192 && b <= 16384 ? 1.6 : 1.0) * (2e-6 + b * 1e-10)});
  const FitOutcome plain = fit_comm_model(CommModelKind::hockney, "default", samples);
  const FitOutcome sized = fit_comm_model(CommModelKind::hockney, "default", samples, {}, true);
  REQUIRE(sized.converged);
  CHECK(sized.model.size_corrections.size() == samples.size());
  double worst_plain = 0, worst_sized = 0;
  for (const CommSample& s : samples) {
    worst_plain = std::max(worst_plain, std::abs(comm_seconds(plain.model, s.bytes, 2) / s.seconds - 1));
    worst_sized = std::max(worst_sized, std::abs(comm_seconds(sized.model, s.bytes, 2) / s.seconds - 1));
  }
  CHECK(worst_plain > 0.2);
  CHECK(worst_sized < 1e-9);
}
