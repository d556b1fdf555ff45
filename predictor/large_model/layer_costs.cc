#include "predictor/large_model/layer_costs.h"

#include <set>

#include "core/analysis/saved_activations.h"
#include "models/compute/profile_model.h"
#include "predictor/prediction/predict.h"

namespace dnnperf {
namespace {

bool is_norm(OpKind k) { return k == OpKind::layer_norm || k == OpKind::rms_norm; }

// Element bytes of activations under the plan's precision.
double activation_element_bytes(Precision p) { return mixed_precision(p) ? 2.0 : 4.0; }

PartCost price_part(const Graph& g, const HardwareProfile& hw, const ModelParallelPlan& plan) {
  RunConfig run;
  run.precision = plan.precision;
  run.optimizer = Optimizer::adam;
  const PricedStep step = price_step(g, hw, run);
  PartCost c;
  const bool bounds = !step.low.empty();
  for (std::size_t i = 0; i < step.kernels.size(); ++i) {
    const Kernel& k = step.kernels[i];
    const double t = step.seconds[i], lo = bounds ? step.low[i] : t, hi = bounds ? step.high[i] : t;
    const OpKind kind = g.op(k.op).kind;
    const bool replicated = is_norm(kind) || kind == OpKind::dropout || kind == OpKind::add;
    if (replicated) (k.phase == Phase::forward ? c.replicated_forward_s : c.replicated_backward_s) += k.phase == Phase::update ? 0.0 : t;
    if (k.phase == Phase::forward) {
      c.forward_s += t, c.forward_low_s += lo, c.forward_high_s += hi;
      // The attention core: its batched GEMMs and the passes over the scores.
      if (k.op_kind == OpKind::attention && !g.op(k.op).attrs.flash) {
        const Op& op = g.op(k.op);
        const TensorShape& x = g.tensor(op.inputs[0]).shape;
        const std::int64_t scores = x[0] * op.attrs.heads * x[1] * x[1];
        if ((k.cls == KernelClass::gemm && k.gemm.batch > 1) || k.elements == scores) c.attention_core_s += t;
      }
    } else if (k.phase != Phase::update) {
      c.backward_s += t, c.backward_low_s += lo, c.backward_high_s += hi;
    }
  }
  const LoweringOptions lowering = lowering_for(plan.precision, true, Optimizer::adam);
  const std::vector<std::int64_t> saved = saved_activation_bytes(g, lowering.compute_dtype, lowering.fp8_gemms);
  const double es = activation_element_bytes(plan.precision);
  std::set<int> counted;
  for (std::size_t i = 0; i < saved.size(); ++i) {
    const Op& op = g.op(static_cast<int>(i));
    c.saved_bytes += static_cast<double>(saved[i]);
    if (is_norm(op.kind) || op.kind == OpKind::dropout || op.kind == OpKind::add) c.replicated_bytes += static_cast<double>(saved[i]);
    if (op.kind == OpKind::attention && !op.attrs.flash) {
      const TensorShape& x = g.tensor(op.inputs[0]).shape;
      const double scores = static_cast<double>(x[0] * op.attrs.heads * x[1] * x[1]);
      c.attention_core_bytes += es * scores + (op.attrs.p > 0 ? scores + es * scores : 0.0);  // as saved_activations.cc keeps them
    }
    // A norm's output saved by the projection after it lives, under sequence parallelism, as the
    // 1/tp shard that is all-gathered again in backward (Korthikanti et al. 2022, section 4.2.2).
    if (op.kind == OpKind::attention || op.kind == OpKind::linear || op.kind == OpKind::moe) {
      const int in = op.inputs[0];
      for (const Op& producer : g.ops())
        if (is_norm(producer.kind) && producer.outputs[0] == in && counted.insert(in).second)
          c.replicated_bytes += (lowering.fp8_gemms ? 1.0 : es) * static_cast<double>(g.tensor(in).shape.numel());  // as saved, 8-bit under FP8
    }
  }
  for (const Tensor& t : g.tensors()) {
    if (t.role == TensorRole::parameter) {
      c.parameters += t.shape.numel();
      if (t.name.find(".experts.") != std::string::npos) c.expert_parameters += t.shape.numel();
    }
    if (t.role == TensorRole::input && is_floating(t.dtype)) c.input_bytes += es * static_cast<double>(t.shape.numel());
  }
  return c;
}

}  // namespace

StageParts price_stage_parts(const TransformerSpec& spec, const HardwareProfile& hw, const ModelParallelPlan& plan) {
  TransformerShard shard;
  shard.batch = plan.micro_batch;
  shard.sequence = plan.sequence;
  shard.tp = plan.tp;
  shard.local_experts = spec.experts > 0 ? spec.experts / plan.ep : 0;
  const std::int64_t seq = plan.sequence ? plan.sequence : spec.sequence;
  const double es = activation_element_bytes(plan.precision);
  const double activation = es * static_cast<double>(plan.micro_batch * seq * spec.hidden);
  StageParts parts;
  // Layer 0 carries experts when the model has any; the first dense layer is found after it.
  std::int64_t dense_index = -1, moe_index = -1;
  for (std::int64_t i = 0; i < spec.layers; ++i) {
    std::int64_t& first = spec.is_moe_layer(i) ? moe_index : dense_index;
    if (first < 0) first = i;
  }
  if (dense_index >= 0) {
    parts.dense_layer = price_part(build_transformer_layer(spec, dense_index, shard), hw, plan);
    parts.dense_layer.tp_bytes = activation;
    parts.dense_layer.tp_collectives_forward = parts.dense_layer.tp_collectives_backward = 2;
  }
  if (moe_index >= 0) {
    parts.moe_layer = price_part(build_transformer_layer(spec, moe_index, shard), hw, plan);
    parts.moe_layer.tp_bytes = activation;
    parts.moe_layer.tp_collectives_forward = parts.moe_layer.tp_collectives_backward = 2;
    // Each token goes to top_k experts, within their capacity: that many copies of it leave.
    parts.moe_layer.dispatch_bytes = activation * static_cast<double>(spec.top_k) * std::min(spec.capacity_factor, static_cast<double>(spec.experts) / spec.top_k);
    parts.moe_layer.dispatches = plan.ep > 1 ? 2 : 0;
  }
  parts.embedding = price_part(build_transformer_embedding(spec, shard), hw, plan);
  parts.embedding.tp_bytes = activation;
  parts.embedding.tp_collectives_forward = 1;  // the vocab-parallel lookup's sum
  parts.head = price_part(build_transformer_head(spec, shard), hw, plan);
  parts.head.tp_bytes = activation;
  parts.head.tp_collectives_backward = 1;  // the gradient of the head's input
  return parts;
}

double optimizer_step_seconds(const HardwareProfile& hw, double parameters, Precision precision) {
  if (parameters <= 0) return 0;
  Kernel k;
  k.cls = KernelClass::elementwise;
  k.phase = Phase::update;
  k.dtype = DType::f32;
  // Megatron-LM's Adam is fused (apex's or Transformer Engine's multi-tensor kernels): one
  // streaming pass, not torch.optim's per-tensor kernels that the pass family "adam" prices.
  k.elements = static_cast<std::int64_t>(parameters);
  k.flops = 12 * parameters;
  const double half = mixed_precision(precision) ? 2.0 : 0.0;
  k.bytes_read = parameters * (4 + 4 + 8);           // gradient, master weight, two moments
  k.bytes_written = parameters * (4 + 8 + half);     // master weight, moments, the working copy
  k.footprint_bytes = k.bytes_read + k.bytes_written;
  return ProfileComputeModel(hw).seconds(k, ExecutionOptions{});
}

}  // namespace dnnperf
