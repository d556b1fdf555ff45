#pragma once
// ModelParallelPlan: how a large transformer's training step is spread over GPUs, with every
// degree Megatron-LM and DeepSpeed offer: tensor (Megatron's column and row split, optionally with
// sequence parallelism), pipeline (1F1B, or interleaved with v virtual stages per GPU), data (with
// ZeRO 1/2/3 sharding; ZeRO-1 is Megatron's distributed optimizer), expert parallelism for
// mixture-of-experts layers, micro-batches with gradient accumulation, and activation
// recomputation.
//
// Ranks are placed as Megatron places them: tensor-parallel ranks fastest (inside a node), then
// data-parallel (expert-parallel groups are carved out of them), then pipeline stages.
#include <cstdint>
#include <string_view>
#include <optional>
#include <vector>

#include "networks/zoo/transformer_spec.h"
#include "predictor/prediction/run_config.h"

namespace dnnperf {

struct HardwareProfile;

/// What backward recomputes instead of keeping (Korthikanti et al. 2022): nothing; the attention
/// core of each layer (its scores, softmax and dropout, the memory that grows with s^2); or each
/// layer's whole forward from its input.
enum class Recompute : std::uint8_t { none, selective, full };
std::string_view recompute_name(Recompute r);
std::optional<Recompute> parse_recompute(std::string_view name);

struct ModelParallelPlan {
  int nodes = 1;
  int gpus_per_node = 8;
  int tp = 1;              // tensor-parallel degree (inside one node)
  int pp = 1;              // pipeline stages
  int virtual_stages = 1;  // model chunks per GPU (interleaved 1F1B when > 1)
  /// The transformer layers of each of the pp x virtual_stages chunks, in pipeline order (chunk c
  /// on rank c mod pp), as a hand-placed layout gives them (pipeline_layout.h); empty: the layers
  /// split evenly. The embedding is in the first chunk, the output layer in the last.
  std::vector<std::int64_t> chunk_layers;
  int ep = 1;              // expert-parallel degree (divides the data-parallel degree)
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 1;
  std::int64_t sequence = 0;  // 0: the model's context
  /// 0: replicated optimizer; 1: optimizer state sharded over data-parallel ranks (Megatron's
  /// distributed optimizer); 2: and gradients; 3: and parameters (FSDP), gathered per use.
  int zero = 0;
  Recompute recompute = Recompute::none;
  bool sequence_parallel = false;
  /// Data-parallel gradient reduction overlapped with backward, chunk by chunk (Megatron's
  /// --overlap-grad-reduce); off: after the last backward.
  bool overlap_grad_reduce = false;
  /// Sends between pipeline stages overlapped with computation (Megatron's
  /// --overlap-p2p-communication); off: each exchange blocks the stage, as Megatron's 1F1B does
  /// by default.
  bool overlap_p2p = false;
  Precision precision = Precision::bf16;
  /// Bytes the allocator holds beyond what is allocated, as a fraction of activations (the
  /// caching allocator's fragmentation); 0: none assumed.
  double fragmentation = 0;

  int gpus() const { return nodes * gpus_per_node; }
  int dp() const { return gpus() / (tp * pp); }
  std::int64_t micro_batches() const { return global_batch / (static_cast<std::int64_t>(dp()) * micro_batch); }

  /// Throws InputError naming the field: degrees that do not divide the GPUs, the layers (by
  /// pp x virtual_stages, unless chunk_layers places them: then their count and sum), the heads, kv heads and FFN (by tp; the vocabulary is padded), the experts (by ep),
  /// the global batch (by dp x micro-batch); TP beyond one node; interleaving whose micro-batch
  /// count is not a multiple of pp; a half-precision type the device lacks.
  void validate(const TransformerSpec& spec, const HardwareProfile& hardware) const;
};

}  // namespace dnnperf
