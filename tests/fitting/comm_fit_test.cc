// Fitting on synthetic measurements from known models: the fit must recover what generated them,
// report honest held-out errors, and refuse bad data.
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "fitting/comm/comm_fit.h"
#include "records/record_writer.h"
#include "core/common/error.h"

using namespace dnnperf;
using namespace dnnperf::fitting;

namespace {

std::vector<CommSample> synthetic(const FittedCommModel& truth, double noise, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0.0, noise);
  std::vector<CommSample> s;
  for (int p : {2, 3, 4, 6, 8})
    for (double b = 4; b <= 16e6; b *= 2) s.push_back({truth.algorithm, b, p, comm_seconds(truth, b, p) * std::exp(n(rng))});
  return s;
}

FittedCommModel hockney_truth() {
  FittedCommModel m;
  m.kind = CommModelKind::hockney;
  m.algorithm = "ring";
  m.params = {3e-6, 1.0 / 8e9, 1.0 / 20e9};
  return m;
}

}  // namespace

TEST_CASE("A Hockney fit recovers the parameters that generated the data", "[fitting]") {
  const FittedCommModel truth = hockney_truth();
  const FitOutcome f = fit_comm_model(CommModelKind::hockney, "ring", synthetic(truth, 0.02, 1));
  REQUIRE(f.converged);
  CHECK(f.model.params[0] == Approx(truth.params[0]).epsilon(0.05));
  // A ring moves 2(p-1)/p n bytes and reduces (p-1)/p n: only 2 beta + gamma is identifiable.
  CHECK(2 * f.model.params[1] + f.model.params[2] == Approx(2 * truth.params[1] + truth.params[2]).epsilon(0.03));
  CHECK(f.model.residual_sigma == Approx(0.02).epsilon(0.3));
  CHECK(f.model.covariance.size() == 9);
}

TEST_CASE("Held-out errors track the noise, and 95% intervals cover about 95%", "[fitting]") {
  const FittedCommModel truth = hockney_truth();
  const auto data = synthetic(truth, 0.03, 2);
  const CrossValidation cv = cross_validate(CommModelKind::hockney, "ring", data);
  CHECK(cv.held_out_sizes.count == static_cast<int>(data.size()));
  CHECK(cv.held_out_sizes.mape < 4.0);   // noise of 3% in log space: about 2.4% mean error
  CHECK(cv.held_out_sizes.coverage > 0.85);
  CHECK(cv.held_out_ranks.count == static_cast<int>(data.size()));
  CHECK(cv.held_out_ranks.mape < 5.0);
  // The held-out counts' log spread, which a count without a model of its own adds to its interval.
  CHECK(cv.held_out_ranks_sigma > 0.01);
  CHECK(cv.held_out_ranks_sigma < 0.08);
}

TEST_CASE("dnnperf's model finds a protocol switch the classic models cannot express", "[fitting]") {
  FittedCommModel truth;
  truth.kind = CommModelKind::dnnperf;
  truth.algorithm = "recursive_doubling";
  truth.params = {1e-6, 1.0 / 10e9, 8e-6, 1.0 / 6e9, 0.0, 1.0 / 30e9, 0.0, 0.0, 0.0, 0.0, 0.0};
  truth.eager_limit = 65536;
  truth.cache_bytes = truth.memory_bytes = std::numeric_limits<double>::infinity();
  truth.oversubscribed_from = 8;
  const auto data = synthetic(truth, 0.01, 3);
  // Fitted to every size, it finds the switch: between the last eager and the first rendezvous size.
  const FitOutcome fit = fit_comm_model(CommModelKind::dnnperf, "recursive_doubling", data);
  REQUIRE(fit.converged);
  CHECK(fit.model.eager_limit > 32768);
  CHECK(fit.model.eager_limit <= 65536);
  CHECK(fit.model.residual_sigma < 0.02);
  CHECK(fit_comm_model(CommModelKind::hockney, "recursive_doubling", data).model.residual_sigma > 0.1);
  // Held out, a size next to the switch may land on the wrong side of it (the data cannot place
  // a switch within the gap); the rest is predicted to the noise.
  const CrossValidation ours = cross_validate(CommModelKind::dnnperf, "recursive_doubling", data);
  const CrossValidation classic = cross_validate(CommModelKind::hockney, "recursive_doubling", data);
  CHECK(ours.held_out_sizes.median < 1.5);
  CHECK(ours.held_out_sizes.mape < classic.held_out_sizes.mape);
}

TEST_CASE("The library's own eager limit is used as is, and predicts held-out sizes near it", "[fitting]") {
  FittedCommModel truth;
  truth.kind = CommModelKind::dnnperf;
  truth.algorithm = "recursive_doubling";
  truth.params = {1e-6, 1.0 / 10e9, 8e-6, 1.0 / 6e9, 0.0, 1.0 / 30e9, 0.0, 0.0, 0.0, 0.0, 0.0};
  truth.eager_limit = 3000;  // between measured sizes: 2048 goes eagerly, 4096 does not
  truth.cache_bytes = truth.memory_bytes = std::numeric_limits<double>::infinity();
  truth.oversubscribed_from = 8;
  std::vector<CommSample> searched = synthetic(truth, 0.01, 4), told = searched;
  for (CommSample& s : told) s.eager_limit = 3000;
  const FitOutcome f = fit_comm_model(CommModelKind::dnnperf, "recursive_doubling", told);
  REQUIRE(f.converged);
  CHECK(f.model.eager_limit == 3000);
  // Searching, the fit without 2048 can only put the switch halfway between 1024 and 4096.
  const CrossValidation with_limit = cross_validate(CommModelKind::dnnperf, "recursive_doubling", told);
  const CrossValidation without = cross_validate(CommModelKind::dnnperf, "recursive_doubling", searched);
  CHECK(with_limit.held_out_sizes.mape < 2.0);
  CHECK(with_limit.held_out_sizes.mape < without.held_out_sizes.mape);
  REQUIRE(with_limit.points.size() == 2 * told.size());  // held out by size, then by rank count
  for (const HeldOutPoint& h : with_limit.points)
    if (h.sample.bytes == 2048 && !h.by_ranks) CHECK(std::abs(h.prediction.seconds / h.sample.seconds - 1) < 0.05);
}

TEST_CASE("Ranks time-sharing cores: a per-call skew beside the per-step wait is recovered", "[fitting]") {
  // Two CPUs, ranks 2-8: each call waits 20 us per extra rank for the last to arrive, each step
  // 1 us per extra rank. With only the per-step term a fit must spread the per-call cost over
  // the steps, and the steps' count grows with the ranks differently than the call's cost.
  FittedCommModel truth;
  truth.kind = CommModelKind::dnnperf;
  truth.algorithm = "ring";
  truth.params = {1e-6, 1.0 / 10e9, 8e-6, 1.0 / 6e9, 0.0, 1.0 / 30e9, 1e-6, 0.3, 0.0, 20e-6, 0.0};
  truth.eager_limit = 4096;
  truth.cache_bytes = truth.memory_bytes = std::numeric_limits<double>::infinity();
  truth.oversubscribed_from = 2;
  std::vector<CommSample> data = synthetic(truth, 0.01, 5);
  for (CommSample& x : data) x.eager_limit = 4096, x.nodes = 1, x.cpus_per_node = 2;
  const FitOutcome f = fit_comm_model(CommModelKind::dnnperf, "ring", data);
  REQUIRE(f.converged);
  CHECK(f.model.oversubscribed_from == 2);
  CHECK(f.model.params[9] == Approx(20e-6).epsilon(0.15));
  CHECK(f.model.residual_sigma < 0.02);
  // Held out, a rank count is predicted from the others' skew.
  const CrossValidation cv = cross_validate(CommModelKind::dnnperf, "ring", data);
  CHECK(cv.held_out_ranks.mape < 3.0);
}

namespace {

/// Measurements on 2-8 ranks (1% noise) of dnnperf's model of `algorithm` on a node of two CPUs
/// whose ranks slow each other's copies, as that node's records give them.
std::vector<CommSample> time_shared(const std::string& algorithm, bool busiest_core, bool active_ranks, std::uint64_t seed) {
  FittedCommModel truth;
  truth.kind = CommModelKind::dnnperf;
  truth.algorithm = algorithm;
  truth.params = {1e-6, 1.0 / 10e9, 8e-6, 1.0 / 6e9, 0.0, 1.0 / 30e9, 1e-6, 0.8, 0.0, 0.0, 0.0};
  truth.eager_limit = 4096;
  truth.cache_bytes = truth.memory_bytes = std::numeric_limits<double>::infinity();
  truth.oversubscribed_from = 2;
  truth.busiest_core_load = busiest_core;
  truth.active_ranks_load = active_ranks;
  std::vector<CommSample> data = synthetic(truth, 0.01, seed);
  for (CommSample& x : data) x.eager_limit = 4096, x.nodes = 1, x.cpus_per_node = 2;
  return data;
}

}  // namespace

TEST_CASE("Ranks time-sharing cores: the fit tells whether copies slow with all extra ranks or the busiest core's", "[fitting]") {
  // A ring's every step waits for all ranks: its copies slow with the most ranks any core carries
  // (3 and 4 ranks alike), not with the ranks beyond the cores.
  for (const bool busiest : {true, false}) {
    const FitOutcome f = fit_comm_model(CommModelKind::dnnperf, "ring", time_shared("ring", busiest, false, 7));
    REQUIRE(f.converged);
    CHECK(f.model.busiest_core_load == busiest);
    CHECK(f.model.params[7] == Approx(0.8).epsilon(0.1));
    CHECK(f.model.residual_sigma < 0.02);
  }
}

TEST_CASE("Ranks time-sharing cores: the fit tells whether a step's idle ranks compete for them", "[fitting]") {
  // Rabenseifner on 3 ranks folds one rank into a partner and runs on 2: where waiting ranks yield
  // their cores, its copies run as on 2 ranks; on 4 or 8 every rank works in every step.
  for (const bool active : {true, false}) {
    const FitOutcome f = fit_comm_model(CommModelKind::dnnperf, "rabenseifner", time_shared("rabenseifner", false, active, 8));
    REQUIRE(f.converged);
    CHECK(f.model.active_ranks_load == active);
    CHECK(f.model.residual_sigma < 0.02);
  }
}

TEST_CASE("Without oversubscribed samples the oversubscription terms are zero, not guesses", "[fitting]") {
  std::vector<CommSample> two;
  for (double b = 4; b <= 16e6; b *= 2) two.push_back({"ring", b, 2, 1e-6 + b / 5e9, 4096, 1, 2});
  const FitOutcome f = fit_comm_model(CommModelKind::dnnperf, "ring", two);
  REQUIRE(f.converged);
  CHECK(f.model.params[6] == 0.0);
  CHECK(f.model.params[7] == 0.0);
  CHECK(f.model.params[9] == 0.0);
  // 4 ranks on 2 CPUs are then priced by the steps alone: no invented scheduling cost.
  FittedCommModel steps_only = f.model;
  steps_only.oversubscribed_from = 1e9;
  CHECK(comm_seconds(f.model, 1e6, 4) == Approx(comm_seconds(steps_only, 1e6, 4)));
}

TEST_CASE("dnnperf's model finds the fast path small messages take", "[fitting]") {
  // Up to 256 bytes a step costs 1 us, from 512 bytes 0.3 us more (Open MPI's shared-memory fast
  // boxes, then pooled fragments): a latency step no straight line through the eager sizes has.
  FittedCommModel truth;
  truth.kind = CommModelKind::dnnperf;
  truth.algorithm = "recursive_doubling";
  truth.params = {1e-6, 1.0 / 10e9, 8e-6, 1.0 / 6e9, 0.0, 1.0 / 30e9, 0.0, 0.0, 0.0, 0.0, 0.3e-6};
  truth.eager_limit = 65536;
  truth.fast_limit = 400;
  truth.cache_bytes = truth.memory_bytes = std::numeric_limits<double>::infinity();
  truth.oversubscribed_from = 8;
  std::vector<CommSample> data;
  for (CommSample& x : synthetic(truth, 0.01, 9))
    if (x.ranks == 2) data.push_back(x), data.back().eager_limit = 65536;
  const FitOutcome f = fit_comm_model(CommModelKind::dnnperf, "recursive_doubling", data);
  REQUIRE(f.converged);
  CHECK(f.model.fast_limit > 256);
  CHECK(f.model.fast_limit <= 512);
  CHECK(f.model.params[10] == Approx(0.3e-6).epsilon(0.2));
  CHECK(f.model.residual_sigma < 0.02);
}

TEST_CASE("Which algorithm a library runs where is read from its times beside dnnperf's own", "[fitting]") {
  // The library runs recursive doubling below 8 KB and a ring from there; a binomial tree times
  // within 2% of recursive doubling everywhere, so noise alone would swap them back and forth.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0.0, 0.01);
  const auto rd = [](double b) { return 1e-6 + b / 2e9; };
  const auto ring = [](double b) { return 3e-6 + b / 6e9; };
  std::vector<CommSample> library, own;
  for (double b = 4; b <= 4e6; b *= 2) {
    library.push_back({"default", b, 2, (b < 8192 ? rd(b) : ring(b)) * std::exp(noise(rng))});
    own.push_back({"recursive_doubling", b, 2, rd(b) * std::exp(noise(rng))});
    own.push_back({"binomial_tree", b, 2, rd(b) * (1 + (static_cast<int>(std::log2(b)) % 2 ? 0.02 : -0.02))});
    own.push_back({"ring", b, 2, ring(b) * std::exp(noise(rng))});
    own.push_back({"mpi:ring", b, 2, 1.0});  // a forced library algorithm is no step model: ignored
  }
  const std::vector<LibraryChoice> choices = infer_library_choices(library, own);
  REQUIRE(choices.size() == 2);
  CHECK(choices[0].ranks == 2);
  CHECK(choices[0].from_bytes == 0);
  CHECK((choices[0].algorithm == "recursive_doubling" || choices[0].algorithm == "binomial_tree"));
  CHECK(choices[1].algorithm == "ring");
  CHECK(choices[1].from_bytes == Approx(std::sqrt(4096.0 * 8192.0)));
  CHECK(infer_library_choices(library, {}).empty());
}

TEST_CASE("Measured rank counts get models of their own; the joint model prices the others", "[fitting]") {
  // Time-shared ranks do not follow one formula: here every call on 3 ranks waits 20 us more than
  // the joint model has it (a scheduling delay 2 and 4 ranks do not see), and nothing else differs.
  FittedCommModel truth;
  truth.kind = CommModelKind::dnnperf;
  truth.algorithm = "ring";
  truth.params = {1e-6, 1.0 / 10e9, 8e-6, 1.0 / 6e9, 0.0, 1.0 / 30e9, 1e-6, 0.3, 0.0, 0.0, 0.0};
  truth.eager_limit = 4096;
  truth.cache_bytes = truth.memory_bytes = std::numeric_limits<double>::infinity();
  truth.oversubscribed_from = 2;
  std::vector<CommSample> data;
  for (CommSample& x : synthetic(truth, 0.01, 12)) {
    if (x.ranks > 4) continue;
    x.eager_limit = 4096, x.nodes = 1, x.cpus_per_node = 2;
    if (x.ranks == 3) x.seconds += 20e-6;
    data.push_back(x);
  }
  const FitOutcome f = fit_comm_model(CommModelKind::dnnperf, "ring", data);
  REQUIRE(f.converged);
  // (A count whose own fit does not converge is left to the joint model.)
  REQUIRE(&f.model.for_ranks(3) != &f.model);
  CHECK(f.model.for_ranks(3).fitted_ranks == 3);
  CHECK(&f.model.for_ranks(8) == &f.model);
  CHECK(f.model.for_ranks(3).residual_sigma < 0.03);
  CHECK(f.model.residual_sigma > 0.05);  // the joint model cannot follow 3 ranks
  // Held out by size, each count is predicted by its own model: to the noise.
  const CrossValidation cv = cross_validate(CommModelKind::dnnperf, "ring", data);
  CHECK(cv.held_out_sizes.mape < 3.0);
  // Held out whole, 3 ranks fall to the joint model, which knows nothing of their slowdown.
  double worst = 0;
  for (const HeldOutPoint& h : cv.points)
    if (h.by_ranks && h.sample.ranks == 3) worst = std::max(worst, std::abs(std::log(h.prediction.seconds / h.sample.seconds)));
  CHECK(worst > std::log(1.3));
  CHECK(cv.held_out_ranks_sigma > 0.1);
}

TEST_CASE("Too few points are reported, not fitted", "[fitting][errors]") {
  std::vector<CommSample> few = {{"ring", 4, 2, 1e-6}, {"ring", 8, 2, 1.1e-6}, {"ring", 16, 2, 1.2e-6}};
  const FitOutcome f = fit_comm_model(CommModelKind::dnnperf, "ring", few);
  CHECK_FALSE(f.converged);
  CHECK_THAT(f.message, Catch::Contains("3 points for 11 parameters"));
}

TEST_CASE("Bad records are excluded with their reason, and systems are not mixed", "[fitting][errors]") {
  const std::string path = (std::filesystem::temp_directory_path() / "dnnperf_fit_bad.jsonl").string();
  std::filesystem::remove(path);
  {
    bench::RecordWriter w(path, false, bench::run_context({}));
    bench::Record r;
    r.op = "allreduce";
    r.dtype = "f32";
    r.algorithm = "dnnperf:ring";
    r.layout = {{"ranks", 2}, {"nodes", 1}, {"ranks_per_node", 2}};
    r.library = "MPI";
    r.library_version = "x";
    r.host = "a";
    r.date = bench::utc_now();
    r.params = {{"bytes", 1024}};
    r.timing = bench::summarize({1e-5});
    w.write(r);
    w.write(r);  // a duplicate
    r.params = {{"bytes", 4096}};
    r.layout["eager_limit"] = -1;  // not a size
    w.write(r);
    r.layout.erase("eager_limit");
    r.params = {{"bytes", 2048}};
    r.status = "skipped";
    r.reason = "does not fit";
    r.timing.reset();
    w.write(r);
  }
  const CommData d = load_comm_data({path}, "allreduce");
  CHECK(d.samples.size() == 1);
  REQUIRE(d.excluded.size() == 3);
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("measured again in the same file"));
  CHECK_THAT(d.excluded[1].reason, Catch::Contains("layout.eager_limit is not a positive number"));
  CHECK_THAT(d.excluded[2].reason, Catch::Contains("skipped: does not fit"));
  // The same measurement from another host: one fit must not mix systems.
  const std::string other = (std::filesystem::temp_directory_path() / "dnnperf_fit_other.jsonl").string();
  std::filesystem::remove(other);
  {
    bench::RecordWriter w(other, false, bench::run_context({}));
    bench::Record r = bench::read_records(path)[0];
    r.host = "b";
    r.params = {{"bytes", 4096}};
    w.write(r);
  }
  CHECK_THROWS_WITH(load_comm_data({path, other}, "allreduce"), Catch::Contains("several systems (a, b)"));
  std::filesystem::remove(path);
  std::filesystem::remove(other);
}

TEST_CASE("The same points in several files are repeated runs: their median is fitted and their spread reported", "[fitting]") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string first = (dir / "dnnperf_fit_run1.jsonl").string(), second = (dir / "dnnperf_fit_run2.jsonl").string(),
                    third = (dir / "dnnperf_fit_run3.jsonl").string();
  const auto write = [](const std::string& path, const std::vector<std::pair<double, double>>& points, int cpus) {
    std::filesystem::remove(path);
    bench::RecordWriter w(path, false, bench::run_context({}));
    bench::Record r;
    r.op = "allreduce", r.dtype = "f32", r.algorithm = "dnnperf:ring", r.library = "MPI", r.library_version = "x", r.host = "a";
    r.layout = {{"ranks", 2}, {"nodes", 1}, {"ranks_per_node", 2}, {"cpus_per_node", cpus}};
    r.date = bench::utc_now();
    for (const auto& [bytes, seconds] : points) {
      r.params = {{"bytes", bytes}};
      r.timing = bench::summarize({seconds});
      w.write(r);
    }
  };
  write(first, {{1024, 1.0e-5}, {2048, 2.0e-5}}, 2);
  write(second, {{1024, 1.2e-5}, {4096, 4.0e-5}, {4096, 4.1e-5}}, 2);  // 4096 twice in one run: a duplicate
  write(third, {{1024, 1.1e-5}}, 2);
  const std::string fourth = (std::filesystem::temp_directory_path() / "dnnperf_fit_run4.jsonl").string();
  write(fourth, {{2048, 9.0e-5}}, 4);  // another layout: not a run of the same point
  const CommData d = load_comm_data({first, second, third, fourth}, "allreduce");
  REQUIRE(d.samples.size() == 3);
  CHECK(d.samples[0].bytes == 1024);
  CHECK(d.samples[0].runs == 3);
  CHECK(d.samples[0].seconds == Approx(1.1e-5));                  // the median of 1.0, 1.2 and 1.1
  CHECK(d.samples[0].run_spread == Approx(0.2e-5 / 1.1e-5));      // (slowest - fastest) / mean
  CHECK(d.samples[1].runs == 1);
  CHECK(d.samples[1].seconds == Approx(2.0e-5));
  CHECK(d.samples[1].run_spread == 0.0);
  CHECK(d.samples[2].seconds == Approx(4.0e-5));
  REQUIRE(d.excluded.size() == 2);
  CHECK_THAT(d.excluded[0].where, Catch::Contains("a repeat of " + second + " record 2"));
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("measured again in the same file"));
  CHECK_THAT(d.excluded[1].reason, Catch::Contains("a run of " + first + " record 2 on another layout"));
  for (const auto& f : {first, second, third, fourth}) std::filesystem::remove(f);
}
