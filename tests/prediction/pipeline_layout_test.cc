// Hand-placed pipeline layouts in Megatron's notation: parsed as Megatron-LM parses them, priced
// chunk by chunk, and refused with the layout named.
#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "predictor/large_model/model_parallel.h"
#include "predictor/large_model/pipeline_layout.h"

using namespace dnnperf;

TEST_CASE("A layout string gives each chunk its layers, in pipeline order", "[model_parallel][layout]") {
  // Megatron-Bridge's Llama 3 70B recipe on PP 8 x VP 5: 40 chunks of 2, one layer moved from the
  // last chunk (with the loss) to the 36th.
  const std::vector<std::int64_t> recipe = parse_pipeline_layout("Et*2|(t*2|)*34,t*3|(t*2|)*3,tL", 8, 80);
  REQUIRE(recipe.size() == 40);
  CHECK(recipe.front() == 2);
  CHECK(recipe[35] == 3);
  CHECK(recipe.back() == 1);
  std::int64_t total = 0;
  for (const std::int64_t n : recipe) total += n;
  CHECK(total == 80);
  // Nested groups, spaces and an empty chunk.
  CHECK(parse_pipeline_layout("E((t|)*2)*2, |tL", 3, 5) == std::vector<std::int64_t>{1, 1, 1, 1, 0, 1});
  CHECK(parse_pipeline_layout("Ettt|tttL", 2, 6) == std::vector<std::int64_t>{3, 3});
}

TEST_CASE("A bad layout is refused with the layout and what is wrong", "[model_parallel][layout][errors]") {
  const auto refused = [](const char* layout, int pp, std::int64_t layers, const char* what) {
    INFO(layout);
    CHECK_THROWS_WITH(parse_pipeline_layout(layout, pp, layers), Catch::Contains(what) && Catch::Contains(layout));
  };
  refused("Ett|ttL", 2, 5, "places 4 transformer layers (t), the model has 5");
  refused("Ett|tt|ttL", 2, 6, "3 chunks are not a multiple of --pp 2");
  refused("tEt|ttL", 2, 4, "the embedding (E) must open the first chunk");
  refused("Ett|tLt", 2, 4, "(L) must close the last chunk");
  refused("Ett|tt", 2, 4, "needs the output layer and loss (L) once");
  refused("Ett|ttmL", 2, 4, "multi-token prediction");
  refused("Ett|txL", 2, 4, "unknown letter 'x'");
  refused("E(tt|ttL", 2, 4, "is never closed");
  refused("E(tt)|ttL", 2, 4, "must be followed by '*'");
  refused("Et*|ttL", 2, 4, "needs a count");
  refused("E*2t|ttL", 2, 4, "the embedding (E) must open the first chunk");  // the second E
  refused("E(t)*999999999|L", 2, 4, "too large");
  refused("E((t)*999999)*999999|L", 2, 4, "unrolls to more than");
  refused("E(t|)*333333,(t|)*333333,(t|)*333333L", 2, 4, "unrolls to more than");  // groups side by side
}

TEST_CASE("A layout prices each chunk's own layers: the even one as the default, a moved layer where it went", "[model_parallel][layout]") {
  const TransformerSpec gpt = *zoo_transformer_spec("gpt:layers=8,hidden=2048,heads=16,seq=2048");
  const HardwareProfile hw = find_hardware_profile("h100");
  ModelParallelPlan plan;
  plan.nodes = 1, plan.tp = 2, plan.pp = 4, plan.micro_batch = 1, plan.global_batch = 16;
  ModelParallelEvaluator evaluator(gpt, hw);
  const ModelParallelPrediction even = evaluator.predict(plan);
  ModelParallelPlan written = plan;
  written.chunk_layers = parse_pipeline_layout("Ett|tt|tt|ttL", 4, 8);
  CHECK(evaluator.predict(written).iteration_s == Approx(even.iteration_s).epsilon(1e-12));
  // Three more layers on stage 1: the slowest stage sets the pace, and its weights are its own.
  ModelParallelPlan heavy = plan;
  heavy.chunk_layers = parse_pipeline_layout("Et|ttttt|t|tL", 4, 8);
  const ModelParallelPrediction h = evaluator.predict(heavy);
  CHECK(h.iteration_s > 1.3 * even.iteration_s);
  CHECK(h.memory.stage == 1);
  CHECK(h.memory.weights > even.memory.weights);
  // The plan checks what it is given.
  ModelParallelPlan wrong = plan;
  wrong.chunk_layers = {2, 2, 2};
  CHECK_THROWS_WITH(wrong.validate(gpt, hw), Catch::Contains("--pipeline-layout has 3 chunks"));
  wrong.chunk_layers = {2, 2, 2, 1};
  CHECK_THROWS_WITH(wrong.validate(gpt, hw), Catch::Contains("places 7 of the 8 layers"));
}
