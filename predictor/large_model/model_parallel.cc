#include "predictor/large_model/model_parallel.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"
#include "models/comm/collectives.h"
#include "predictor/prediction/predict.h"

namespace dnnperf {
namespace {

double element_bytes(Precision p) { return mixed_precision(p) ? 2.0 : 4.0; }

MathMode math_of(Precision p) {
  switch (p) {
    case Precision::bf16:
    case Precision::fp8: return MathMode::bf16_tensor;  // FP8 runs' utilisation is quoted against the 16-bit peak
    case Precision::fp16: return MathMode::fp16_tensor;
    case Precision::tf32: return MathMode::tf32_tensor;
    case Precision::fp32: return MathMode::fp32;
  }
  return MathMode::fp32;
}

// A group of `ranks` placed `per_node` to a node, `streams` such groups sharing each node's NICs
// (the tensor-parallel ranks' data-parallel groups all cross at once).
CommGroup group_of(const HardwareProfile& hw, int ranks, int per_node, int streams) {
  ParallelPlan shape;
  shape.devices_per_node = std::max(1, std::min(ranks, per_node));
  shape.nodes = (ranks + shape.devices_per_node - 1) / shape.devices_per_node;
  CommGroup g = comm_group(hw, shape);
  const double nics = static_cast<double>(hw.cluster.nics_per_node) / std::max(1, streams);
  g.nics_per_node = std::max(1, static_cast<int>(nics));
  if (nics < 1) g.inter.beta /= nics;
  return g;
}

// What the plan does to one part per micro-batch, at one bound of the kernel models.
struct PartTimes {
  double forward = 0, backward = 0, recompute = 0;  // kernels
  double tp_forward = 0, tp_backward = 0, ep = 0;   // collectives on the compute stream
  double activation = 0;                            // kept per in-flight micro-batch
};

enum class Bound { low, center, high };

// `wait` stretches the kernels for the slowest GPU of the plan (sync_wait_factor): every GPU
// waits for it in the collectives and sends of each micro-batch.
PartTimes part_times(const PartCost& c, const ModelParallelPlan& plan, double tp_slot, double all_to_all, Bound bound, bool is_layer, double wait) {
  const double t = plan.tp;
  const double sp = plan.sequence_parallel ? 1.0 - 1.0 / t : 0.0;
  const double f = bound == Bound::low ? c.forward_low_s : bound == Bound::high ? c.forward_high_s : c.forward_s;
  const double b = bound == Bound::low ? c.backward_low_s : bound == Bound::high ? c.backward_high_s : c.backward_s;
  const double scale_f = c.forward_s > 0 ? f / c.forward_s : 1.0, scale_b = c.backward_s > 0 ? b / c.backward_s : 1.0;
  PartTimes p;
  p.forward = wait * (f - sp * c.replicated_forward_s * scale_f);
  p.backward = wait * (b - sp * c.replicated_backward_s * scale_b);
  p.tp_forward = c.tp_collectives_forward * tp_slot;
  p.tp_backward = c.tp_collectives_backward * tp_slot;
  p.ep = c.dispatches * all_to_all;
  const double saved = c.saved_bytes - sp * c.replicated_bytes;
  p.activation = saved;
  if (!is_layer) return p;
  switch (plan.recompute) {
    case Recompute::none: break;
    case Recompute::selective:
      p.recompute = wait * c.attention_core_s * scale_f;
      p.activation = saved - c.attention_core_bytes;
      break;
    case Recompute::full:
      p.recompute = p.forward + p.tp_forward + p.ep;
      p.activation = c.input_bytes / (plan.sequence_parallel ? t : 1.0);
      break;
  }
  return p;
}

struct Evaluation {
  PipelineSchedule schedule;
  std::vector<double> parameters, experts;  // per stage's GPU
  std::vector<double> chunk_compute, chunk_recompute, chunk_tp, chunk_ep;  // per chunk, per micro-batch
  double transient = 0;                     // full recomputation: one layer's activations rebuilt at a time
  double wait = 1;                          // the kernels' stretch for the slowest GPU (sync_wait_factor)
  double flops_recomputed = 0;              // per micro-batch per pipeline
};

}  // namespace

ModelParallelEvaluator::ModelParallelEvaluator(TransformerSpec spec, const HardwareProfile& hardware) : spec_(std::move(spec)), hardware_(hardware) {
  spec_.validate();
}

const StageParts& ModelParallelEvaluator::parts(const ModelParallelPlan& plan) {
  const auto key = std::make_tuple(plan.tp, plan.ep, plan.micro_batch, plan.sequence, static_cast<int>(plan.precision));
  auto it = parts_.find(key);
  if (it == parts_.end()) it = parts_.emplace(key, price_stage_parts(spec_, hardware_, plan)).first;
  return it->second;
}

namespace {

Evaluation evaluate(const TransformerSpec& spec, const HardwareProfile& hw, const ModelParallelPlan& plan, const StageParts& parts, Bound bound) {
  const int p = plan.pp, v = plan.virtual_stages, chunks = p * v, gpn = plan.gpus_per_node, tp = plan.tp, dp = plan.dp();
  const std::int64_t m = plan.micro_batches();
  // Plans the search evaluates split evenly: no vector per evaluation for them.
  const auto layers_of = [&](int j) { return plan.chunk_layers.empty() ? spec.layers / chunks : plan.chunk_layers[static_cast<std::size_t>(j)]; };
  const std::int64_t seq = plan.sequence ? plan.sequence : spec.sequence;
  const double es = element_bytes(plan.precision);
  const double activation = es * static_cast<double>(plan.micro_batch * seq * spec.hidden);
  // Tensor-parallel collectives: an all-reduce of the activation, or with sequence parallelism
  // an all-gather and a reduce-scatter of it, inside the node.
  const CommGroup tp_group = group_of(hw, tp, tp, 1);
  const double tp_slot = tp == 1 ? 0.0
                         : plan.sequence_parallel ? collective_seconds(Collective::all_gather, activation, tp_group) +
                                                        collective_seconds(Collective::reduce_scatter, activation, tp_group)
                                                  : collective_seconds(Collective::allreduce, activation, tp_group);
  const int dp_per_node = std::max(1, gpn / tp);
  const CommGroup ep_group = group_of(hw, plan.ep, dp_per_node, tp);
  const double all_to_all = plan.ep > 1 ? collective_seconds(Collective::all_to_all, parts.moe_layer.dispatch_bytes, ep_group) : 0.0;
  // Every GPU of the plan meets the others within each micro-batch (tensor-parallel collectives,
  // pipeline sends) and at the optimizer step, so the slowest of them paces all: its persistent
  // speed in full, its wander averaged over the step's micro-batches.
  const double wait = sync_wait_factor(hw.device, plan.gpus(), m);
  const PartTimes dense = part_times(parts.dense_layer, plan, tp_slot, 0, bound, true, wait);
  const PartTimes moe = part_times(parts.moe_layer, plan, tp_slot, all_to_all, bound, true, wait);
  const PartTimes embed = part_times(parts.embedding, plan, tp_slot, 0, bound, false, wait);
  const PartTimes head = part_times(parts.head, plan, tp_slot, 0, bound, false, wait);
  const CommGroup dp_group = group_of(hw, dp, dp_per_node, tp);
  const CommGroup expert_dp_group = group_of(hw, dp / plan.ep, std::max(1, dp_per_node / plan.ep), tp * plan.ep);
  const double weight_bytes = element_bytes(plan.precision) == 2 ? 2.0 : 4.0;
  // The gradients' sync over a group: all-reduce of fp32 gradients; sharded (ZeRO >= 1,
  // Megatron's distributed optimizer) a reduce-scatter of them and an all-gather of the updated
  // weights; ZeRO-3 reduce-scatters after every micro-batch.
  const auto sync = [&](double params, const CommGroup& g) {
    if (params <= 0 || g.ranks <= 1) return 0.0;
    if (plan.zero == 0) return collective_seconds(Collective::allreduce, 4 * params, g);
    const double scatter = collective_seconds(Collective::reduce_scatter, 4 * params, g);
    if (plan.zero == 3) return static_cast<double>(m) * scatter;
    return scatter + collective_seconds(Collective::all_gather, weight_bytes * params, g);
  };
  Evaluation e;
  e.wait = wait;
  e.schedule.stages = p;
  e.schedule.virtual_stages = v;
  e.schedule.micro_batches = m;
  e.schedule.chunks.resize(static_cast<std::size_t>(chunks));
  e.schedule.overlap_gradient_sync = plan.overlap_grad_reduce || plan.zero == 3;
  e.schedule.blocking_sends = !plan.overlap_p2p;
  e.parameters.assign(static_cast<std::size_t>(p), 0.0);
  e.experts.assign(static_cast<std::size_t>(p), 0.0);
  e.chunk_compute.assign(static_cast<std::size_t>(chunks), 0.0);
  e.chunk_recompute = e.chunk_tp = e.chunk_ep = e.chunk_compute;
  const CommGroup pair = group_of(hw, 2, 1, gpn);
  const double tied_sync = spec.tied_head && p > 1 ? collective_seconds(Collective::allreduce, 4.0 * static_cast<double>(parts.embedding.parameters), pair) : 0.0;
  std::int64_t first_layer = 0;
  for (int j = 0; j < chunks; ++j) {
    const std::int64_t layers = layers_of(j);
    std::int64_t moe_layers = 0;
    for (std::int64_t l = first_layer; l < first_layer + layers; ++l) moe_layers += spec.is_moe_layer(l) ? 1 : 0;
    first_layer += layers;
    const double n_moe = static_cast<double>(moe_layers), n_dense = static_cast<double>(layers - moe_layers);
    const auto sum = [&](auto field) {
      double s = n_dense * field(dense) + n_moe * field(moe);
      if (j == 0) s += field(embed);
      if (j == chunks - 1) s += field(head);
      return s;
    };
    ChunkWork& w = e.schedule.chunks[static_cast<std::size_t>(j)];
    const double compute_f = sum([](const PartTimes& t) { return t.forward; });
    const double compute_b = sum([](const PartTimes& t) { return t.backward; });
    const double recompute = sum([](const PartTimes& t) { return t.recompute; });
    const double tp_f = sum([](const PartTimes& t) { return t.tp_forward; }), tp_b = sum([](const PartTimes& t) { return t.tp_backward; });
    const double ep = sum([](const PartTimes& t) { return t.ep; });
    // Full recomputation repeats the forward's collectives; its time is in `recompute` already.
    w.forward_s = compute_f + tp_f + ep;
    w.backward_s = compute_b + recompute + tp_b + ep;
    w.activation_bytes = sum([](const PartTimes& t) { return t.activation; });
    e.chunk_compute[static_cast<std::size_t>(j)] = compute_f + compute_b;
    e.chunk_recompute[static_cast<std::size_t>(j)] = recompute;
    e.chunk_tp[static_cast<std::size_t>(j)] = tp_f + tp_b;
    e.chunk_ep[static_cast<std::size_t>(j)] = 2 * ep;
    double params = n_dense * static_cast<double>(parts.dense_layer.parameters) + n_moe * static_cast<double>(parts.moe_layer.parameters);
    double experts = n_moe * static_cast<double>(parts.moe_layer.expert_parameters);
    if (j == 0) params += static_cast<double>(parts.embedding.parameters);
    if (j == chunks - 1) params += static_cast<double>(parts.head.parameters);
    w.gradient_sync_s = sync(params - experts, dp_group) + sync(experts, expert_dp_group) + (j == 0 || j == chunks - 1 ? tied_sync : 0.0);
    if (plan.zero == 3) w.parameter_gather_s = collective_seconds(Collective::all_gather, weight_bytes * (params - experts), dp_group) +
                                              collective_seconds(Collective::all_gather, weight_bytes * experts, expert_dp_group);
    e.parameters[static_cast<std::size_t>(j % p)] += params;
    e.experts[static_cast<std::size_t>(j % p)] += experts;
  }
  if (plan.recompute == Recompute::full)
    e.transient = std::max(parts.dense_layer.saved_bytes, parts.moe_layer.saved_bytes) -
                  (plan.sequence_parallel ? 1.0 - 1.0 / tp : 0.0) * std::max(parts.dense_layer.replicated_bytes, parts.moe_layer.replicated_bytes);
  // Megatron's scatter-gather: each tensor-parallel rank sends its 1/tp of the activation; with
  // every stage on nodes of its own, all the node's GPUs send across at once.
  const bool across_nodes = static_cast<std::int64_t>(tp) * dp * p > gpn;
  e.schedule.send_s = p > 1 ? send_recv_seconds(activation / tp, group_of(hw, 2, across_nodes ? 1 : 2, gpn), across_nodes, gpn) : 0.0;
  e.schedule.optimizer_s.resize(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    const double dense_params = e.parameters[static_cast<std::size_t>(r)] - e.experts[static_cast<std::size_t>(r)];
    const double held = plan.zero >= 1 ? dense_params / dp + e.experts[static_cast<std::size_t>(r)] / (static_cast<double>(dp) / plan.ep)
                                       : e.parameters[static_cast<std::size_t>(r)];
    e.schedule.optimizer_s[static_cast<std::size_t>(r)] = wait * optimizer_step_seconds(hw, held, plan.precision);
  }
  return e;
}

ModelParallelMemory worst_stage(const ModelParallelPlan& plan, const HardwareProfile& hw, const Evaluation& e, const std::vector<double>& peaks,
                                const std::vector<int>& stages) {
  ModelParallelMemory worst;
  bool first = true;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const int r = stages[i];
    ModelParallelMemory m = stage_memory(plan, hw, e.parameters[static_cast<std::size_t>(r)], e.experts[static_cast<std::size_t>(r)], peaks[i] + e.transient);
    m.stage = r;
    if (first || m.total() > worst.total()) worst = m;
    first = false;
  }
  return worst;
}

}  // namespace

namespace {

// Evenly split, the first stage holds the most micro-batches in flight and the embedding, the
// last the head: no stage between them can need more. A hand-placed layout may load any stage.
ModelParallelMemory memory_of(const ModelParallelPlan& plan, const HardwareProfile& hw, const Evaluation& e, PipelineSimulator& simulator) {
  std::vector<int> stages{0};
  if (!plan.chunk_layers.empty())
    for (int r = 1; r + 1 < plan.pp; ++r) stages.push_back(r);
  if (plan.pp > 1) stages.push_back(plan.pp - 1);
  std::vector<double> peaks;
  for (const int r : stages) peaks.push_back(simulator.peak_activation_bytes(e.schedule, r));
  return worst_stage(plan, hw, e, peaks, stages);
}

}  // namespace

ModelParallelMemory ModelParallelEvaluator::memory(const ModelParallelPlan& plan) {
  plan.validate(spec_, hardware_);
  return memory_of(plan, hardware_, evaluate(spec_, hardware_, plan, parts(plan), Bound::center), simulator_);
}

std::optional<double> ModelParallelEvaluator::lower_bound_if_fits(const ModelParallelPlan& plan, ModelParallelMemory& memory) {
  const Evaluation e = evaluate(spec_, hardware_, plan, parts(plan), Bound::center);
  memory = memory_of(plan, hardware_, e, simulator_);
  if (!memory.fits()) return std::nullopt;
  double bound = 0;
  const PipelineSchedule& s = e.schedule;
  for (int r = 0; r < s.stages; ++r) {
    double work = s.optimizer_s[static_cast<std::size_t>(r)];
    for (int local = 0; local < s.virtual_stages; ++local) {
      const ChunkWork& w = s.chunks[static_cast<std::size_t>(local * s.stages + r)];
      work += static_cast<double>(s.micro_batches) * (w.forward_s + w.backward_s);
    }
    bound = std::max(bound, work);
  }
  return bound;
}

double ModelParallelEvaluator::iteration_seconds(const ModelParallelPlan& plan) {
  return simulator_.run(evaluate(spec_, hardware_, plan, parts(plan), Bound::center).schedule).iteration_s;
}

ModelParallelPrediction ModelParallelEvaluator::predict(const ModelParallelPlan& plan) {
  plan.validate(spec_, hardware_);
  const StageParts& stage_parts = parts(plan);
  const Evaluation e = evaluate(spec_, hardware_, plan, stage_parts, Bound::center);
  const PipelineResult r = simulator_.run(e.schedule);
  ModelParallelPrediction out;
  out.network = spec_.name;
  out.hardware = hardware_.name;
  out.plan = plan;
  out.micro_batches = plan.micro_batches();
  out.parameters = transformer_parameters(spec_).total;
  out.iteration_s = out.low_s = out.high_s = r.iteration_s;
  out.sync_wait = e.wait;
  const bool bounded = stage_parts.dense_layer.forward_low_s != stage_parts.dense_layer.forward_s ||
                       stage_parts.dense_layer.backward_high_s != stage_parts.dense_layer.backward_s;
  if (bounded) {
    out.low_s = simulator_.run(evaluate(spec_, hardware_, plan, stage_parts, Bound::low).schedule).iteration_s;
    out.high_s = simulator_.run(evaluate(spec_, hardware_, plan, stage_parts, Bound::high).schedule).iteration_s;
  }
  const std::int64_t seq = plan.sequence ? plan.sequence : spec_.sequence;
  const double tokens = static_cast<double>(plan.global_batch) * static_cast<double>(seq);
  out.tokens_per_s = tokens / out.iteration_s;
  out.samples_per_s = static_cast<double>(plan.global_batch) / out.iteration_s;
  const double model_flops = transformer_training_flops(spec_, seq, tokens);
  // Recomputation's arithmetic: the layers' forward again (full), or the attention scores' (selective).
  const double head_flops = 3.0 * 2.0 * static_cast<double>(spec_.vocabulary) * static_cast<double>(spec_.hidden) * tokens;
  const double scores_forward = 4.0 * static_cast<double>(seq) * static_cast<double>(spec_.hidden) * static_cast<double>(spec_.layers) * tokens;
  const double recomputed = plan.recompute == Recompute::full ? (model_flops - head_flops) / 3.0
                            : plan.recompute == Recompute::selective && !spec_.flash ? scores_forward
                                                                                     : 0.0;
  const double gpus = plan.gpus();
  out.model_tflops_per_gpu = model_flops / out.iteration_s / gpus / 1e12;
  out.hardware_tflops_per_gpu = (model_flops + recomputed) / out.iteration_s / gpus / 1e12;
  out.mfu = model_flops / out.iteration_s / gpus / hardware_.peak(math_of(plan.precision));
  const int critical = r.critical_stage;
  auto& b = out.breakdown;
  const double mb = static_cast<double>(out.micro_batches);
  for (int local = 0; local < plan.virtual_stages; ++local) {
    const std::size_t j = static_cast<std::size_t>(local * plan.pp + critical);
    b.compute_s += mb * e.chunk_compute[j];
    b.recompute_s += mb * e.chunk_recompute[j];
    b.tp_comm_s += mb * e.chunk_tp[j];
    b.ep_comm_s += mb * e.chunk_ep[j];
    b.dp_comm_s += e.schedule.chunks[j].gradient_sync_s;
  }
  b.bubble_s = r.idle_s;
  b.pp_comm_s = r.sending_s;
  b.dp_comm_exposed_s = r.gradient_sync_exposed_s;
  b.optimizer_s = r.optimizer_s;
  std::vector<int> stages(static_cast<std::size_t>(plan.pp));
  std::vector<double> peaks(stages.size());
  for (int i = 0; i < plan.pp; ++i) {
    stages[static_cast<std::size_t>(i)] = i;
    peaks[static_cast<std::size_t>(i)] = simulator_.peak_activation_bytes(e.schedule, i);
  }
  out.memory = worst_stage(plan, hardware_, e, peaks, stages);
  return out;
}

ModelParallelPrediction predict_model_parallel(const TransformerSpec& spec, const HardwareProfile& hardware, const ModelParallelPlan& plan) {
  ModelParallelEvaluator evaluator(spec, hardware);
  return evaluator.predict(plan);
}

}  // namespace dnnperf
