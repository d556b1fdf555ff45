#include "networks/zoo/transformer_spec.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/graph/network_builder.h"
#include "networks/zoo/zoo.h"

namespace dnnperf {
namespace {

constexpr std::int64_t kMaxTransformerLayers = 100000;

// GPT-style specs keep Hugging Face's GPT-2 module names; the others take Meta's Llama names.
struct Names {
  const char* layer;
  const char* norm1;
  const char* attention;
  const char* norm2;
  const char* mlp_in;
  const char* mlp_gate;
  const char* mlp_out;
  const char* moe;
  const char* final_norm;
  const char* head;
  const char* token;
  const char* position;
};
constexpr Names kGptNames{"h.", "ln_1", "attn", "ln_2", "mlp.c_fc", "mlp.c_gate", "mlp.c_proj", "mlp.moe", "ln_f", "lm_head", "wte", "wpe"};
constexpr Names kLlamaNames{"layers.", "attention_norm", "attention", "ffn_norm", "feed_forward.w3", "feed_forward.w1", "feed_forward.w2",
                            "feed_forward.moe", "norm", "output", "tok_embeddings", "pos_embeddings"};
const Names& names_of(const TransformerSpec& s) { return s.position == PositionKind::learned ? kGptNames : kLlamaNames; }

int norm(NetworkBuilder& b, const TransformerSpec& s, int x, const char* name) {
  return s.norm == NormKind::rms_norm ? b.rms_norm(x, name) : b.layer_norm(x, name, 1e-5, s.bias);
}

// kv heads a rank of tp holds: its share, or one replicated head when there are fewer than tp.
std::int64_t kv_per_rank(const TransformerSpec& s, std::int64_t tp) { return std::max<std::int64_t>(1, s.kv() / tp); }

int layer(NetworkBuilder& b, const TransformerSpec& s, std::int64_t index, int x, const TransformerShard& shard) {
  const Names& n = names_of(s);
  auto scope = b.scope(n.layer + std::to_string(index));
  AttentionSpec a;
  a.heads = s.heads / shard.tp;
  a.kv_heads = kv_per_rank(s, shard.tp);
  a.head_dim = s.head_dim();
  a.dropout = s.dropout;
  a.causal = true;
  a.flash = s.flash;
  a.rotary = s.position == PositionKind::rotary;
  a.bias = s.bias;
  int y = b.attention(norm(b, s, x, n.norm1), a, n.attention);
  x = b.add(x, b.dropout(y, s.dropout, "attn_drop"), "attn_add");
  const int h = norm(b, s, x, n.norm2);
  const std::int64_t f = s.ffn_width() / shard.tp;
  if (s.is_moe_layer(index)) {
    MoeSpec m;
    m.experts = s.experts;
    m.local_experts = shard.local_experts;
    m.top_k = s.top_k;
    m.capacity_factor = s.capacity_factor;
    m.ffn = f;
    m.gated = s.mlp == MlpKind::swiglu;
    y = b.moe(h, m, n.moe);
  } else if (s.mlp == MlpKind::swiglu) {
    const int gate = b.unary(OpKind::silu, b.linear(h, f, n.mlp_gate, s.bias), "act");
    y = b.linear(b.binary(OpKind::mul, gate, b.linear(h, f, n.mlp_in, s.bias), "gate_mul"), s.hidden, n.mlp_out, s.bias);
  } else {
    y = b.linear(b.unary(OpKind::gelu, b.linear(h, f, n.mlp_in, s.bias), "act"), s.hidden, n.mlp_out, s.bias);
  }
  return b.add(x, b.dropout(y, s.dropout, "mlp_drop"), "mlp_add");
}

// Token embedding plus, for learned positions, the position table broadcast over the batch.
// Returns the embedded tokens and the token table.
// The token table holds `rows` of the vocabulary (a vocab-parallel shard, or all of it).
std::pair<int, int> embedding(NetworkBuilder& b, const TransformerSpec& s, std::int64_t batch, std::int64_t seq, std::int64_t rows) {
  const Names& n = names_of(s);
  const int ids = b.input("tokens", {batch, seq}, DType::i64);
  int x = b.embedding(ids, rows, s.hidden, n.token);
  const int table = b.graph().op(static_cast<int>(b.graph().ops().size()) - 1).inputs[1];
  if (s.position == PositionKind::learned) {
    const int positions = b.input("positions", {1, seq}, DType::i64);
    x = b.add(x, b.embedding(positions, s.sequence, s.hidden, n.position), "embed_add");
  }
  return {b.dropout(x, s.dropout, "drop"), table};
}

// The final norm, the LM head (on the token table when `table` >= 0, else a weight of its own for
// `vocabulary` rows) and the loss.
void head(NetworkBuilder& b, const TransformerSpec& s, int x, int table, std::int64_t vocabulary, std::int64_t batch, std::int64_t seq,
          bool with_loss) {
  const Names& n = names_of(s);
  x = norm(b, s, x, n.final_norm);
  const int logits = table >= 0 ? b.linear_with_weight(x, table, n.head) : b.linear(x, vocabulary, n.head, false);
  if (with_loss) b.set_output(b.cross_entropy(logits, b.input("labels", {batch, seq}, DType::i64), "loss"));
  else b.set_output(logits);
}

std::int64_t sequence_of(const TransformerSpec& s, std::int64_t requested) {
  const std::int64_t seq = requested ? requested : s.sequence;
  if (seq > s.sequence && s.position == PositionKind::learned)
    throw InputError(s.name + ": sequence " + std::to_string(seq) + " exceeds the context of " + std::to_string(s.sequence));
  return seq;
}

void check_shard(const TransformerSpec& s, const TransformerShard& shard) {
  s.validate();
  const auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw InputError(s.name + ": tensor-parallel degree " + std::to_string(shard.tp) + " " + what);
  };
  need(shard.tp >= 1, "must be positive");
  need(s.heads % shard.tp == 0, "does not divide heads=" + std::to_string(s.heads));
  need(s.kv() % shard.tp == 0 || shard.tp % s.kv() == 0, "and kv_heads=" + std::to_string(s.kv()) + " do not divide one another");
  need(s.ffn_width() % shard.tp == 0, "does not divide ffn=" + std::to_string(s.ffn_width()));
  if (shard.batch < 1) throw InputError(s.name + ": micro-batch must be positive, is " + std::to_string(shard.batch));
  if (shard.local_experts && (s.experts == 0 || s.experts % shard.local_experts != 0))
    throw InputError(s.name + ": " + std::to_string(shard.local_experts) + " experts per rank do not divide experts=" + std::to_string(s.experts));
}

}  // namespace

void TransformerSpec::validate() const {
  const auto need = [&](bool ok, const std::string& field, const std::string& what) {
    if (!ok) throw InputError(name + ": field '" + field + "' " + what);
  };
  need(layers >= 1 && layers <= kMaxTransformerLayers, "layers", "must be in [1, " + std::to_string(kMaxTransformerLayers) + "], is " + std::to_string(layers));
  need(hidden >= 1, "hidden", "must be positive, is " + std::to_string(hidden));
  need(heads >= 1, "heads", "must be positive, is " + std::to_string(heads));
  need(hidden % heads == 0, "heads", "does not fit: hidden " + std::to_string(hidden) + " is not divisible by " + std::to_string(heads) + " heads");
  need(kv_heads >= 0, "kv_heads", "must not be negative, is " + std::to_string(kv_heads));
  need(heads % kv() == 0, "kv_heads", "= " + std::to_string(kv()) + " does not divide heads = " + std::to_string(heads));
  need(ffn >= 0, "ffn", "must not be negative, is " + std::to_string(ffn));
  need(sequence >= 1, "seq", "must be positive, is " + std::to_string(sequence));
  need(vocabulary >= 1, "vocab", "must be positive, is " + std::to_string(vocabulary));
  need(dropout >= 0 && dropout < 1, "dropout", "must be in [0, 1), is " + std::to_string(dropout));
  need(experts >= 0, "experts", "must not be negative, is " + std::to_string(experts));
  if (experts > 0) {
    need(top_k >= 1 && top_k <= experts, "top_k", "must be in [1, experts = " + std::to_string(experts) + "], is " + std::to_string(top_k));
    need(capacity_factor > 0 && capacity_factor <= 64, "capacity_factor", "must be in (0, 64], is " + std::to_string(capacity_factor));
    need(moe_every >= 1, "moe_every", "must be positive, is " + std::to_string(moe_every));
  }
  const double elements = static_cast<double>(hidden) * static_cast<double>(std::max(ffn_width(), vocabulary));
  need(elements < static_cast<double>(kMaxTensorElements), "hidden", "= " + std::to_string(hidden) + " makes a weight that holds more than 2^48 elements");
}

TransformerParameters transformer_parameters(const TransformerSpec& s) {
  s.validate();
  TransformerParameters p;
  const std::int64_t h = s.hidden, d = s.head_dim(), kv = s.kv(), f = s.ffn_width(), g = s.mlp == MlpKind::swiglu ? 2 : 1;
  const std::int64_t norm = s.norm == NormKind::layer_norm && s.bias ? 2 * h : h;
  const std::int64_t qkv = (s.heads + 2 * kv) * d;
  const std::int64_t attention = qkv * h + h * h + (s.bias ? qkv + h : 0);
  const std::int64_t expert = g * f * h + f * h;  // mixtures' experts carry no biases
  const std::int64_t mlp = expert + (s.bias ? g * f + h : 0);
  p.embedding = s.vocabulary * h + (s.position == PositionKind::learned ? s.sequence * h : 0);
  p.per_dense_layer = 2 * norm + attention + mlp;
  if (s.experts > 0) {
    p.per_moe_layer = 2 * norm + attention + s.experts * h + s.experts * expert;
    p.per_moe_layer_active = 2 * norm + attention + s.experts * h + s.top_k * expert;
  }
  p.final_norm = norm;
  p.head = s.tied_head ? 0 : s.vocabulary * h;
  const std::int64_t moe = s.moe_layers(), dense = s.layers - moe;
  p.total = p.embedding + dense * p.per_dense_layer + moe * p.per_moe_layer + p.final_norm + p.head;
  p.active = p.embedding + dense * p.per_dense_layer + moe * p.per_moe_layer_active + p.final_norm + p.head;
  return p;
}

double transformer_training_flops(const TransformerSpec& s, std::int64_t sequence, double tokens) {
  const double h = static_cast<double>(s.hidden), d = static_cast<double>(s.head_dim());
  const double kv = static_cast<double>(s.kv()), f = static_cast<double>(s.ffn_width()), g = s.mlp == MlpKind::swiglu ? 2 : 1;
  const double attention_matmul = (static_cast<double>(s.heads) + 2 * kv) * d * h + h * h;
  const double mlp = (g + 1) * f * h;
  const double moe = static_cast<double>(s.experts) * h + static_cast<double>(s.top_k) * mlp;
  const double layers = static_cast<double>(s.layers), moe_layers = static_cast<double>(s.moe_layers());
  const double matmul = layers * attention_matmul + (layers - moe_layers) * mlp + moe_layers * moe + static_cast<double>(s.vocabulary) * h;
  const double scores = layers * 4.0 * static_cast<double>(sequence) * h;  // Q K^T and P V per token, unmasked
  return 3.0 * tokens * (2.0 * matmul + scores);
}

Graph build_transformer(const TransformerSpec& s, const NetworkOptions& o) {
  s.validate();
  // Refuse a graph past Graph::kMaxOps before building it: a layer's ops do not depend on the
  // batch or sequence, and the fewer of a dense and a mixture layer bound the whole from below.
  std::size_t per_layer = build_transformer_layer(s, 0, {1, 1, 1, 0}).ops().size();
  if (s.layers > 1) per_layer = std::min(per_layer, build_transformer_layer(s, 1, {1, 1, 1, 0}).ops().size());
  Graph::check_op_count(static_cast<std::int64_t>(per_layer) * s.layers, s.name + ": field 'layers'");
  const std::int64_t seq = sequence_of(s, o.sequence.value_or(0));
  NetworkBuilder b(s.name);
  b.reserve_hint(static_cast<std::size_t>(s.layers) * 18 + 16);
  auto [x, table] = embedding(b, s, o.batch, seq, s.vocabulary);
  const TransformerShard whole{o.batch, seq, 1, 0};
  for (std::int64_t i = 0; i < s.layers; ++i) x = layer(b, s, i, x, whole);
  head(b, s, x, s.tied_head ? table : -1, s.vocabulary, o.batch, seq, o.with_loss);
  return std::move(b).finish();
}

Graph build_transformer_layer(const TransformerSpec& s, std::int64_t index, const TransformerShard& shard) {
  check_shard(s, shard);
  if (index < 0 || index >= s.layers) throw InputError(s.name + ": layer " + std::to_string(index) + " does not exist");
  const std::int64_t seq = sequence_of(s, shard.sequence);
  NetworkBuilder b(s.name + ".layer");
  const int x = b.activation_input("hidden_states", {shard.batch, seq, s.hidden});
  b.set_output(layer(b, s, index, x, shard));
  return std::move(b).finish();
}

Graph build_transformer_embedding(const TransformerSpec& s, const TransformerShard& shard) {
  check_shard(s, shard);
  const std::int64_t seq = sequence_of(s, shard.sequence);
  NetworkBuilder b(s.name + ".embedding");
  b.set_output(embedding(b, s, shard.batch, seq, s.padded_vocabulary(shard.tp) / shard.tp).first);
  return std::move(b).finish();
}

Graph build_transformer_head(const TransformerSpec& s, const TransformerShard& shard) {
  check_shard(s, shard);
  const std::int64_t seq = sequence_of(s, shard.sequence);
  NetworkBuilder b(s.name + ".head");
  const int x = b.activation_input("hidden_states", {shard.batch, seq, s.hidden});
  // The last stage holds its own vocab-parallel share of the head, tied or not (Megatron keeps a
  // copy of a tied embedding there and sums the two gradients).
  head(b, s, x, -1, s.padded_vocabulary(shard.tp) / shard.tp, shard.batch, seq, true);
  return std::move(b).finish();
}

bool is_transformer_document(const nlohmann::json& document) {
  return document.is_object() && document.contains("format") && document["format"] == "dnnperf.transformer";
}

TransformerSpec transformer_spec_from_json(const nlohmann::json& document, const std::string& where) {
  JsonObjectReader r(document, where);
  if (r.text("format") != "dnnperf.transformer") r.fail("format", "must be \"dnnperf.transformer\"");
  if (r.has("version") && r.integer("version", 1) != 1) r.fail("version", "must be 1");
  TransformerSpec s;
  s.name = r.text("name", std::filesystem::path(where).stem().string());
  s.layers = r.integer("layers", std::nullopt);
  s.hidden = r.integer("hidden", std::nullopt);
  s.heads = r.integer("heads", std::nullopt);
  s.kv_heads = r.integer("kv_heads", 0);
  s.ffn = r.integer("ffn", 0);
  s.sequence = r.integer("seq", 2048);
  s.vocabulary = r.integer("vocab", std::nullopt);
  const std::string mlp = r.text("mlp", "gelu");
  if (mlp == "gelu") s.mlp = MlpKind::gelu;
  else if (mlp == "swiglu") s.mlp = MlpKind::swiglu;
  else r.fail("mlp", "must be \"gelu\" or \"swiglu\", is \"" + mlp + "\"");
  const std::string norm_kind = r.text("norm", "layer");
  if (norm_kind == "layer") s.norm = NormKind::layer_norm;
  else if (norm_kind == "rms") s.norm = NormKind::rms_norm;
  else r.fail("norm", "must be \"layer\" or \"rms\", is \"" + norm_kind + "\"");
  const std::string position = r.text("position", "learned");
  if (position == "learned") s.position = PositionKind::learned;
  else if (position == "rotary") s.position = PositionKind::rotary;
  else r.fail("position", "must be \"learned\" or \"rotary\", is \"" + position + "\"");
  const bool llama_like = s.position == PositionKind::rotary;
  s.tied_head = r.boolean("tied_head", !llama_like);
  s.bias = r.boolean("bias", !llama_like);
  s.flash = r.boolean("flash", false);
  s.dropout = r.real("dropout", 0.0);
  s.experts = r.integer("experts", 0);
  s.top_k = r.integer("top_k", 2);
  s.capacity_factor = r.real("capacity_factor", 1.0);
  s.moe_every = r.integer("moe_every", 1);
  r.check_unknown();
  try {
    s.validate();
  } catch (const InputError& e) {
    throw with_context(where, e);
  }
  return s;
}

std::optional<TransformerSpec> find_transformer_spec(std::string_view network) {
  const std::string text(network);
  if (text.size() > 5 && text.ends_with(".json")) {
    const nlohmann::json doc = read_json_file(text);
    if (!is_transformer_document(doc)) return std::nullopt;
    return transformer_spec_from_json(doc, text);
  }
  return zoo_transformer_spec(network);
}

}  // namespace dnnperf
