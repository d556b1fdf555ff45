#pragma once
// TransformerSpec: a decoder-only transformer by its hyper-parameters, the form large-model
// training is planned in. The zoo builds GPT-2/3, the Megatron shapes, Llama 2/3 and Mixtral from
// it; a network file may give one in a few lines (docs/network-format.md):
//
//   {"format": "dnnperf.transformer", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
//    "ffn": 14336, "seq": 8192, "vocab": 128256, "mlp": "swiglu", "norm": "rms", "position": "rotary"}
//
// The same spec builds the whole network (a Graph, for one device) and one layer of it as a
// tensor-parallel rank holds it (predictor/large_model/), so both price the same kernels.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/graph/graph.h"

namespace dnnperf {

struct NetworkOptions;

enum class MlpKind : std::uint8_t { gelu, swiglu };
enum class NormKind : std::uint8_t { layer_norm, rms_norm };
enum class PositionKind : std::uint8_t { learned, rotary };

struct TransformerSpec {
  std::string name = "transformer";
  std::int64_t layers = 12;
  std::int64_t hidden = 768;
  std::int64_t heads = 12;
  /// Key/value heads (grouped-query attention; 1: multi-query); 0: as many as heads.
  std::int64_t kv_heads = 0;
  /// Width of the feed-forward layer (each expert's, in a mixture); 0: 4 x hidden.
  std::int64_t ffn = 0;
  /// Context length: the learned position table's size and the default sequence.
  std::int64_t sequence = 2048;
  std::int64_t vocabulary = 50257;
  MlpKind mlp = MlpKind::gelu;
  NormKind norm = NormKind::layer_norm;
  PositionKind position = PositionKind::learned;
  /// The LM head reuses the token embedding (GPT) instead of a weight of its own (Llama).
  bool tied_head = true;
  /// Linear layers and layer norms carry biases (GPT) or not (Llama, Mixtral).
  bool bias = true;
  /// Attention as one fused kernel that keeps no s^2 probabilities (FlashAttention).
  bool flash = false;
  double dropout = 0.0;
  /// Mixture of experts: `experts` > 0 replaces the MLP of every `moe_every`-th layer (counting
  /// from the first) with that many experts, each token routed to `top_k`.
  std::int64_t experts = 0;
  std::int64_t top_k = 2;
  double capacity_factor = 1.0;
  std::int64_t moe_every = 1;

  std::int64_t kv() const { return kv_heads ? kv_heads : heads; }
  std::int64_t head_dim() const { return hidden / heads; }
  std::int64_t ffn_width() const { return ffn ? ffn : 4 * hidden; }
  /// The vocabulary as a tensor-parallel group of `tp` holds it: padded to a multiple of 128 x tp,
  /// as Megatron-LM pads it (--make-vocab-size-divisible-by 128), so that it splits evenly.
  std::int64_t padded_vocabulary(std::int64_t tp) const { return (vocabulary + 128 * tp - 1) / (128 * tp) * (128 * tp); }
  bool is_moe_layer(std::int64_t layer) const { return experts > 0 && layer % moe_every == 0; }
  std::int64_t moe_layers() const { return experts > 0 ? (layers + moe_every - 1) / moe_every : 0; }

  /// Throws InputError naming `name` and the field: zero layers or heads, heads not dividing
  /// hidden, kv_heads not dividing heads, top_k beyond experts, a sequence beyond what one tensor
  /// may hold.
  void validate() const;
};

/// Parameters by part, exactly as the built graph holds them.
struct TransformerParameters {
  std::int64_t embedding = 0;      // token table (and the learned position table)
  std::int64_t per_dense_layer = 0;  // one layer with a plain MLP
  std::int64_t per_moe_layer = 0;    // one layer with experts (all of them)
  std::int64_t per_moe_layer_active = 0;  // what one token uses of it: top_k experts
  std::int64_t final_norm = 0;
  std::int64_t head = 0;           // the LM head's own weight (0 when tied)
  std::int64_t total = 0;
  std::int64_t active = 0;         // per token: the dense layers and top_k experts of each mixture
};
TransformerParameters transformer_parameters(const TransformerSpec& spec);

/// FLOPs of one training step (forward and backward, no recomputation) for `tokens` tokens of
/// `sequence` length: 3 x (2 x active matmul parameters + attention's 4 s h per layer) per token,
/// the accounting of Narayanan et al. 2021, eq. 3, generalised to grouped-query and mixture
/// layers. Model-FLOPs utilisation divides this by time and peak.
double transformer_training_flops(const TransformerSpec& spec, std::int64_t sequence, double tokens);

/// The whole network for one device (batch and sequence from `options`; sequence defaults to the
/// context), with names as Hugging Face's GPT-2 modules for GPT-style specs.
Graph build_transformer(const TransformerSpec& spec, const NetworkOptions& options);

/// A part of the network as one tensor-parallel rank of `tp` holds it, for `batch` sequences of
/// `sequence` tokens: its heads, kv heads and MLP width divided by `tp` (Megatron's column and
/// row split; kv heads fewer than tp are replicated), the vocabulary of the embedding and head
/// divided too (vocab-parallel, padded: padded_vocabulary()). `local_experts`: the experts a rank holds (0: all).
struct TransformerShard {
  std::int64_t batch = 1;
  std::int64_t sequence = 0;  // 0: the context
  std::int64_t tp = 1;
  std::int64_t local_experts = 0;
};
/// One layer (norms, attention, residuals, MLP or experts), input and output [batch, seq, hidden].
Graph build_transformer_layer(const TransformerSpec& spec, std::int64_t layer, const TransformerShard& shard);
/// The embedding (token and learned positions), output [batch, seq, hidden].
Graph build_transformer_embedding(const TransformerSpec& spec, const TransformerShard& shard);
/// The final norm, the LM head and the loss.
Graph build_transformer_head(const TransformerSpec& spec, const TransformerShard& shard);

/// Reads the network file form above; `where` names the file in errors.
TransformerSpec transformer_spec_from_json(const nlohmann::json& document, const std::string& where);
/// True if the document is in that form ("format": "dnnperf.transformer").
bool is_transformer_document(const nlohmann::json& document);

/// The hyper-parameters of a zoo decoder transformer (`gpt3-175b`, `llama3-70b`,
/// `transformer:layers=...`); nullopt for other networks. InputError for a bad setting.
std::optional<TransformerSpec> zoo_transformer_spec(std::string_view spec);

/// The spec behind a zoo name or a transformer file (`gpt3-175b`, `llama3-70b`,
/// `transformer:layers=...`, `model.json`); nullopt for other networks.
std::optional<TransformerSpec> find_transformer_spec(std::string_view network);

}  // namespace dnnperf
