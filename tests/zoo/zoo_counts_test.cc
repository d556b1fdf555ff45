// Parameter counts are torchvision's (sum of p.numel() over model.parameters()) and the standard
// transformer formulas; forward MACs are the figures papers and torchvision's model cards quote.
#include <catch2/catch.hpp>

#include "core/analysis/network_summary.h"
#include "core/common/error.h"
#include "core/lowering/lower.h"
#include "networks/zoo/transformer_spec.h"
#include "networks/zoo/zoo.h"

using namespace dnnperf;

namespace {

NetworkOptions no_loss(std::int64_t batch = 1) {
  NetworkOptions o;
  o.batch = batch;
  o.with_loss = false;
  return o;
}

double forward_macs(const std::string& name, const NetworkOptions& o = no_loss()) {
  const Graph g = build_zoo_network(name, o);
  return summarize(g, lower(g, LoweringOptions::inference())).totals.forward_macs;
}

}  // namespace

TEST_CASE("CNN parameter counts equal torchvision's", "[zoo]") {
  const std::vector<std::pair<std::string, std::int64_t>> expected = {
      {"lenet5", 61'706},           {"alexnet", 61'100'840},      {"vgg11", 132'863'336},
      {"vgg16", 138'357'544},       {"vgg19", 143'667'240},       {"resnet18", 11'689'512},
      {"resnet34", 21'797'672},     {"resnet50", 25'557'032},     {"resnet101", 44'549'160},
      {"resnet152", 60'192'808},    {"inception_v3", 27'161'264}, {"inception_v3_noaux", 23'834'568},
      {"mobilenet_v2", 3'504'872},  {"densenet121", 7'978'856}};
  for (const auto& [name, params] : expected) {
    INFO(name);
    CHECK(build_zoo_network(name).parameter_count() == params);
  }
}

TEST_CASE("Transformer parameter counts follow the standard formulas", "[zoo]") {
  const std::vector<std::pair<std::string, std::int64_t>> expected = {
      {"bert-base", 109'482'240},   {"bert-large", 335'141'888},  {"gpt2", 124'439'808},
      {"gpt2-medium", 354'823'168}, {"gpt2-large", 774'030'080},  {"gpt2-xl", 1'557'611'200},
      {"gpt3-175b", 174'604'259'328}, {"transformer_encoder", 5'754'378}};
  for (const auto& [name, params] : expected) {
    INFO(name);
    CHECK(build_zoo_network(name, no_loss()).parameter_count() == params);
  }
  // 12 h^2 + 13 h per layer, embeddings V h + S h, final LayerNorm 2 h.
  const std::int64_t L = 24, h = 2048, V = 50257, S = 2048;
  CHECK(build_zoo_network("gpt:layers=24,hidden=2048,heads=16,seq=2048", no_loss()).parameter_count() ==
        L * (12 * h * h + 13 * h) + V * h + S * h + 2 * h);
  const std::int64_t mt = build_zoo_network("megatron-1t:layers=2", no_loss(1)).parameter_count();
  CHECK(mt == 2 * (12LL * 25600 * 25600 + 13 * 25600) + 51200LL * 25600 + 2048LL * 25600 + 2 * 25600);
}

TEST_CASE("Forward MACs match published figures", "[zoo]") {
  CHECK(forward_macs("resnet50") == Approx(4.09e9).epsilon(0.01));
  CHECK(forward_macs("resnet18") == Approx(1.81e9).epsilon(0.01));
  CHECK(forward_macs("alexnet") == Approx(0.714e9).epsilon(0.01));
  CHECK(forward_macs("vgg16") == Approx(15.47e9).epsilon(0.01));
  CHECK(forward_macs("mobilenet_v2") == Approx(0.300e9).epsilon(0.02));
  CHECK(forward_macs("inception_v3_noaux") == Approx(5.71e9).epsilon(0.01));
  CHECK(forward_macs("densenet121") == Approx(2.83e9).epsilon(0.02));
  // GPT: 2 N per token for the weights (Kaplan et al. 2020) plus the attention score GEMMs.
  const double n = 12.0 * 12 * 768 * 768, tokens = 1024, attention = 12 * 2.0 * 1024 * 1024 * 768;
  CHECK(forward_macs("gpt2") == Approx(n * tokens + attention + 50257.0 * 768 * tokens).epsilon(0.01));
}

TEST_CASE("Counts scale with batch and input size", "[zoo]") {
  CHECK(forward_macs("resnet50", no_loss(8)) == Approx(8 * forward_macs("resnet50")));
  NetworkOptions small = no_loss();
  small.image = std::array<std::int64_t, 2>{112, 112};
  CHECK(forward_macs("vgg11", small) < forward_macs("vgg11") / 3.5);
}

TEST_CASE("Every zoo network builds, lowers and trains with a loss", "[zoo]") {
  for (const ZooEntry& e : zoo_networks()) {
    if (e.name == "gpt") continue;  // needs settings; covered above
    INFO(e.name);
    NetworkOptions o;
    if (zoo_transformer_spec(e.name)) o.sequence = 128;  // decoders: contexts of 1024 to 8192 tokens
    const Graph g = build_zoo_network(e.name, o);
    REQUIRE_FALSE(g.outputs().empty());
    CHECK(g.tensor(g.outputs().back()).shape.rank() == 0);  // a scalar loss
    const auto kernels = lower(g);
    const NetworkSummary s = summarize(g, kernels);
    CHECK(s.totals.phase(Phase::forward).flops > 0);
    // Backward of GEMM-heavy networks costs about twice the forward pass.
    CHECK(s.totals.backward_flops() > 1.3 * s.totals.phase(Phase::forward).flops);
    CHECK(s.totals.backward_flops() < 2.6 * s.totals.phase(Phase::forward).flops);
    CHECK(s.totals.phase(Phase::update).kernels > 0);
    CHECK(s.totals.activation_bytes > 0);
  }
}

TEST_CASE("Bad zoo specs are reported", "[zoo][errors]") {
  CHECK_THROWS_WITH(build_zoo_network("resnet51"), Catch::Contains("unknown network 'resnet51'"));
  CHECK_THROWS_WITH(build_zoo_network("gpt:layers=x"), Catch::Contains("setting 'layers' must be an integer"));
  CHECK_THROWS_WITH(build_zoo_network("gpt:layers=0"), Catch::Contains("setting 'layers'"));
  CHECK_THROWS_WITH(build_zoo_network("gpt:colour=red"), Catch::Contains("no setting 'colour'"));
  CHECK_THROWS_WITH(build_zoo_network("gpt:hidden=100,heads=3"), Catch::Contains("not divisible by 3 heads"));
  CHECK_THROWS_WITH(build_zoo_network("resnet50:depth=3"), Catch::Contains("no setting 'depth'"));
  CHECK_THROWS_WITH(build_zoo_network("gpt:layers"), Catch::Contains("not key=value"));
  NetworkOptions o;
  o.batch = 0;
  CHECK_THROWS_WITH(build_zoo_network("resnet50", o), Catch::Contains("batch must be positive"));
  o.batch = 1;
  o.image = std::array<std::int64_t, 2>{16, 16};
  CHECK_THROWS_WITH(build_zoo_network("alexnet", o), Catch::Contains("does not fit"));
  o.image.reset();
  o.sequence = 4096;
  CHECK_THROWS_WITH(build_zoo_network("gpt2", o), Catch::Contains("exceeds the context"));
}
