// The distance curve's fit on synthetic passes: the prices per far byte and the reach recovered,
// and nothing invented where no pass was far.
#include "fitting/compute/pass_far_fit.h"

#include <random>

#include <catch2/catch.hpp>

using namespace dnnperf;
using namespace dnnperf::fitting;

namespace {

constexpr double kMiB = 1048576, kBuffer = 4 * kMiB, kEviction = 64 * kMiB;

/// A 4 MiB pass read at 29.8 GB/s and written at 14.2 hot, at the default distances, paying
/// `read` and `written` per byte beyond a linear ramp from the eviction to `reach`, with a noise
/// of a few percent on both times.
std::vector<ComputeData::PassDistance> curve(double read, double written, double reach, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> noise(0.0, 0.02);
  std::vector<ComputeData::PassDistance> out;
  for (const double mib : {16, 64, 128, 192, 256, 320, 384, 512, 768, 1024})
    for (const bool w : {false, true}) {
      const double hot = kBuffer / (w ? 14.2e9 : 29.8e9);
      const double d = mib * kMiB;
      const double share = std::clamp((d - kEviction) / (reach - kEviction), 0.0, 1.0);
      out.push_back({w, kBuffer, d, (hot + (w ? written : read) * share * kBuffer) * noise(rng), hot * noise(rng)});
    }
  return out;
}

}  // namespace

TEST_CASE("The distance curve's fit recovers the prices per far byte and where the ramp ends", "[fitting][warmth]") {
  const PassFarFit f = fit_pass_far_prices(curve(4e-11, 5.8e-11, 300 * kMiB, 1), kEviction);
  REQUIRE(f.fitted);
  CHECK(f.read_records == 10);
  CHECK(f.written_records == 10);
  CHECK(f.read_s_per_byte == Approx(4e-11).epsilon(0.1));
  CHECK(f.written_s_per_byte == Approx(5.8e-11).epsilon(0.1));
  CHECK(f.reach_bytes == Approx(300 * kMiB).epsilon(0.15));
  // Held out, the far times are priced far better than taken as hot (which misses them by half).
  CHECK(f.held_out.count == 20);
  CHECK(f.as_hot.mape > 25);
  CHECK(f.held_out.mape < 0.3 * f.as_hot.mape);
}

TEST_CASE("The distance curve's fit prices nothing where no byte was far, and says why it fits nothing", "[fitting][warmth]") {
  const PassFarFit flat = fit_pass_far_prices(curve(0, 0, 300 * kMiB, 2), kEviction);
  REQUIRE(flat.fitted);
  CHECK(flat.read_s_per_byte < 2e-12);  // noise only: under 5% of the real price
  CHECK(flat.written_s_per_byte < 3e-12);
  std::vector<ComputeData::PassDistance> reads;
  for (const auto& r : curve(4e-11, 5.8e-11, 300 * kMiB, 3))
    if (!r.written) reads.push_back(r);
  const PassFarFit few = fit_pass_far_prices(reads, kEviction);
  CHECK_FALSE(few.fitted);
  CHECK_THAT(few.message, Catch::Contains("0 written"));
  std::vector<ComputeData::PassDistance> near;
  for (const auto& r : curve(4e-11, 5.8e-11, 300 * kMiB, 4))
    if (r.distance_bytes <= kEviction) near.push_back(r);
  near.insert(near.end(), near.begin(), near.end());
  const PassFarFit none = fit_pass_far_prices(near, kEviction);
  CHECK_FALSE(none.fitted);
  CHECK_THAT(none.message, Catch::Contains("beyond the eviction"));
}
