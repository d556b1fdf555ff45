// Encoder transformers: BERT (Devlin et al. 2019) and a small encoder classifier built like
// torch.nn.TransformerEncoderLayer. Decoders (GPT, Llama, Mixtral) are built from their
// hyper-parameters: transformer_spec.h.
#include "networks/zoo/zoo_builders.h"

namespace dnnperf::zoo {
namespace {

/// Token plus position embeddings: the positions input holds 0..S-1 and broadcasts over the batch.
int token_and_position(NetworkBuilder& b, std::int64_t batch, std::int64_t seq, std::int64_t vocab,
                       std::int64_t max_positions, std::int64_t hidden, const std::string& tok,
                       const std::string& pos) {
  const int ids = b.input("tokens", {batch, seq}, DType::i64);
  const int positions = b.input("positions", {1, seq}, DType::i64);
  const int t = b.embedding(ids, vocab, hidden, tok);
  const int p = b.embedding(positions, max_positions, hidden, pos);
  return b.add(t, p, "embed_add");
}

int feed_forward(NetworkBuilder& b, int x, std::int64_t ffn, std::int64_t hidden, OpKind activation,
                 const std::string& in, const std::string& out) {
  return b.linear(b.unary(activation, b.linear(x, ffn, in), "act"), hidden, out);
}

}  // namespace

Graph bert(const std::string& name, const BertConfig& c, const NetworkOptions& o) {
  // BertModel (embeddings, encoder, pooler): BERT-base 109,482,240 parameters, BERT-large
  // 335,141,888. With the loss, a 2-way sequence classifier on the pooled output is added.
  const std::int64_t seq = o.sequence.value_or(128);
  if (seq > c.sequence)
    throw InputError(name + ": sequence " + std::to_string(seq) + " exceeds the " + std::to_string(c.sequence) + " positions");
  constexpr double kEps = 1e-12, kDropout = 0.1;
  NetworkBuilder b(name);
  int x = -1;
  {
    auto s = b.scope("embeddings");
    x = token_and_position(b, o.batch, seq, c.vocabulary, c.sequence, c.hidden, "word_embeddings", "position_embeddings");
    const int types = b.input("token_types", {o.batch, seq}, DType::i64);
    x = b.add(x, b.embedding(types, 2, c.hidden, "token_type_embeddings"), "type_add");
    x = b.dropout(b.layer_norm(x, "LayerNorm", kEps), kDropout, "dropout");
  }
  for (std::int64_t i = 0; i < c.layers; ++i) {
    auto s = b.scope("encoder.layer." + std::to_string(i));
    int y = b.dropout(b.attention(x, c.heads, kDropout, false, "attention"), kDropout, "attention.dropout");
    x = b.layer_norm(b.add(x, y, "attention.add"), "attention.LayerNorm", kEps);
    y = feed_forward(b, x, 4 * c.hidden, c.hidden, OpKind::gelu, "intermediate.dense", "output.dense");
    x = b.layer_norm(b.add(x, b.dropout(y, kDropout, "output.dropout"), "output.add"), "output.LayerNorm", kEps);
  }
  {
    auto s = b.scope("pooler");
    OpAttrs first;
    first.axis = 1;
    first.start = 0;
    first.end = 1;
    x = b.add_layer1(OpKind::slice, first, {x}, "first_token");
    x = b.reshape(x, {o.batch, c.hidden}, "squeeze");
    x = b.unary(OpKind::tanh, b.linear(x, c.hidden, "dense"), "activation");
  }
  if (o.with_loss) {
    const int logits = b.linear(b.dropout(x, kDropout, "classifier.dropout"), 2, "classifier");
    b.set_output(b.cross_entropy(logits, b.input("labels", {o.batch}, DType::i64), "loss"));
  } else {
    b.set_output(x);
  }
  return std::move(b).finish();
}

Graph transformer_encoder(const EncoderClassifierConfig& c, const NetworkOptions& o) {
  // Token and position embeddings, post-norm nn.TransformerEncoderLayer blocks (ReLU, batch-first),
  // mean pooling over tokens and a linear classifier. scripts/ builds the same module in PyTorch.
  const std::int64_t seq = o.sequence.value_or(c.sequence);
  if (seq > c.sequence)
    throw InputError("transformer_encoder: sequence " + std::to_string(seq) + " exceeds the " + std::to_string(c.sequence) + " positions");
  NetworkBuilder b("transformer_encoder");
  int x = token_and_position(b, o.batch, seq, c.vocabulary, c.sequence, c.hidden, "token_embedding", "position_embedding");
  for (std::int64_t i = 0; i < c.layers; ++i) {
    auto s = b.scope("encoder.layers." + std::to_string(i));
    int y = b.dropout(b.attention(x, c.heads, c.dropout, false, "self_attn"), c.dropout, "dropout1");
    x = b.layer_norm(b.add(x, y, "add1"), "norm1");
    y = b.dropout(b.unary(OpKind::relu, b.linear(x, c.ffn, "linear1"), "relu"), c.dropout, "dropout");
    y = b.dropout(b.linear(y, c.hidden, "linear2"), c.dropout, "dropout2");
    x = b.layer_norm(b.add(x, y, "add2"), "norm2");
  }
  x = b.reduce_mean(x, {1}, false, "mean_pool");
  finish_classifier(b, b.linear(x, c.classes, "classifier"), o);
  return std::move(b).finish();
}

}  // namespace dnnperf::zoo
