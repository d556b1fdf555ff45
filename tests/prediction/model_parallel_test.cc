// Model-parallel planning: the pipeline schedules against their closed forms, activation memory
// against Korthikanti et al.'s formulas, the search against brute force, collectives against the
// all-reduce they decompose, and bad plans.
#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "models/comm/collectives.h"
#include "predictor/large_model/plan_search.h"

using namespace dnnperf;

namespace {

PipelineSchedule uniform(int p, int v, std::int64_t m, double forward, double backward) {
  PipelineSchedule s;
  s.stages = p, s.virtual_stages = v, s.micro_batches = m;
  s.chunks.assign(static_cast<std::size_t>(p * v), ChunkWork{forward / v, backward / v, 1.0, 0, 0});
  return s;
}

const HardwareProfile& a100() {
  static const HardwareProfile hw = find_hardware_profile("a100");
  return hw;
}

}  // namespace

TEST_CASE("Every GPU's order runs each chunk's micro-batches forward before backward", "[model_parallel]") {
  for (const auto& [p, v, m] : {std::tuple{4, 1, 8}, std::tuple{4, 2, 8}, std::tuple{8, 3, 16}, std::tuple{2, 1, 1}}) {
    for (int r = 0; r < p; ++r) {
      INFO("p " << p << " v " << v << " m " << m << " stage " << r);
      const auto order = pipeline_order(p, v, m, r);
      CHECK(order.size() == static_cast<std::size_t>(2 * v * m));
      std::map<std::pair<int, std::int64_t>, int> seen;
      for (const PipelineStep& s : order) {
        CHECK(s.chunk % p == r);
        int& state = seen[{s.chunk, s.micro_batch}];
        CHECK(state == (s.forward ? 0 : 1));
        state = s.forward ? 1 : 2;
      }
      CHECK(seen.size() == static_cast<std::size_t>(v * m));
    }
  }
  // 1F1B: stage r runs p - r - 1 forwards before its first backward.
  const auto first = pipeline_order(4, 1, 8, 1);
  CHECK(first[0].forward);
  CHECK(first[1].forward);
  CHECK(first[2].forward);
  CHECK_FALSE(first[3].forward);
}

TEST_CASE("The simulated bubble is (p - 1)(F + B), and 1/v of it interleaved", "[model_parallel]") {
  PipelineSimulator sim;
  // Narayanan et al. 2021, section 2.2: with t_f and t_b per micro-batch and stage, 1F1B takes
  // (m + p - 1)(t_f + t_b); interleaving v chunks cuts the bubble to (p - 1)(t_f + t_b) / v.
  for (const auto& [p, m] : {std::pair{4, 8}, std::pair{8, 32}, std::pair{2, 2}}) {
    INFO("p " << p << " m " << m);
    const PipelineResult r = sim.run(uniform(p, 1, m, 1.0, 2.0));
    CHECK(r.iteration_s == Approx((m + p - 1) * 3.0));
    CHECK(r.idle_s == Approx((p - 1) * 3.0));
    for (int v : {2, 4}) {
      const PipelineResult i = sim.run(uniform(p, v, m, 1.0, 2.0));
      CHECK(i.iteration_s == Approx(m * 3.0 + (p - 1) * 3.0 / v));
    }
  }
  // A send between stages delays each hand-over: one micro-batch is a chain of p forwards and p
  // backwards with 2 (p - 1) sends; more micro-batches wait on at least as many.
  PipelineSchedule s = uniform(4, 1, 1, 1.0, 2.0);
  s.send_s = 0.25;
  CHECK(sim.run(s).iteration_s == Approx(4 * 3.0 + 2 * 3 * 0.25));
  s = uniform(4, 1, 8, 1.0, 2.0);
  s.send_s = 0.25;
  const double blocking = sim.run(s).iteration_s;
  CHECK(blocking >= (8 + 3) * 3.0 + 2 * 3 * 0.25);
  // Overlapped, the sends hold no stream: never slower than blocking ones.
  s.blocking_sends = false;
  CHECK(sim.run(s).iteration_s >= (8 + 3) * 3.0 + 2 * 3 * 0.25);
  CHECK(sim.run(s).iteration_s <= blocking);
}

TEST_CASE("1F1B keeps p - r micro-batches in flight on stage r", "[model_parallel]") {
  PipelineSimulator sim;
  for (int stage = 0; stage < 4; ++stage) CHECK(sim.peak_activation_bytes(uniform(4, 1, 16, 1.0, 2.0), stage) == Approx(4 - stage));
}

TEST_CASE("Gradient sync after backward is exposed; overlapped it hides behind the other chunks", "[model_parallel]") {
  PipelineSimulator sim;
  PipelineSchedule s = uniform(2, 2, 4, 1.0, 2.0);
  for (ChunkWork& c : s.chunks) c.gradient_sync_s = 0.5;
  const double plain = sim.run(s).iteration_s;
  s.overlap_gradient_sync = true;
  const double overlapped = sim.run(s).iteration_s;
  CHECK(plain == Approx(sim.run(uniform(2, 2, 4, 1.0, 2.0)).iteration_s + 1.0));  // two chunks' syncs in a row
  CHECK(overlapped < plain);
}

TEST_CASE("A layer's activations follow Korthikanti et al.'s formulas", "[model_parallel][memory]") {
  // Korthikanti et al. 2022, Table 2, per layer in bytes at 16-bit: no parallelism
  // s b h (34 + 5 a s / h); tensor parallel s b h (10 + 24 / t + 5 a s / (h t)); with sequence
  // parallelism s b h / t (34 + 5 a s / h); selective recomputation drops the 5 a s / h term;
  // full keeps the input, 2 s b h (/ t with sequence parallelism).
  TransformerSpec gpt = *zoo_transformer_spec("gpt:layers=8,hidden=2048,heads=16,seq=2048,vocab=51200,dropout=0.1");
  const double s = 2048, b = 2, h = 2048, a = 16;
  for (const int t : {1, 4, 8}) {
    ModelParallelPlan plan;
    plan.tp = t, plan.micro_batch = 2, plan.global_batch = 2, plan.gpus_per_node = t;
    const StageParts parts = price_stage_parts(gpt, a100(), plan);
    const PartCost& layer = parts.dense_layer;
    INFO("tp " << t);
    CHECK(layer.saved_bytes == Approx(s * b * h * (10 + 24.0 / t + 5 * a * s / (h * t))).epsilon(0.05));
    const double sp = layer.saved_bytes - (1 - 1.0 / t) * layer.replicated_bytes;
    CHECK(sp == Approx(s * b * h / t * (34 + 5 * a * s / h)).epsilon(0.05));
    CHECK(sp - layer.attention_core_bytes == Approx(s * b * h / t * 34).epsilon(0.05));
    CHECK(layer.input_bytes == Approx(2 * s * b * h));
  }
}

TEST_CASE("Weights, gradients and optimizer state follow Megatron's 18 bytes and ZeRO's shards", "[model_parallel][memory]") {
  ModelParallelPlan plan;
  plan.nodes = 4, plan.gpus_per_node = 8, plan.tp = 8;  // data-parallel 4
  const double params = 1e9;
  const auto bytes = [&](int zero) {
    plan.zero = zero;
    const ModelParallelMemory m = stage_memory(plan, a100(), params, 0, 0);
    return m.weights + m.gradients + m.optimizer_state;
  };
  CHECK(bytes(0) == Approx(18 * params));
  CHECK(bytes(1) == Approx((6 + 12.0 / 4) * params));  // Megatron's distributed optimizer
  CHECK(bytes(2) == Approx((2 + 16.0 / 4) * params));
  CHECK(bytes(3) == Approx(18.0 / 4 * params));
}

TEST_CASE("A model-parallel prediction adds up and scales as it should", "[model_parallel]") {
  const TransformerSpec gpt = *zoo_transformer_spec("megatron-22b");
  ModelParallelPlan plan;
  plan.nodes = 2, plan.tp = 8, plan.pp = 2, plan.micro_batch = 1, plan.global_batch = 64;
  plan.recompute = Recompute::selective, plan.sequence_parallel = true;
  ModelParallelEvaluator evaluator(gpt, a100());
  const ModelParallelPrediction p = evaluator.predict(plan);
  const auto& b = p.breakdown;
  CHECK(b.compute_s + b.recompute_s + b.tp_comm_s + b.ep_comm_s + b.pp_comm_s + b.bubble_s + b.dp_comm_exposed_s + b.optimizer_s ==
        Approx(p.iteration_s).epsilon(1e-9));
  CHECK(p.mfu > 0.2);
  CHECK(p.mfu < 0.9);
  CHECK(p.memory.fits());
  CHECK(p.iteration_s == Approx(evaluator.iteration_seconds(plan)));
  // Interleaving shrinks the bubble; full recomputation costs time and saves memory.
  ModelParallelPlan interleaved = plan;
  interleaved.virtual_stages = 2;
  CHECK(evaluator.predict(interleaved).breakdown.bubble_s < b.bubble_s);
  ModelParallelPlan full = plan;
  full.recompute = Recompute::full;
  const ModelParallelPrediction f = evaluator.predict(full);
  CHECK(f.iteration_s > p.iteration_s);
  CHECK(f.memory.activations < p.memory.activations);
  // Parts are priced once per (tp, ep, micro-batch, sequence, precision).
  CHECK(evaluator.priced_parts() == 1);
}

TEST_CASE("Every GPU of a plan waits for the slowest of them; a device's own speed does not average out", "[model_parallel]") {
  const TransformerSpec gpt = *zoo_transformer_spec("megatron-22b");
  ModelParallelPlan plan;
  plan.nodes = 4, plan.tp = 8, plan.pp = 2, plan.micro_batch = 1, plan.global_batch = 64;
  HardwareProfile even = a100(), spread = a100();
  even.device.speed_spread = even.device.step_jitter = 0;
  spread.device.speed_spread = 0.02, spread.device.step_jitter = 0;
  const ModelParallelPrediction a = predict_model_parallel(gpt, even, plan);
  const ModelParallelPrediction b = predict_model_parallel(gpt, spread, plan);
  CHECK(a.sync_wait == 1.0);
  CHECK(b.sync_wait == Approx(1 + 0.02 * expected_maximum_of_normals(32)));
  // The kernels and the optimizer step stretch by it; the collectives do not.
  CHECK(b.breakdown.compute_s == Approx(b.sync_wait * a.breakdown.compute_s));
  CHECK(b.breakdown.optimizer_s == Approx(b.sync_wait * a.breakdown.optimizer_s));
  CHECK(b.breakdown.tp_comm_s == Approx(a.breakdown.tp_comm_s));
  CHECK(b.iteration_s > a.iteration_s);
  CHECK(b.iteration_s < b.sync_wait * a.iteration_s);
  // Twice the GPUs: a slower slowest.
  plan.nodes = 8;
  CHECK(predict_model_parallel(gpt, spread, plan).sync_wait > b.sync_wait);
}

TEST_CASE("The search's bound-pruned best equals brute force", "[model_parallel][search]") {
  ModelParallelEvaluator evaluator(*zoo_transformer_spec("megatron-22b"), a100());
  PlanSearchSpace space;
  space.gpus = 32;
  space.shape.global_batch = 64;
  const PlanSearchResult r = search_plans(evaluator, space, 3);
  REQUIRE(r.best.size() == 3);
  CHECK(r.configs_simulated < r.configs_fitting);
  std::vector<double> all;
  for (const ModelParallelPlan& p : enumerate_plans(evaluator.spec(), a100(), space)) {
    ModelParallelMemory m;
    if (evaluator.lower_bound_if_fits(p, m)) all.push_back(evaluator.iteration_seconds(p));
  }
  std::sort(all.begin(), all.end());
  REQUIRE(all.size() >= 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(r.best[i].prediction.iteration_s == Approx(all[i]).epsilon(1e-12));
  double chance = 0;
  for (const RankedPlan& p : r.best) chance += p.chance_fastest;
  CHECK(chance == Approx(1.0));
}

TEST_CASE("A search where nothing fits names the closest plan and its shortfall", "[model_parallel][search][errors]") {
  ModelParallelEvaluator evaluator(*zoo_transformer_spec("gpt3-175b"), a100());
  PlanSearchSpace space;
  space.gpus = 8;
  space.shape.global_batch = 8;
  const PlanSearchResult r = search_plans(evaluator, space, 3);
  CHECK(r.best.empty());
  REQUIRE(r.closest);
  CHECK(r.closest_memory.shortfall() > 0);
}

TEST_CASE("Bad plans name the field", "[model_parallel][errors]") {
  const TransformerSpec gpt = *zoo_transformer_spec("gpt3-175b");
  ModelParallelPlan plan;
  plan.nodes = 2, plan.tp = 8, plan.pp = 2, plan.global_batch = 8;
  CHECK_NOTHROW(plan.validate(gpt, a100()));
  const auto fails = [&](ModelParallelPlan p, const char* what) {
    INFO(what);
    CHECK_THROWS_WITH(p.validate(gpt, a100()), Catch::Contains(what));
  };
  ModelParallelPlan p = plan;
  p.tp = 16;
  fails(p, "--tp");
  p = plan, p.pp = 5;
  fails(p, "does not divide the 16 GPUs");
  p = plan, p.nodes = 5, p.pp = 5;
  fails(p, "does not divide the 96 layers");
  p = plan, p.gpus_per_node = 16;
  fails(p, "exceeds the 8 GPUs");
  p = plan, p.nodes = 4, p.global_batch = 3;  // data-parallel 2
  fails(p, "--global-batch");
  p = plan, p.nodes = 4, p.global_batch = 6, p.virtual_stages = 2;  // 3 micro-batches over 2 stages
  fails(p, "--interleave");
  p = plan, p.ep = 2;
  fails(p, "mixture-of-experts");
  p = plan, p.tp = 1, p.sequence_parallel = true;
  fails(p, "--sequence-parallel");
  p = plan, p.sequence = 4096;
  fails(p, "context");
  TransformerSpec odd = *zoo_transformer_spec("gpt:layers=4,hidden=768,heads=12");
  ModelParallelPlan q;
  q.tp = 8, q.global_batch = 1;
  CHECK_THROWS_WITH(q.validate(odd, a100()), Catch::Contains("12 heads"));
  CHECK_THROWS_WITH(zoo_transformer_spec("gpt:layers=0"), Catch::Contains("layers"));
}

TEST_CASE("Gather and scatter make an all-reduce; an all-to-all moves (p - 1)/p of its bytes", "[model_parallel][comm]") {
  CommGroup g;
  g.ranks = 8, g.ranks_per_node = 8;
  g.intra = {3e-6, 1 / 300e9};
  g.gamma = 0;
  const double n = 256e6;
  CHECK(collective_seconds(Collective::all_gather, n, g) + collective_seconds(Collective::reduce_scatter, n, g) ==
        Approx(allreduce_seconds(AllReduceAlgorithm::ring, n, g)));
  CHECK(collective_seconds(Collective::all_to_all, n, g) == Approx(3e-6 + 7.0 / 8 * n / 300e9));
  // Across nodes the NICs' share decides.
  g.ranks = 16;
  g.inter = {5e-6, 1 / 25e9};
  g.nics_per_node = 8;
  CHECK(collective_seconds(Collective::all_to_all, n, g) == Approx(5e-6 + 8.0 / 16 * n / 25e9));
  CHECK(send_recv_seconds(1e6, g, true, 8) == Approx(5e-6 + 1e6 / 25e9));
  CHECK(send_recv_seconds(1e6, g, true, 16) == Approx(5e-6 + 2e6 / 25e9));
}
