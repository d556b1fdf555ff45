#include "models/compute/step_warmth.h"

#include <catch2/catch.hpp>

#include "core/lowering/lower.h"

using namespace dnnperf;

namespace {

/// A kernel with the cache state a step left it (replay_step_cache), priced as one.
struct Replayed : Kernel, StepCacheState {
  Replayed(const Kernel& k) : Kernel(k) {}  // NOLINT: a kernel nothing warm, as calibrated
};
double warm_savings_seconds(const StepWarmth& w, const Replayed& k, double cold_seconds, bool inference = false) {
  return dnnperf::warm_savings_seconds(w, k, k, cold_seconds, inference);
}


StepWarmth warmth() {
  StepWarmth w;
  w.cache_bytes = 32e6;
  w.most_saved = 0.8;
  w.conv[static_cast<std::size_t>(Phase::forward)] = {1e-4, 0, 1e-11, 2e-11, 3e-11};
  w.conv[static_cast<std::size_t>(Phase::backward_weight)] = {5e-5, 0, 0, 0, 0};
  return w;
}

Kernel conv(Phase phase) {
  ConvShape c;
  c.n = 4, c.c = 64, c.h = 16, c.w = 16, c.k = 128, c.r = 3, c.s = 3, c.p = 16, c.q = 16, c.pad_h = 1, c.pad_w = 1;
  return conv_kernel(phase, c, DType::f32);
}

}  // namespace

TEST_CASE("Warmth takes off each part by the share the step found warm", "[models][warmth]") {
  Replayed k = conv(Phase::forward);
  const double input = 4.0 * 64 * 16 * 16 * 4, filter = 128.0 * 64 * 9 * 4, output = 4.0 * 128 * 16 * 16 * 4;
  CHECK(warm_savings_seconds(warmth(), k, 1.0) == 0.0);  // nothing warm
  k.resident = {1.0, 0.5, 0.0, 1.0};
  CHECK(warm_savings_seconds(warmth(), k, 1.0) == Approx(1e-4 + 1e-11 * input + 0.5 * 2e-11 * filter));
  k.resident.output = 1.0;  // a forward writes its output: a share set anyway is priced as given
  CHECK(warm_savings_seconds(warmth(), k, 1.0) == Approx(1e-4 + 1e-11 * input + 0.5 * 2e-11 * filter + 3e-11 * output));
}

TEST_CASE("A bounded fixed part saves in proportion to how much of it a short kernel pays", "[models][warmth]") {
  StepWarmth w = warmth();
  w.conv[static_cast<std::size_t>(Phase::forward)] = {2e-4, 2e-4, 0, 0, 0};
  Replayed k = conv(Phase::forward);
  k.resident = {0, 0, 0, 1};  // input, filter, output, call
  CHECK(warm_savings_seconds(w, k, 2e-4) == Approx(1e-4));       // half of it at tau
  CHECK(warm_savings_seconds(w, k, 2e-2) == Approx(2e-4 * 100.0 / 101.0));  // nearly all of it when long
  k.resident.call = 0.5;
  CHECK(warm_savings_seconds(w, k, 2e-4) == Approx(0.5e-4));
}

TEST_CASE("Warmth never saves more than the largest measured share of a cold time", "[models][warmth]") {
  Replayed k = conv(Phase::forward);
  k.resident = {1, 1, 1, 1};
  CHECK(warm_savings_seconds(warmth(), k, 1e-4) == Approx(0.8e-4));
}

TEST_CASE("A step realizes its share of the pairs' savings, under the same bound", "[models][warmth]") {
  StepWarmth w = warmth();
  Replayed k = conv(Phase::forward);
  k.resident = {1.0, 0.5, 0.0, 1.0};
  const double all = warm_savings_seconds(w, k, 1.0);
  w.realized_share = 0.4;
  CHECK(warm_savings_seconds(w, k, 1.0) == Approx(0.4 * all));
  // Inference at training's share unless it has its own.
  CHECK(warm_savings_seconds(w, k, 1.0, true) == Approx(0.4 * all));
  w.realized_share_inference = 0.9;
  CHECK(warm_savings_seconds(w, k, 1.0, true) == Approx(0.9 * all));
  CHECK(warm_savings_seconds(w, k, 1.0) == Approx(0.4 * all));
  w.realized_share_inference = 0;
  CHECK(warm_savings_seconds(w, k, 1.0, true) == 0.0);
  w.realized_share_inference.reset();
  w.realized_share = 0;
  CHECK(warm_savings_seconds(w, k, 1.0) == 0.0);
  w.realized_share = 1;
  k.resident = {1, 1, 1, 1};
  CHECK(warm_savings_seconds(w, k, 1e-4) == Approx(0.8e-4));  // all of it, still bounded
}

TEST_CASE("A weight gradient computed in its input gradient's call saves no call of its own", "[models][warmth]") {
  Replayed k = conv(Phase::backward_weight);
  k.resident = {1, 1, 1, 1};
  CHECK(warm_savings_seconds(warmth(), k, 1.0) == Approx(5e-5));
  k.shares_call = true;
  CHECK(warm_savings_seconds(warmth(), k, 1.0) == 0.0);
}

TEST_CASE("Without a fitted warmth, or for other kernels, nothing is saved", "[models][warmth]") {
  Replayed k = conv(Phase::forward);
  k.resident = {1, 1, 1, 1};
  CHECK(warm_savings_seconds(StepWarmth{}, k, 1.0) == 0.0);
  Replayed g = gemm_kernel(Phase::forward, {64, 64, 64, 1, false, false}, DType::f32);
  g.resident = {1, 1, 1, 1};
  CHECK(warm_savings_seconds(warmth(), g, 1.0) == 0.0);
  Replayed d = conv(Phase::backward_data);  // a direction not fitted
  d.resident = {1, 1, 1, 1};
  CHECK(warm_savings_seconds(warmth(), d, 1.0) == 0.0);
}

TEST_CASE("Every convolution of a step pays the excess beyond its cold time, whatever it saves", "[models][warmth]") {
  StepWarmth w = warmth();
  Replayed k = conv(Phase::forward);
  k.resident = {1.0, 0.5, 0.0, 1.0};
  const double saved = warm_savings_seconds(w, k, 1.0);
  w.in_step_excess = 0.08;
  CHECK(warm_savings_seconds(w, k, 1.0) == Approx(saved - 0.08));
  k.resident = {};  // nothing warm: slower than cold
  CHECK(warm_savings_seconds(w, k, 2e-3) == Approx(-0.08 * 2e-3));
  // Inference at training's excess unless it has its own.
  CHECK(warm_savings_seconds(w, k, 2e-3, true) == Approx(-0.08 * 2e-3));
  w.in_step_excess_inference = 0.0;
  CHECK(warm_savings_seconds(w, k, 2e-3, true) == 0.0);
  // Not for other kernels, nor without a fitted warmth.
  Replayed gemm = gemm_kernel(Phase::forward, GemmShape{64, 64, 64}, DType::f32);
  CHECK(warm_savings_seconds(w, gemm, 1.0) == 0.0);
  w.cache_bytes = 0;
  CHECK(warm_savings_seconds(w, k, 1.0) == 0.0);
}

TEST_CASE("A convolution pays for each operand byte fetched from beyond the cold timings' reach", "[models][warmth]") {
  StepWarmth w = warmth();
  Replayed k = conv(Phase::forward);
  k.resident = {1.0, 0.5, 0.0, 1.0};
  const double saved = warm_savings_seconds(w, k, 1.0);
  k.far_bytes = 4e6;
  CHECK(warm_savings_seconds(w, k, 1.0) == saved);  // no price fitted: as before
  w.far_s_per_byte = 2e-10;
  CHECK(warm_savings_seconds(w, k, 1.0) == Approx(saved - 8e-4));
  // Inference at training's price unless it has its own; with the excess, both are paid.
  CHECK(warm_savings_seconds(w, k, 1.0, true) == Approx(saved - 8e-4));
  w.far_s_per_byte_inference = 0.0;
  w.in_step_excess = 0.05;
  CHECK(warm_savings_seconds(w, k, 1.0, true) == Approx(saved - 0.05));
  CHECK(warm_savings_seconds(w, k, 1.0) == Approx(saved - 0.05 - 8e-4));
  // Not for other kernels.
  Replayed gemm = gemm_kernel(Phase::forward, GemmShape{64, 64, 64}, DType::f32);
  gemm.far_bytes = 4e6;
  CHECK(warm_savings_seconds(w, gemm, 1.0) == 0.0);
}

TEST_CASE("A memory pass pays for its far bytes read and written, and saves nothing", "[models][warmth]") {
  StepWarmth w = warmth();
  Replayed pass = Kernel{};
  pass.cls = KernelClass::elementwise, pass.phase = Phase::forward, pass.bytes_read = pass.bytes_written = 4e6;
  pass.far_read_bytes = 2e6, pass.far_written_bytes = 1e6;
  CHECK(warm_savings_seconds(w, pass, 1e-3) == 0.0);  // no prices fitted: as calibrated
  w.pass_far_read_s_per_byte = 4e-11, w.pass_far_written_s_per_byte = 6e-11;
  CHECK(warm_savings_seconds(w, pass, 1e-3) == Approx(-(8e-5 + 6e-5)));
  CHECK(warm_savings_seconds(w, pass, 1e-3, true) == Approx(-(8e-5 + 6e-5)));  // where the bytes are far, whatever the step
  // The share realized and the convolutions' excess are the convolutions' alone.
  w.realized_share = 0.5, w.in_step_excess = 0.1;
  CHECK(warm_savings_seconds(w, pass, 1e-3) == Approx(-(8e-5 + 6e-5)));
  // An optimizer's update is timed as a step meets it (rotated parameters): nothing.
  pass.phase = Phase::update;
  CHECK(warm_savings_seconds(w, pass, 1e-3) == 0.0);
  // Nor without a fitted warmth.
  pass.phase = Phase::forward;
  w.cache_bytes = 0;
  CHECK(warm_savings_seconds(w, pass, 1e-3) == 0.0);
}

TEST_CASE("The step replay's reach is the measured one where a distance curve gave it", "[models][warmth]") {
  StepWarmth w = warmth();
  w.cold_eviction_bytes = 64e6, w.last_level_cache_bytes = 480e6;
  CHECK(w.cold_reach().last_level_bytes == 480e6);
  w.far_reach_bytes = 250e6;
  CHECK(w.cold_reach().last_level_bytes == 250e6);
  CHECK(w.cold_reach().evicted_bytes == 64e6);
}
