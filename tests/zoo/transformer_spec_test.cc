// Decoder transformers from their hyper-parameters: exact parameter counts against the published
// ones, the formula against the built graph, tensor-parallel shards, and bad specs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/lowering/lower.h"
#include "networks/zoo/transformer_spec.h"
#include "networks/zoo/zoo.h"

using namespace dnnperf;

namespace {

NetworkOptions short_sequence() {
  NetworkOptions o;
  o.sequence = 16;
  o.with_loss = false;
  return o;
}

}  // namespace

TEST_CASE("Zoo decoders hold their published parameter counts", "[zoo][transformer]") {
  // Meta's released checkpoints (Touvron et al. 2023b; Dubey et al. 2024) and Mistral's Mixtral.
  const std::vector<std::pair<std::string, std::int64_t>> published = {
      {"llama2-7b", 6'738'415'616},   {"llama2-13b", 13'015'864'320},  {"llama2-70b", 68'976'648'192},
      {"llama3-8b", 8'030'261'248},   {"llama3-70b", 70'553'706'496},  {"llama3-405b", 405'853'388'800},
      {"mixtral-8x7b", 46'702'792'704}, {"gpt3-175b", 174'604'259'328}};
  for (const auto& [name, count] : published) {
    INFO(name);
    const auto spec = zoo_transformer_spec(name);
    REQUIRE(spec);
    CHECK(transformer_parameters(*spec).total == count);
  }
  // Mixtral's two active experts of eight: 12.9B per token (Jiang et al. 2024).
  CHECK(transformer_parameters(*zoo_transformer_spec("mixtral-8x7b")).active == 12'879'925'248);
}

TEST_CASE("The parameter formula equals the built graph's count", "[zoo][transformer]") {
  for (const char* name : {"llama2-7b:layers=2", "llama3-70b:layers=1", "mixtral-8x7b:layers=2", "gpt2", "gpt3-175b:layers=1",
                           "transformer:layers=3,hidden=256,heads=8,kv_heads=2,experts=4,top_k=1,moe_every=2,bias=1,tied_head=1"}) {
    INFO(name);
    const TransformerSpec spec = *zoo_transformer_spec(name);
    CHECK(build_zoo_network(name, short_sequence()).parameter_count() == transformer_parameters(spec).total);
  }
}

TEST_CASE("A tensor-parallel shard holds 1/t of a layer's matrices", "[zoo][transformer]") {
  const TransformerSpec spec = *zoo_transformer_spec("llama3-70b");
  const std::int64_t whole = build_transformer_layer(spec, 0, {1, 16, 1, 0}).parameter_count();
  const std::int64_t shard = build_transformer_layer(spec, 0, {1, 16, 8, 0}).parameter_count();
  // The two RMSNorm scales (2 x 8192) are replicated; the rest divides by 8.
  CHECK(shard - 2 * 8192 == (whole - 2 * 8192) / 8);
  // Eight kv heads over tp = 16: one replicated head per rank, 4 query heads each.
  const Graph g = build_transformer_layer(spec, 0, {1, 16, 16, 0});
  bool found = false;
  for (const Op& op : g.ops())
    if (op.kind == OpKind::attention) {
      CHECK(op.attrs.heads == 4);
      CHECK(op.attrs.kv_heads == 1);
      found = true;
    }
  CHECK(found);
  CHECK_THROWS_WITH(build_transformer_layer(spec, 0, {1, 16, 3, 0}), Catch::Contains("does not divide heads=64"));
}

TEST_CASE("Flash attention keeps no scores and prices the same FLOPs", "[zoo][transformer]") {
  const TransformerSpec flash = *zoo_transformer_spec("llama2-7b:layers=1");
  REQUIRE(flash.flash);  // Llama trained with fused attention: the zoo's default
  const TransformerSpec plain = *zoo_transformer_spec("llama2-7b:layers=1,flash=0");
  const auto flops = [](const Graph& g) {
    double f = 0;
    for (const Kernel& k : lower(g, {})) if (k.cls == KernelClass::gemm) f += k.flops;
    return f;
  };
  const Graph a = build_transformer_layer(plain, 0, {2, 256, 1, 0});
  const Graph b = build_transformer_layer(flash, 0, {2, 256, 1, 0});
  // Causal flash visits half the score blocks; the unfused path computes all s^2 scores.
  const double s = 256, h = 4096, tokens = 2 * s;
  const double scores_fwd = 4 * tokens * s * h;  // Q K^T and P V over all s^2
  CHECK(flops(a) - flops(b) == Approx(3 * scores_fwd - (scores_fwd / 2 + 2.5 * scores_fwd / 2)).epsilon(0.01));
}

TEST_CASE("The transformer file form reads five lines and names bad fields", "[zoo][transformer][errors]") {
  nlohmann::json doc = {{"format", "dnnperf.transformer"}, {"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"kv_heads", 8},
                        {"ffn", 14336}, {"seq", 8192}, {"vocab", 128256}, {"mlp", "swiglu"}, {"norm", "rms"}, {"position", "rotary"}};
  const TransformerSpec s = transformer_spec_from_json(doc, "llama.json");
  CHECK(transformer_parameters(s).total == 8'030'261'248);
  CHECK_FALSE(s.tied_head);
  doc["heads"] = 0;
  CHECK_THROWS_WITH(transformer_spec_from_json(doc, "m.json"), Catch::Contains("m.json") && Catch::Contains("'heads'"));
  doc["heads"] = 30;
  CHECK_THROWS_WITH(transformer_spec_from_json(doc, "m.json"), Catch::Contains("not divisible by 30 heads"));
  doc["heads"] = 32;
  doc["kv_heads"] = 5;
  CHECK_THROWS_WITH(transformer_spec_from_json(doc, "m.json"), Catch::Contains("'kv_heads'"));
  doc["kv_heads"] = 8;
  doc["layers"] = 0;
  CHECK_THROWS_WITH(transformer_spec_from_json(doc, "m.json"), Catch::Contains("'layers'"));
  doc["layers"] = 32;
  doc["mlp"] = "relu";
  CHECK_THROWS_WITH(transformer_spec_from_json(doc, "m.json"), Catch::Contains("'mlp'"));
  doc["mlp"] = "swiglu";
  doc["experts"] = 4;
  doc["top_k"] = 5;
  CHECK_THROWS_WITH(transformer_spec_from_json(doc, "m.json"), Catch::Contains("'top_k'"));
  doc.erase("experts");
  doc.erase("top_k");
  doc["colour"] = "red";
  CHECK_THROWS_WITH(transformer_spec_from_json(doc, "m.json"), Catch::Contains("colour"));
}

TEST_CASE("Model FLOPs follow Narayanan et al.'s count for GPT", "[zoo][transformer]") {
  // Eq. 3 without recomputation: 72 B s l h^2 (1 + s / 6h + V / 12 l h).
  const TransformerSpec s = *zoo_transformer_spec("gpt3-175b");
  const double B = 1, seq = 2048, l = 96, h = 12288, V = 50257;
  CHECK(transformer_training_flops(s, 2048, B * seq) == Approx(72 * B * seq * l * h * h * (1 + seq / (6 * h) + V / (12 * l * h))).epsilon(1e-3));
}
