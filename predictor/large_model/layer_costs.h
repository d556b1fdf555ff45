#pragma once
// The parts of a large transformer one GPU runs (a layer, the embedding, the LM head), priced
// once per configuration: each is built as its tensor-parallel shard holds it
// (networks/zoo/transformer_spec.h), lowered and priced by the device's kernel models
// (price_step), so a model-parallel plan and a one-GPU prediction price the same kernels. A
// layer's 96 copies in GPT-3, its micro-batches and its stages all share the one price.
#include <cstdint>

#include "networks/zoo/transformer_spec.h"
#include "predictor/large_model/model_parallel_plan.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

/// One part for one micro-batch on one GPU. Seconds are its kernels alone, their 95% interval
/// where the profile is calibrated (equal otherwise); communication is priced by the plan.
struct PartCost {
  double forward_s = 0, forward_low_s = 0, forward_high_s = 0;
  double backward_s = 0, backward_low_s = 0, backward_high_s = 0;  // data and weight gradients
  /// Forward kernels of the attention core (scores, mask, softmax, dropout, P V): what selective
  /// recomputation runs again in backward. 0 with flash attention, whose backward recomputes them
  /// anyway.
  double attention_core_s = 0;
  /// Kernels of the sequence-parallel region (norms, dropouts, residual adds): sequence
  /// parallelism runs them on 1/tp of the tokens.
  double replicated_forward_s = 0, replicated_backward_s = 0;
  /// Activations kept for backward without recomputation (bytes), the attention core's part of
  /// them, and the part in the sequence-parallel region (norms, dropouts, the norms' outputs)
  /// that sequence parallelism divides by tp.
  double saved_bytes = 0, attention_core_bytes = 0, replicated_bytes = 0;
  double input_bytes = 0;       // the part's input activation: what full recomputation keeps
  std::int64_t parameters = 0;  // on this rank
  std::int64_t expert_parameters = 0;  // of those, in experts (sharded by expert parallelism)
  /// Bytes of each tensor-parallel collective (the [b, s, hidden] activation) and how many the
  /// forward and the backward run; bytes each all-to-all of the expert dispatch moves per rank.
  double tp_bytes = 0;
  int tp_collectives_forward = 0, tp_collectives_backward = 0;
  double dispatch_bytes = 0;
  int dispatches = 0;  // all-to-alls per direction (dispatch and combine)
};

struct StageParts {
  PartCost dense_layer;  // a layer with a plain MLP
  PartCost moe_layer;    // a layer with experts (zero when the model has none)
  PartCost embedding;
  PartCost head;         // final norm, LM head, loss
};

/// Prices the parts for `plan`'s tensor-parallel degree, expert parallelism, micro-batch,
/// sequence and precision.
StageParts price_stage_parts(const TransformerSpec& spec, const HardwareProfile& hardware, const ModelParallelPlan& plan);

/// A memory-bound optimizer step over `parameters` on `hardware`: Adam on fp32 master weights
/// and moments, reading fp32 gradients and writing the half-precision copy.
double optimizer_step_seconds(const HardwareProfile& hardware, double parameters, Precision precision);

}  // namespace dnnperf
