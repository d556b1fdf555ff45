// The step-warmth fit on synthetic hot pairs, and hot pairs read from measurement files.
#include "fitting/compute/warm_savings_fit.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "models/compute/direct_conv.h"
#include "core/lowering/lower.h"

using namespace dnnperf;
using namespace dnnperf::fitting;

namespace {

/// A kernel with the cache state a step left it (replay_step_cache), priced as one.
struct Replayed : Kernel, StepCacheState {
  Replayed(const Kernel& k) : Kernel(k) {}  // NOLINT: a kernel nothing warm, as calibrated
};
double warm_savings_seconds(const StepWarmth& w, const Replayed& k, double cold_seconds, bool inference = false) {
  return dnnperf::warm_savings_seconds(w, k, k, cold_seconds, inference);
}


/// Convolutions of random channels, image sides and windows, each timed cold as an arithmetic and
/// traffic law and hot as cold less `truth` (times a noise of a few percent).
/// The fixed part `a` saves at a cold time of `cold` seconds.
double fixed_saved(const ConvWarmSavings& a, double cold) { return a.call_tau_s > 0 ? a.call_s * cold / (cold + a.call_tau_s) : a.call_s; }

/// Pairs at batch 4: the 1x1 ones take PyTorch's native path (direct_conv.h: conv_path).

std::vector<ComputeData::HotPair> pairs(Phase phase, int count, const ConvWarmSavings& truth, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> noise(0.0, 0.03);
  const std::int64_t channels[] = {16, 32, 64, 128, 256, 512};
  const std::int64_t sides[] = {2, 4, 8, 16, 32};
  std::vector<ComputeData::HotPair> out;
  for (int i = 0; i < count; ++i) {
    ConvShape c;
    c.n = 4, c.c = channels[rng() % 6], c.k = channels[rng() % 6], c.h = c.w = c.p = c.q = sides[rng() % 5];
    c.r = c.s = rng() % 2 ? 3 : 1, c.pad_h = c.pad_w = c.r / 2;
    const Kernel k = conv_kernel(phase, c, DType::f32);
    const ConvOperandBytes b = conv_operand_bytes(c, 4);
    const double cold = 2e-4 + k.flops / 50e9 + (b.input + b.weight + b.output) / 5e9;
    const double call = truth.native_call_s && conv_path(c, phase) == ConvPath::native ? *truth.native_call_s : truth.call_s;
    const double fixed = truth.call_tau_s > 0 ? call * cold / (cold + truth.call_tau_s) : call;
    const double saved = fixed + truth.input_s_per_byte * b.input + truth.weight_s_per_byte * b.weight + truth.output_s_per_byte * b.output;
    out.push_back({k, cold, (cold - saved) * noise(rng)});
  }
  return out;
}

}  // namespace

TEST_CASE("The warmth fit recovers what back-to-back timings save, per direction, and beats taking them as cold", "[fitting][warmth]") {
  const ConvWarmSavings forward{1e-4, 0, 3e-11, 5e-11, 0};
  const ConvWarmSavings filter{6e-5, 0, 0, 8e-11, 2e-11};
  std::vector<ComputeData::HotPair> all = pairs(Phase::forward, 80, forward, 1);
  for (const auto& p : pairs(Phase::backward_weight, 80, filter, 2)) all.push_back(p);
  const WarmSavingsFit f = fit_warm_savings(all, 27e6);
  REQUIRE(f.warmth.enabled());
  CHECK(f.warmth.cache_bytes == 27e6);
  const ConvWarmSavings& a = f.warmth.conv[static_cast<std::size_t>(Phase::forward)];
  // A fixed part without a bound, whatever bound the fit keeps (a short one makes little difference
  // at these kernels' 0.2 ms and up).
  CHECK(fixed_saved(a, 1e-3) == Approx(1e-4).epsilon(0.15));
  CHECK(a.weight_s_per_byte == Approx(5e-11).epsilon(0.15));
  CHECK(a.output_s_per_byte < 5e-12);  // none in the truth; never negative
  CHECK(a.output_s_per_byte >= 0);
  const ConvWarmSavings& w = f.warmth.conv[static_cast<std::size_t>(Phase::backward_weight)];
  CHECK(w.weight_s_per_byte == Approx(8e-11).epsilon(0.15));
  for (const Phase p : {Phase::forward, Phase::backward_weight}) {
    const auto i = static_cast<std::size_t>(p);
    CHECK(f.pairs[i] == 80);
    CHECK(f.held_out[i].count == 80);
    CHECK(f.held_out[i].mape < 5.0);
    CHECK(f.held_out[i].mape < f.as_cold[i].mape / 3);
  }
  // No pairs of backward_data: it saves nothing.
  CHECK(f.pairs[static_cast<std::size_t>(Phase::backward_data)] == 0);
  CHECK(f.warmth.conv[static_cast<std::size_t>(Phase::backward_data)].call_s == 0);
  CHECK(f.warmth.most_saved > 0);
  CHECK(f.warmth.most_saved < 0.95);
}

TEST_CASE("A fixed part that short kernels pay only in part is fitted with its bound", "[fitting][warmth]") {
  // 0.3 ms of cold start that a 0.3 ms kernel pays half of: a constant fixed part cannot fit both
  // the short kernels (saving less) and the long ones (saving all of it).
  const ConvWarmSavings truth{3e-4, 3e-4, 2e-11, 0, 0};
  const WarmSavingsFit f = fit_warm_savings(pairs(Phase::backward_data, 120, truth, 5), 27e6);
  REQUIRE(f.warmth.enabled());
  const ConvWarmSavings& a = f.warmth.conv[static_cast<std::size_t>(Phase::backward_data)];
  CHECK(a.call_tau_s == Approx(3e-4).epsilon(0.3));
  for (const double cold : {2e-4, 1e-3, 1e-2}) CHECK(fixed_saved(a, cold) == Approx(fixed_saved(truth, cold)).epsilon(0.15));
  CHECK(f.held_out[static_cast<std::size_t>(Phase::backward_data)].mape < 5.0);
}

TEST_CASE("The native path's own fixed part is fitted where it predicts held-out pairs better", "[fitting][warmth]") {
  // oneDNN's kernels save 0.15 ms of cold start, PyTorch's native 1x1 ones 0.05 ms.
  ConvWarmSavings truth{1.5e-4, 0, 2e-11, 0, 0};
  truth.native_call_s = 5e-5;
  const auto two = pairs(Phase::forward, 160, truth, 7);
  const auto native = std::count_if(two.begin(), two.end(), [](const auto& p) { return conv_path(p.kernel.conv, p.kernel.phase) == ConvPath::native; });
  REQUIRE(native >= kMinNativeHotPairs);
  const WarmSavingsFit f = fit_warm_savings(two, 27e6);
  const auto i = static_cast<std::size_t>(Phase::forward);
  const ConvWarmSavings& a = f.warmth.conv[i];
  CHECK(f.native_pairs[i] == native);
  REQUIRE(a.native_call_s >= 0);
  CHECK(fixed_saved(a, 1e-3) == Approx(1.5e-4).epsilon(0.15));
  ConvWarmSavings as_native = a;
  as_native.call_s = *a.native_call_s;
  CHECK(fixed_saved(as_native, 1e-3) == Approx(5e-5).epsilon(0.25));
  REQUIRE(f.held_out_one_call[i].count > 0);
  CHECK(f.held_out[i].mape < f.held_out_one_call[i].mape);
  // Priced so: a native 1x1 convolution saves its own fixed part, a 3x3 one the other.
  StepWarmth w;
  w.cache_bytes = 27e6, w.most_saved = 0.9;
  w.conv[i] = truth;
  ConvShape one;
  one.n = 4, one.c = one.k = 64, one.h = one.w = one.p = one.q = 8, one.r = one.s = 1;
  ConvShape three = one;
  three.r = three.s = 3, three.pad_h = three.pad_w = 1;
  Replayed k1 = conv_kernel(Phase::forward, one, DType::f32), k3 = conv_kernel(Phase::forward, three, DType::f32);
  k1.resident.call = k3.resident.call = 1;
  CHECK(warm_savings_seconds(w, k1, 1e-3) == Approx(5e-5));
  CHECK(warm_savings_seconds(w, k3, 1e-3) == Approx(1.5e-4));
  // Where one fixed part is the truth, a second is not kept unless it predicts better: either way
  // the fit prices the native pairs as the truth does.
  const WarmSavingsFit g = fit_warm_savings(pairs(Phase::forward, 160, {1e-4, 0, 2e-11, 0, 0}, 8), 27e6);
  const ConvWarmSavings& b = g.warmth.conv[i];
  ConvWarmSavings b_native = b;
  if (b.native_call_s) b_native.call_s = *b.native_call_s;
  CHECK(fixed_saved(b_native, 1e-3) == Approx(1e-4).epsilon(0.2));
}

TEST_CASE("Too few pairs, or no cache to replay a step through, fit no warmth and say why", "[fitting][warmth]") {
  const auto few = pairs(Phase::forward, kMinHotPairs - 1, {1e-4, 0, 0, 0, 0}, 3);
  const WarmSavingsFit a = fit_warm_savings(few, 27e6);
  CHECK_FALSE(a.warmth.enabled());
  CHECK_THAT(a.message, Catch::Contains("fewer than"));
  const WarmSavingsFit b = fit_warm_savings(pairs(Phase::forward, 40, {1e-4, 0, 0, 0, 0}, 4), 0);
  CHECK_FALSE(b.warmth.enabled());
  CHECK_THAT(b.message, Catch::Contains("cache_bytes"));
}

TEST_CASE("A hot pair's two records are read as a pair, not as samples; a hot one without its cold one is named", "[fitting][warmth]") {
  const auto conv = [](int k, const std::string& caches, bool pair, double seconds) {
    nlohmann::json layout = {{"device", "cpu"}, {"threads", 1}, {"caches", caches}};
    if (pair) layout["hot_pair"] = true;
    return nlohmann::json{{"type", "record"}, {"op", "conv_forward"}, {"dtype", "f32"}, {"host", "h"}, {"status", "ok"},
                          {"algorithm", "torch:default"}, {"library", "PyTorch"}, {"library_version", "1.13"}, {"repetitions", 5},
                          {"date", "2026-12-02T00:00:00Z"},
                          {"layout", layout},
                          {"params", {{"n", 4}, {"c", 64}, {"h", 8}, {"w", 8}, {"k", k}, {"r", 3}, {"s", 3}, {"pad_h", 1}, {"pad_w", 1},
                                      {"stride_h", 1}, {"stride_w", 1}, {"dilation_h", 1}, {"dilation_w", 1}, {"groups", 1}}},
                          {"seconds", {{"median", seconds}, {"min", seconds}, {"max", seconds}, {"stddev", 0}}}};
  };
  const std::string path = (std::filesystem::temp_directory_path() / "dnnperf_hot_pairs_test.jsonl").string();
  {
    std::ofstream out(path);
    out << R"({"type": "context", "schema": "dnnperf.measurements/1", "host": "h", "tool": "test"})" << "\n";
    for (const nlohmann::json& r : {conv(64, "cold", true, 4e-4), conv(64, "hot", true, 1e-4), conv(32, "hot", true, 2e-4),
                                    conv(16, "cold", false, 3e-4)})
      out << r.dump() << "\n";
  }
  const ComputeData d = load_compute_data({path});
  REQUIRE(d.hot_pairs.size() == 1);
  CHECK(d.hot_pairs[0].cold_s == Approx(4e-4));
  CHECK(d.hot_pairs[0].hot_s == Approx(1e-4));
  CHECK(d.hot_pairs[0].kernel.conv.k == 64);
  REQUIRE(d.samples.size() == 1);  // the unpaired cold record only
  CHECK(d.samples[0].kernel.conv.k == 16);
  REQUIRE(d.excluded.size() == 1);
  CHECK_THAT(d.excluded[0].where, Catch::Contains("record 3"));
  CHECK_THAT(d.excluded[0].reason, Catch::Contains("without its cold one"));
  std::filesystem::remove(path);
}
