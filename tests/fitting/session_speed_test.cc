#include "fitting/compute/session_speed.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace dnnperf::fitting;

namespace {

/// `count` kernels of `cls` named prefix0.., each at `base` x (1 + 0.01 i) seconds x `speed`, with
/// a few percent of noise: one session's timings of them.
void time_kernels(std::vector<SessionTime>& out, const std::string& session, const std::string& prefix, const std::string& cls, int count,
                  double speed, std::mt19937& rng) {
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  for (int i = 0; i < count; ++i) out.push_back({session, prefix + std::to_string(i), cls, 1e-3 * (1 + 0.01 * i) * speed * std::exp(noise(rng))});
}

const SessionSpeed& of(const std::vector<SessionSpeed>& speeds, const std::string& session) {
  for (const SessionSpeed& s : speeds)
    if (s.session == session) return s;
  FAIL("no speed for " << session);
  return speeds.front();
}

}  // namespace

TEST_CASE("Sessions that timed the same kernels are put on the largest one's speed, per kernel class", "[fitting][sessions]") {
  std::mt19937 rng(3);
  std::vector<SessionTime> t;
  time_kernels(t, "day1", "gemm", "gemm", 40, 1.0, rng);
  time_kernels(t, "day1", "conv", "conv_forward", 40, 1.0, rng);
  // The next day, contended: GEMMs 1.5x, convolutions 2x slower; and shapes of its own.
  time_kernels(t, "day2", "gemm", "gemm", 20, 1.5, rng);
  time_kernels(t, "day2", "conv", "conv_forward", 20, 2.0, rng);
  time_kernels(t, "day2", "own", "conv_backward_data", 5, 2.0, rng);
  time_kernels(t, "day2", "late_conv", "conv_forward", 20, 2.0, rng);
  time_kernels(t, "day2", "late_gemm", "gemm", 3, 1.5, rng);
  // Compared to day2 only: its convolutions 1.1x day2's, its GEMMs too few to compare alone.
  time_kernels(t, "day3", "late_conv", "conv_forward", 12, 2.2, rng);
  time_kernels(t, "day3", "late_gemm", "gemm", 3, 1.65, rng);
  // Shares too few kernels with anyone: its own reference.
  time_kernels(t, "lone", "gemm", "gemm", 5, 3.0, rng);
  time_kernels(t, "lone", "only", "gemm", 40, 3.0, rng);

  const std::vector<SessionSpeed> s = session_speeds(t);
  REQUIRE(s.size() == 4);
  CHECK(s[0].session == "day1");  // in the order first seen
  CHECK(of(s, "day1").reference == "day1");
  CHECK(of(s, "day1").factor("gemm") == 1.0);
  const SessionSpeed& day2 = of(s, "day2");
  CHECK(day2.reference == "day1");
  CHECK(day2.overall.kernels == 40);  // day1's 40 GEMMs and 40 convolutions against day2's first 20 of each
  CHECK(day2.factor("gemm") == Approx(1.5).epsilon(0.04));
  CHECK(day2.factor("conv_forward") == Approx(2.0).epsilon(0.04));
  CHECK(day2.factor("conv_backward_data") == Approx(day2.overall.applied));  // no shared kernel of its own class
  CHECK(day2.overall.measured > 1.5);
  CHECK(day2.overall.measured < 2.0);
  CHECK(day2.per_class.at("gemm").kernels == 20);
  CHECK(day2.per_class.at("gemm").standard_error < 0.02);
  const SessionSpeed& day3 = of(s, "day3");
  CHECK(day3.reference == "day1");  // through day2
  CHECK(day3.compared == "day2");
  CHECK(day3.overall.kernels == 15);
  CHECK(day3.factor("conv_forward") == Approx(2.2).epsilon(0.05));
  CHECK(day3.factor("gemm") == Approx(1.65).epsilon(0.05));  // day2's GEMM factor times day3's overall ratio to day2
  const SessionSpeed& lone = of(s, "lone");
  CHECK(lone.reference == "lone");  // 45 kernels, 5 shared with day1: a group of its own
  CHECK(lone.factor("gemm") == 1.0);
}

TEST_CASE("The largest session of a group is its reference; bad times are ignored", "[fitting][sessions]") {
  std::mt19937 rng(5);
  std::vector<SessionTime> t;
  time_kernels(t, "small", "gemm", "gemm", 10, 2.0, rng);
  time_kernels(t, "large", "gemm", "gemm", 50, 1.0, rng);
  t.push_back({"small", "bad", "gemm", std::nan("")});
  t.push_back({"small", "zero", "gemm", 0.0});
  const std::vector<SessionSpeed> s = session_speeds(t);
  REQUIRE(s.size() == 2);
  CHECK(of(s, "large").reference == "large");
  CHECK(of(s, "small").reference == "large");
  CHECK(of(s, "small").overall.kernels == 10);
  CHECK(of(s, "small").factor("gemm") == Approx(2.0).epsilon(0.04));
  CHECK(session_speeds({}).empty());
}

TEST_CASE("A session whose times differ from the reference's by less than their noise is not scaled", "[fitting][sessions]") {
  std::mt19937 rng(7);
  std::vector<SessionTime> t;
  time_kernels(t, "calm", "gemm", "gemm", 30, 1.0, rng);
  time_kernels(t, "calm", "conv", "conv_forward", 30, 1.0, rng);
  time_kernels(t, "later", "gemm", "gemm", 30, 1.005, rng);  // within the kernels' ±5% noise
  time_kernels(t, "later", "conv", "conv_forward", 30, 1.3, rng);
  const std::vector<SessionSpeed> s = session_speeds(t);
  const SessionSpeed& later = of(s, "later");
  CHECK(later.per_class.at("gemm").measured != 1.0);
  CHECK(std::abs(std::log(later.per_class.at("gemm").measured)) < 2 * later.per_class.at("gemm").standard_error);
  CHECK(later.factor("gemm") == 1.0);
  CHECK(later.factor("conv_forward") == Approx(1.3).epsilon(0.03));
}
