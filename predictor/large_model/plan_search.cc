#include "predictor/large_model/plan_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "core/common/error.h"

namespace dnnperf {
namespace {

std::vector<std::int64_t> divisors(std::int64_t n, std::int64_t at_most) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 1; i <= std::min(n, at_most); ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// P(each is the fastest) for log-normal times; deterministic (fixed seed) so a search repeats.
std::vector<double> chance_fastest(const std::vector<RankedPlan>& plans) {
  std::vector<double> chance(plans.size(), 0.0);
  if (plans.empty()) return chance;
  std::vector<double> mu, sigma;
  bool spread = false;
  for (const RankedPlan& r : plans) {
    const auto& p = r.prediction;
    mu.push_back(std::log(p.iteration_s));
    sigma.push_back(p.high_s > p.low_s ? std::log(p.high_s / p.low_s) / (2 * 1.96) : 0.0);
    spread = spread || sigma.back() > 0;
  }
  if (!spread) {
    // Point estimates: the fastest (ties share).
    const double best = *std::min_element(mu.begin(), mu.end());
    const double ties = static_cast<double>(std::count(mu.begin(), mu.end(), best));
    for (std::size_t i = 0; i < mu.size(); ++i) chance[i] = mu[i] == best ? 1.0 / ties : 0.0;
    return chance;
  }
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> z(0.0, 1.0);
  constexpr int kDraws = 4000;
  for (int d = 0; d < kDraws; ++d) {
    std::size_t arg = 0;
    double least = 0;
    for (std::size_t i = 0; i < mu.size(); ++i) {
      const double t = mu[i] + sigma[i] * z(rng);
      if (i == 0 || t < least) least = t, arg = i;
    }
    chance[arg] += 1.0 / kDraws;
  }
  return chance;
}

}  // namespace

std::vector<ModelParallelPlan> enumerate_plans(const TransformerSpec& spec, const HardwareProfile& hw, const PlanSearchSpace& space) {
  if (space.gpus < 1) throw InputError("--gpus must be positive, is " + std::to_string(space.gpus));
  const int per_node = std::min(space.gpus, space.shape.gpus_per_node);
  if (space.gpus % per_node != 0)
    throw InputError("--gpus " + std::to_string(space.gpus) + " is not a whole number of " + std::to_string(per_node) + "-GPU nodes");
  ModelParallelPlan base = space.shape;
  base.nodes = space.gpus / per_node;
  base.gpus_per_node = per_node;
  const std::int64_t batch = base.global_batch;
  std::vector<ModelParallelPlan> plans;
  for (const std::int64_t tp : divisors(per_node, per_node)) {
    if (spec.heads % tp || spec.ffn_width() % tp || (spec.kv() % tp && tp % spec.kv())) continue;
    for (const std::int64_t pp : divisors(space.gpus / tp, spec.layers)) {
      if (spec.layers % pp) continue;
      const std::int64_t dp = space.gpus / (tp * pp);
      if (batch % dp) continue;
      for (const std::int64_t ep : spec.experts > 0 ? divisors(std::min<std::int64_t>(dp, spec.experts), spec.experts) : std::vector<std::int64_t>{1}) {
        if (spec.experts > 0 && (spec.experts % ep || dp % ep)) continue;
        for (const std::int64_t mb : divisors(batch / dp, space.max_micro_batch)) {
          const std::int64_t m = batch / (dp * mb);
          for (const std::int64_t v : divisors(spec.layers / pp, pp > 1 ? space.max_interleave : 1)) {
            if (v > 1 && m % pp) continue;
            for (const int zero : {0, 1, 2, 3})
              for (const Recompute recompute : {Recompute::none, Recompute::selective, Recompute::full})
                for (const bool sp : {false, true}) {
                  if (sp && tp == 1) continue;
                  ModelParallelPlan plan = base;
                  plan.tp = static_cast<int>(tp), plan.pp = static_cast<int>(pp), plan.virtual_stages = static_cast<int>(v);
                  plan.ep = static_cast<int>(ep), plan.micro_batch = mb, plan.zero = zero, plan.recompute = recompute;
                  plan.sequence_parallel = sp;
                  try {
                    plan.validate(spec, hw);
                  } catch (const InputError&) {
                    continue;  // a combination the cheap checks above let through
                  }
                  plans.push_back(plan);
                }
          }
        }
      }
    }
  }
  return plans;
}

PlanSearchResult search_plans(ModelParallelEvaluator& evaluator, const PlanSearchSpace& space, int top) {
  const auto started = std::chrono::steady_clock::now();
  const TransformerSpec& spec = evaluator.spec();
  if (top < 1) throw InputError("--top must be positive, is " + std::to_string(top));
  const std::vector<ModelParallelPlan> plans = enumerate_plans(spec, evaluator.hardware(), space);
  if (plans.empty())
    throw InputError(spec.name + " on " + std::to_string(space.gpus) + " GPUs: no plan divides the layers, heads and global batch " +
                     std::to_string(space.shape.global_batch) + " (try a global batch that is a multiple of the GPU count)");
  PlanSearchResult result;
  struct Candidate {
    std::size_t plan;
    double bound;
  };
  std::vector<Candidate> fitting;
  double closest_shortfall = 0;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    ++result.configs_evaluated;
    ModelParallelMemory memory;
    const std::optional<double> bound = evaluator.lower_bound_if_fits(plans[i], memory);
    if (bound) {
      fitting.push_back({i, *bound});
    } else if (!result.closest || memory.shortfall() < closest_shortfall) {
      result.closest = plans[i], result.closest_memory = memory;
      closest_shortfall = memory.shortfall();
    }
  }
  result.configs_fitting = static_cast<std::int64_t>(fitting.size());
  std::sort(fitting.begin(), fitting.end(), [](const Candidate& a, const Candidate& b) { return a.bound < b.bound; });
  // Branch and bound: a plan whose bound is no better than the top-th time found cannot enter.
  std::vector<std::pair<double, std::size_t>> timed;  // (seconds, plan), the best `top` kept sorted
  for (const Candidate& c : fitting) {
    if (static_cast<int>(timed.size()) == top && c.bound >= timed.back().first) break;
    ++result.configs_simulated;
    const double t = evaluator.iteration_seconds(plans[c.plan]);
    const auto at = std::upper_bound(timed.begin(), timed.end(), std::make_pair(t, c.plan));
    timed.insert(at, {t, c.plan});
    if (static_cast<int>(timed.size()) > top) timed.pop_back();
  }
  for (const auto& [seconds, index] : timed) result.best.push_back({evaluator.predict(plans[index]), 0.0});
  if (!result.best.empty()) result.closest.reset();
  const std::vector<double> chance = chance_fastest(result.best);
  for (std::size_t i = 0; i < chance.size(); ++i) result.best[i].chance_fastest = chance[i];
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace dnnperf
