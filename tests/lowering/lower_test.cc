#include "core/lowering/lower.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "core/graph/network_builder.h"

using namespace dnnperf;

namespace {

std::vector<Kernel> of_phase(const std::vector<Kernel>& ks, Phase p) {
  std::vector<Kernel> out;
  std::copy_if(ks.begin(), ks.end(), std::back_inserter(out), [p](const Kernel& k) { return k.phase == p; });
  return out;
}

}  // namespace

TEST_CASE("A first convolution lowers to forward and weight-gradient convolutions only", "[lowering]") {
  NetworkBuilder b("t");
  const int x = b.input("x", {8, 3, 32, 32});
  b.conv2d(x, {.out = 16, .kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}, .bias = false}, "conv");
  const auto ks = lower(std::move(b).finish());
  const auto forward = of_phase(ks, Phase::forward);
  REQUIRE(forward.size() == 1);
  const Kernel& f = forward[0];
  CHECK(f.cls == KernelClass::conv);
  CHECK(f.conv.n == 8);
  CHECK(f.conv.c == 3);
  CHECK(f.conv.k == 16);
  CHECK(f.conv.p == 16);
  CHECK(f.conv.stride_h == 2);
  CHECK(f.flops == Approx(2.0 * 8 * 16 * 16 * 16 * 3 * 3 * 3));
  CHECK(of_phase(ks, Phase::backward_data).empty());  // the input image needs no gradient
  REQUIRE(of_phase(ks, Phase::backward_weight).size() == 1);
  CHECK(of_phase(ks, Phase::backward_weight)[0].flops == Approx(f.flops));
  REQUIRE(of_phase(ks, Phase::update).size() == 1);
  CHECK(of_phase(ks, Phase::update)[0].elements == 16 * 3 * 3 * 3);
}

TEST_CASE("Linear layers lower to the three GEMMs of training", "[lowering]") {
  NetworkBuilder b("t");
  int x = b.input("x", {32, 10, 64});
  x = b.linear(x, 128, "fc1");
  b.linear(x, 256, "fc2");
  const Graph g = std::move(b).finish();
  const auto ks = lower(g);
  std::vector<Kernel> fc2;
  std::copy_if(ks.begin(), ks.end(), std::back_inserter(fc2), [](const Kernel& k) { return k.op == 1 && k.cls == KernelClass::gemm; });
  REQUIRE(fc2.size() == 3);
  CHECK(fc2[0].phase == Phase::forward);
  CHECK((fc2[0].gemm.m == 320 && fc2[0].gemm.n == 256 && fc2[0].gemm.k == 128 && fc2[0].gemm.trans_b));
  CHECK(fc2[1].phase == Phase::backward_data);
  CHECK((fc2[1].gemm.m == 320 && fc2[1].gemm.n == 128 && fc2[1].gemm.k == 256));
  CHECK(fc2[2].phase == Phase::backward_weight);
  CHECK((fc2[2].gemm.m == 256 && fc2[2].gemm.n == 128 && fc2[2].gemm.k == 320 && fc2[2].gemm.trans_a));
}

TEST_CASE("Kernels come forward first, then backward in reverse layer order, then updates", "[lowering]") {
  NetworkBuilder b("t");
  int x = b.input("x", {4, 16});
  for (int i = 0; i < 4; ++i) x = b.relu(b.linear(x, 16, "fc" + std::to_string(i)), "relu" + std::to_string(i));
  const auto ks = lower(std::move(b).finish());
  int last_phase = 0, last_backward_op = 1 << 30;
  for (const Kernel& k : ks) {
    const int phase = k.phase == Phase::forward ? 0 : k.phase == Phase::update ? 2 : 1;
    CHECK(phase >= last_phase);
    last_phase = phase;
    if (phase == 1) {
      CHECK(k.op <= last_backward_op);
      last_backward_op = k.op;
    }
  }
}

TEST_CASE("A tensor read twice gets its gradients summed", "[lowering]") {
  NetworkBuilder b("t");
  const int x = b.input("x", {4, 16});
  const int h = b.linear(x, 16, "fc");
  b.add(b.relu(h, "relu"), h, "residual");  // h feeds relu and the residual add
  const auto ks = lower(std::move(b).finish());
  const auto n = std::count_if(ks.begin(), ks.end(), [](const Kernel& k) {
    return k.op == 0 && k.phase == Phase::backward_data && k.cls == KernelClass::elementwise;
  });
  CHECK(n == 1);
}

TEST_CASE("Optimizers move 3, 5, 7 or 12 parameter-sized tensors", "[lowering]") {
  NetworkBuilder b("t");
  b.linear(b.input("x", {2, 100}), 100, "fc", false);
  const Graph g = std::move(b).finish();
  const double bytes = 100 * 100 * 4;
  for (const auto& [opt, tensors, family] : {std::tuple{Optimizer::sgd, 3.0, "sgd"}, {Optimizer::momentum, 5.0, "momentum"},
                                             {Optimizer::adam, 7.0, "adam"}, {Optimizer::lamb, 12.0, "lamb"}}) {
    const auto update = of_phase(lower(g, LoweringOptions::training_with(opt)), Phase::update);
    REQUIRE(update.size() == 1);
    CHECK(update[0].bytes_read + update[0].bytes_written == Approx(tensors * bytes));
    CHECK(update[0].pass == family);
  }
}

TEST_CASE("A fused optimizer is one plain pass over every parameter, and one cast under mixed precision", "[lowering]") {
  NetworkBuilder b("t");
  b.linear(b.relu(b.linear(b.input("x", {2, 100}), 300, "fc1"), "relu"), 10, "fc2");
  const Graph g = std::move(b).finish();
  LoweringOptions per_tensor = LoweringOptions::training_with(Optimizer::adam);
  per_tensor.compute_dtype = DType::bf16;
  LoweringOptions fused = per_tensor;
  fused.fused_optimizer = true;
  const auto each = of_phase(lower(g, per_tensor), Phase::update);
  const auto one = of_phase(lower(g, fused), Phase::update);
  REQUIRE(each.size() == 8);  // four tensors (two weights, two biases), each updated and cast
  REQUIRE(one.size() == 2);
  const auto total = [](const std::vector<Kernel>& ks, auto field) {
    double t = 0;
    for (const Kernel& k : ks) t += field(k);
    return t;
  };
  const auto bytes = [](const Kernel& k) { return k.bytes_read + k.bytes_written; };
  CHECK(total(one, bytes) == Approx(total(each, bytes)));
  CHECK(total(one, [](const Kernel& k) { return k.flops; }) == Approx(total(each, [](const Kernel& k) { return k.flops; })));
  CHECK(one[0].elements == g.parameter_count());
  CHECK(one[0].pass.empty());
  CHECK(one[1].flops == 0);  // the working copies' cast
  CHECK(one[1].bytes_written == Approx(2.0 * static_cast<double>(g.parameter_count())));
  CHECK(each[0].pass == "adam");
}

TEST_CASE("Passes that run far from copy bandwidth name their family, plain passes do not", "[lowering]") {
  NetworkBuilder b("t");
  int x = b.input("x", {2, 8, 16, 16});
  x = b.conv2d(x, {.out = 8, .kernel = {3, 3}, .padding = {1, 1}, .bias = false}, "conv");
  x = b.batch_norm(x, "bn");
  x = b.relu(x, "relu");
  x = b.max_pool(x, 3, 2, 1, "pool");
  x = b.dropout(x, 0.1, "drop");
  const Graph g = std::move(b).finish();
  const auto families = [&](const LoweringOptions& o) {
    std::multiset<std::string> out;
    for (const Kernel& k : lower(g, o))
      if (k.cls != KernelClass::conv) out.insert(std::string(phase_name(k.phase)) + ":" + (k.pass.empty() ? std::string(g.op(k.op).name) : std::string(k.pass)));
    return out;
  };
  const auto training = families(LoweringOptions::training_with(Optimizer::sgd));
  CHECK(training.count("forward:batch_norm") == 2);  // statistics, then normalisation
  CHECK(training.count("backward_data:batch_norm_backward") == 1);
  CHECK(training.count("backward_weight:batch_norm_backward") == 1);
  CHECK(training.count("forward:max_pool") == 1);
  CHECK(training.count("backward_data:max_pool_backward") == 1);
  CHECK(training.count("forward:relu") == 1);  // a plain pass
  CHECK(training.count("forward:dropout") == 1);  // random draws
  CHECK(training.count("backward_data:drop") == 1);  // the backward only applies the mask: plain
  CHECK(training.count("update:sgd") == of_phase(lower(g, LoweringOptions::training_with(Optimizer::sgd)), Phase::update).size());
  const auto inference = families(LoweringOptions::inference());
  CHECK(inference.count("forward:batch_norm_inference") == 1);  // running statistics: one affine pass of its own family
  CHECK(inference.count("forward:max_pool") == 1);
}

TEST_CASE("Inference lowers the forward pass only, without dropout or batch statistics", "[lowering]") {
  NetworkBuilder b("t");
  int x = b.input("x", {2, 3, 8, 8});
  x = b.batch_norm(b.conv2d(x, {.out = 4, .kernel = {3, 3}}, "conv"), "bn");
  b.dropout(x, 0.5, "drop");
  const Graph g = std::move(b).finish();
  const auto train = lower(g, LoweringOptions{});
  const auto infer = lower(g, LoweringOptions::inference());
  CHECK(std::all_of(infer.begin(), infer.end(), [](const Kernel& k) { return k.phase == Phase::forward; }));
  CHECK(std::none_of(infer.begin(), infer.end(), [](const Kernel& k) { return k.op_kind == OpKind::dropout; }));
  CHECK(std::count_if(infer.begin(), infer.end(), [](const Kernel& k) { return k.op_kind == OpKind::batch_norm; }) == 1);
  CHECK(of_phase(train, Phase::forward).size() > infer.size());
}

TEST_CASE("Attention lowers to projections, batched GEMMs and a softmax", "[lowering]") {
  const std::int64_t B = 2, S = 16, E = 64, H = 4, d = E / H;
  NetworkBuilder b("t");
  b.attention(b.input("x", {B, S, E}), H, 0.0, false, "attn");
  const auto fwd = of_phase(lower(std::move(b).finish()), Phase::forward);
  double gemm_flops = 0;
  int batched = 0, softmax = 0;
  for (const Kernel& k : fwd) {
    if (k.cls == KernelClass::gemm) gemm_flops += k.flops;
    if (k.cls == KernelClass::gemm && k.gemm.batch == B * H) ++batched;
    if (k.cls == KernelClass::reduction) ++softmax;
  }
  CHECK(batched == 2);
  CHECK(softmax == 1);
  CHECK(gemm_flops == Approx(2.0 * B * S * 3 * E * E + 2 * (2.0 * B * H * S * S * d) + 2.0 * B * S * E * E));
}

TEST_CASE("A convolution's weight gradient shares its input gradient's call; batch norm counts its short runs", "[lowering]") {
  NetworkBuilder b("t");
  const int x = b.input("x", {4, 3, 8, 8});
  const int c1 = b.conv2d(x, {.out = 16, .kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}, .bias = false}, "c1");
  const int c2 = b.conv2d(c1, {.out = 32, .kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}, .bias = false}, "c2");
  b.batch_norm(c2, "bn");  // [4, 32, 2, 2]: 128 runs of 4 elements
  const auto ks = lower(std::move(b).finish());
  int shared = 0, alone = 0;
  for (const Kernel& k : ks)
    if (k.cls == KernelClass::conv && k.phase == Phase::backward_weight) (k.shares_call ? shared : alone) += 1;
  CHECK(shared == 1);  // c2: its input gradient's call computes it too
  CHECK(alone == 1);   // c1: the image needs no gradient, so the weight gradient is a call of its own
  for (const Kernel& k : ks)
    if (k.cls == KernelClass::conv && k.phase != Phase::backward_weight) CHECK_FALSE(k.shares_call);
  int forward_runs = 0, backward_runs = 0;
  for (const Kernel& k : ks) {
    if (k.run_elements == 0) continue;
    CHECK(k.run_elements == 4);          // 2x2 images: runs of 4
    CHECK(k.elements == 4 * 32 * 4);     // over every element of the batch
    ++(k.phase == Phase::forward ? forward_runs : backward_runs);
  }
  CHECK(forward_runs == 1);  // once per phase, on one of its two passes
  CHECK(backward_runs == 1);
}

TEST_CASE("Inference batch norm is a pass family of its own, walked in the same short runs", "[lowering]") {
  NetworkBuilder b("t");
  b.batch_norm(b.input("x", {4, 32, 2, 2}), "bn");  // 128 runs of 4 elements
  const auto ks = lower(std::move(b).finish(), LoweringOptions::inference());
  REQUIRE(ks.size() == 1);
  CHECK(ks[0].pass == "batch_norm_inference");
  CHECK(ks[0].run_elements == 4);
  CHECK(calibration_class(ks[0]) == "pass:batch_norm_inference");
}

TEST_CASE("A training step's ReLU6 on a tracked tensor is a pass family of its own; an inference's is a plain pass", "[lowering]") {
  const auto build = [] {
    NetworkBuilder b("t");
    const int x = b.input("x", {4, 8, 16, 16});
    b.unary(OpKind::relu6, b.batch_norm(x, "bn"), "act");  // the batch norm's output is tracked in training
    return std::move(b).finish();
  };
  const auto relu6_forward = [](const std::vector<Kernel>& ks) {
    std::vector<Kernel> out;
    for (const Kernel& k : ks)
      if (k.op_kind == OpKind::relu6 && k.phase == Phase::forward) out.push_back(k);
    return out;
  };
  const auto training = relu6_forward(lower(build()));
  REQUIRE(training.size() == 1);
  CHECK(training[0].pass == "relu6");
  CHECK(calibration_class(training[0]) == "pass:relu6");
  const auto inference = relu6_forward(lower(build(), LoweringOptions::inference()));
  REQUIRE(inference.size() == 1);
  CHECK(inference[0].pass.empty());
  // The backward is the plain hardtanh gradient, as for any unary op.
  for (const Kernel& k : lower(build()))
    if (k.op_kind == OpKind::relu6 && k.phase != Phase::forward) CHECK(k.pass.empty());
}

TEST_CASE("Under FP8, weight GEMMs run in 8 bits after their operands' casts; attention's products and convolutions do not", "[lowering]") {
  NetworkBuilder b("t");
  int x = b.input("x", {4, 16, 64});
  x = b.linear(x, 64, "fc1");
  x = b.attention(x, 4, 0.0, false, "attn");
  b.linear(x, 32, "fc2");
  const Graph g = std::move(b).finish();
  LoweringOptions fp8;
  fp8.compute_dtype = DType::bf16;
  fp8.fp8_gemms = true;
  LoweringOptions bf16 = fp8;
  bf16.fp8_gemms = false;
  const auto eight = lower(g, fp8), sixteen = lower(g, bf16);
  int weight_gemms = 0, batched = 0;
  for (const Kernel& k : eight) {
    if (k.cls != KernelClass::gemm) continue;
    if (k.gemm.batch > 1) {
      ++batched;
      CHECK(k.dtype == DType::bf16);  // attention's products of activations
    } else {
      ++weight_gemms;
      CHECK(k.dtype == DType::f8e4m3);
      CHECK(k.bytes_read == Approx(static_cast<double>(k.gemm.m * k.gemm.k + k.gemm.k * k.gemm.n)));  // one byte an operand element
      CHECK(k.bytes_written == Approx(2.0 * static_cast<double>(k.gemm.m * k.gemm.n)));                // results in bf16
    }
  }
  CHECK(weight_gemms == 2 + 6 + 3);  // fc1 (no input gradient), the two projections, fc2
  CHECK(batched == 2 + 4);
  // Casts: forward both operands, backward the output's gradient; the weight gradient none.
  const auto passes = [](const std::vector<Kernel>& ks, Phase p) {
    return std::count_if(ks.begin(), ks.end(), [p](const Kernel& k) { return k.cls == KernelClass::elementwise && k.phase == p; });
  };
  CHECK(passes(eight, Phase::forward) == passes(sixteen, Phase::forward) + 4);
  CHECK(passes(eight, Phase::backward_data) == passes(sixteen, Phase::backward_data) + 3);  // fc1's input needs no gradient
  CHECK(passes(eight, Phase::backward_weight) == passes(sixteen, Phase::backward_weight));
  // Inference: the weights are already 8-bit; each activation is cast once.
  LoweringOptions serve = fp8, serve16 = bf16;
  serve.training = serve16.training = false;
  const auto passes_written = [](const std::vector<Kernel>& ks) {
    double written = 0;
    for (const Kernel& k : ks)
      if (k.cls == KernelClass::elementwise) written += k.bytes_written;
    return written;
  };
  // fc1's, the two projections' and fc2's inputs, 4 x 16 tokens 64 wide each, one byte an element.
  CHECK(passes_written(lower(g, serve)) - passes_written(lower(g, serve16)) == Approx(4 * 16 * 64 * 4));
  CHECK(fp8_weight_elements(g) == 64 * 64 + 3 * 64 * 64 + 64 * 64 + 32 * 64);
  // Nothing else moves.
  CHECK(std::count_if(eight.begin(), eight.end(), [](const Kernel& k) { return k.cls != KernelClass::elementwise; }) ==
        std::count_if(sixteen.begin(), sixteen.end(), [](const Kernel& k) { return k.cls != KernelClass::elementwise; }));
}
