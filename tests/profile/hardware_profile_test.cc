#include "profile/hardware_profile.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <numbers>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "models/comm/fitted_comm_model.h"
#include "models/compute/blocked_gemm.h"
#include "models/compute/direct_conv.h"
#include "models/compute/profile_model.h"
#include "models/compute/step_warmth.h"
#include "core/common/error.h"
#include "profile/fitted_sections.h"
#include "profile/transport.h"
#include "core/lowering/lower.h"

using namespace dnnperf;

namespace {

std::string write_variant(const std::string& name, const std::function<void(nlohmann::json&)>& change) {
  std::ifstream in(std::string(DNNPERF_SOURCE_DIR) + "/data/hardware/a100-sxm4-80gb.json");
  nlohmann::json j = nlohmann::json::parse(in);
  change(j);
  const std::string path = "/tmp/dnnperf_test_" + name + ".json";
  std::ofstream(path) << j.dump();
  return path;
}

}  // namespace

TEST_CASE("Shipped profiles load and are found by name and alias", "[hardware]") {
  const auto shipped = shipped_hardware_profiles();
  CHECK(shipped.size() == 10);
  for (const auto& [name, aliases] : shipped) {
    INFO(name);
    const HardwareProfile p = find_hardware_profile(name);
    CHECK(p.name == name);
    CHECK(p.peak(MathMode::fp32) > 0);
    CHECK(p.sources.count("device.peak_flops") + p.sources.count("device") == 1);
    for (const std::string& alias : aliases) CHECK(find_hardware_profile(alias).name == name);
  }
  const HardwareProfile h200 = find_hardware_profile("h200");
  CHECK(h200.device.memory_bandwidth == 4.8e12);
  CHECK(h200.node.devices == 8);
  CHECK(h200.peak(MathMode::bf16_tensor) == Approx(989.4e12));
  CHECK_THROWS_WITH(find_hardware_profile("v100").peak(MathMode::bf16_tensor), Catch::Contains("has no bf16_tensor"));
}

TEST_CASE("Bad profiles are rejected with file and field", "[hardware][errors]") {
  const std::string unknown = write_variant("unknown", [](nlohmann::json& j) { j["device"]["colour"] = "green"; });
  CHECK_THROWS_WITH(load_hardware_profile(unknown), Catch::Contains(unknown + ": device: unknown field 'colour'"));
  const std::string negative = write_variant("negative", [](nlohmann::json& j) { j["node"]["intra"]["bandwidth"] = -1; });
  CHECK_THROWS_WITH(load_hardware_profile(negative), Catch::Contains("node.intra: field 'bandwidth' must be positive"));
  const std::string zero = write_variant("zero", [](nlohmann::json& j) { j["device"]["memory_bandwidth"] = 0; });
  CHECK_THROWS_WITH(load_hardware_profile(zero), Catch::Contains("field 'memory_bandwidth' must be positive"));
  const std::string eff = write_variant("eff", [](nlohmann::json& j) { j["device"]["efficiency"]["gemm"]["max_efficiency"] = 1.5; });
  CHECK_THROWS_WITH(load_hardware_profile(eff), Catch::Contains("efficiency.gemm: field 'max_efficiency' must be in (0, 1]"));
  const std::string family = write_variant("family", [](nlohmann::json& j) { j["device"]["efficiency"]["passes"]["max_pooling"] = {{"max_efficiency", 0.1}}; });
  CHECK_THROWS_WITH(load_hardware_profile(family), Catch::Contains("unknown pass family 'max_pooling'") && Catch::Contains("max_pool,"));
  const std::string slowdown = write_variant("slowdown", [](nlohmann::json& j) { j["device"]["efficiency"]["memory"]["dram_slowdown"] = 0.5; });
  CHECK_THROWS_WITH(load_hardware_profile(slowdown), Catch::Contains("efficiency.memory: field 'dram_slowdown' must be at least 1"));
  const std::string sigma = write_variant("sigma", [](nlohmann::json& j) { j["device"]["efficiency"]["gemm"]["residual_sigma"] = -0.1; });
  CHECK_THROWS_WITH(load_hardware_profile(sigma), Catch::Contains("efficiency.gemm: field 'residual_sigma' must not be negative"));
  const std::string missing = write_variant("missing", [](nlohmann::json& j) { j.erase("cluster"); });
  CHECK_THROWS_WITH(load_hardware_profile(missing), Catch::Contains("field 'cluster' is required"));
  CHECK_THROWS_WITH(find_hardware_profile("tpu-v9"), Catch::Contains("unknown hardware 'tpu-v9'") && Catch::Contains("a100-sxm4-80gb"));
  CHECK_THROWS_WITH(find_hardware_profile("/nonexistent/hw.json"), Catch::Contains("no such hardware profile file"));
}

TEST_CASE("A profile says which math its fp32 convolutions run in; a mode it has no peak for is refused", "[hardware][errors]") {
  CHECK(find_hardware_profile("a100").device.fp32_conv_math == MathMode::fp32);
  const std::string tf32 = write_variant("conv_tf32", [](nlohmann::json& j) { j["device"]["fp32_conv_math"] = "tf32_tensor"; });
  CHECK(load_hardware_profile(tf32).device.fp32_conv_math == MathMode::tf32_tensor);
  const std::string bad = write_variant("conv_math_bad", [](nlohmann::json& j) { j["device"]["fp32_conv_math"] = "fp16_tensor"; });
  CHECK_THROWS_WITH(load_hardware_profile(bad), Catch::Contains("device: field 'fp32_conv_math' must be \"fp32\" or \"tf32_tensor\", is \"fp16_tensor\""));
  const std::string missing = write_variant("conv_math_no_peak", [](nlohmann::json& j) {
    j["device"]["fp32_conv_math"] = "tf32_tensor";
    j["device"]["peak_flops"].erase("tf32_tensor");
  });
  CHECK_THROWS_WITH(load_hardware_profile(missing), Catch::Contains("field 'fp32_conv_math' is tf32_tensor, which peak_flops does not list"));
}

TEST_CASE("a profile's measured kernels price kernels of the same shape and type, and only those") {
  HardwareProfile hw = find_hardware_profile("cpu");
  const Kernel measured = gemm_kernel(Phase::forward, {64, 128, 256, 1, false, true}, DType::f32);
  ConvShape c;
  c.n = 4, c.c = 64, c.h = c.w = 16, c.k = 64, c.r = c.s = 3, c.pad_h = c.pad_w = 1, c.p = c.q = 16;
  const Kernel wgrad = conv_kernel(Phase::backward_weight, c, DType::f32);
  // Through the JSON section, as a fitted profile stores them.
  const nlohmann::json section = measured_kernels_section({{measured, 0.123}, {wgrad, 0.0456}});
  hw.measured_kernels = read_measured_kernels_section(section, "test");
  REQUIRE(hw.measured_kernels.size() == 2);
  const ProfileComputeModel model(hw);
  CHECK(model.seconds(measured, {}) == 0.123);
  CHECK(model.seconds(wgrad, {}) == 0.0456);
  CHECK(model.interval(wgrad, {}) == std::pair<double, double>{0.0456, 0.0456});
  // Another phase, shape or type falls back to the models.
  CHECK(model.seconds(conv_kernel(Phase::backward_data, c, DType::f32), {}) != 0.0456);
  CHECK(model.seconds(gemm_kernel(Phase::forward, {64, 128, 256, 1, false, false}, DType::f32), {}) != 0.123);
  CHECK(model.seconds(gemm_kernel(Phase::forward, {64, 128, 256, 1, false, true}, DType::bf16), {}) != 0.123);
  // Kernels the analytic model prices carry its class's held-out spread, where calibration set one.
  const Kernel other = gemm_kernel(Phase::forward, {512, 512, 512, 1, false, false}, DType::f32);
  const double t = model.seconds(other, {});
  CHECK(model.interval(other, {}) == std::pair<double, double>{t, t});  // a datasheet profile: none
  hw.device.gemm.residual_sigma = 0.5;
  const ProfileComputeModel spread(hw);
  CHECK(spread.interval(other, {}).first == Approx(t * std::exp(-0.98)));
  CHECK(spread.interval(other, {}).second == Approx(t * std::exp(0.98)));
  CHECK(spread.interval(wgrad, {}) == std::pair<double, double>{0.0456, 0.0456});  // measured: still exact
  nlohmann::json bad = section;
  bad[0]["params"].erase("m");
  CHECK_THROWS_WITH(read_measured_kernels_section(bad, "p.json: measured_kernels"), Catch::Contains("measured_kernels[0]") && Catch::Contains("params"));
}

TEST_CASE("A profile's blocked GEMM model is read back as written, and bad fields are named", "[hardware][errors]") {
  BlockedGemm b;
  b.block = 48, b.vector_width = 4, b.block_flops = 5e10, b.partial_efficiency = {0.6, 0.5, 1, 0.9, 0.6, 0.5, 1};
  b.misaligned_slowdown = {1, 2.4, 2.7}, b.operand_bandwidth = 7e9, b.long_row_bytes = 13000, b.long_row_slowdown = {1.4, 1, 1.2, 2.7};
  b.output_bandwidth = 1.3e10, b.large_output_bytes = 1.6e8, b.large_output_slowdown = 6.8, b.call_overhead_s = 1.5e-5;
  // A profile whose blocked GEMM section is b's as it stands, then `edit`ed.
  const auto blocked_variant = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit = {}) {
    return write_variant(name, [&](nlohmann::json& j) {
      j["device"]["efficiency"]["blocked_gemm"] = blocked_gemm_section(b);
      if (edit) edit(j["device"]["efficiency"]["blocked_gemm"]);
    });
  };
  const std::string good = blocked_variant("blocked");
  const HardwareProfile hw = load_hardware_profile(good);
  const GemmShape g{4, 4096, 9216, 1, false, true};
  CHECK(blocked_gemm_seconds(hw.device.blocked_gemm, g, 4) == Approx(blocked_gemm_seconds(b, g, 4)));
  CHECK(hw.device.blocked_gemm.long_row_slowdown[3] == 2.7);
  // The clean-up code's second width: read back; profiles written before it have none.
  b.cleanup_width = {0, 6, 0};
  const std::string cleanup = blocked_variant("cleanup");
  CHECK(load_hardware_profile(cleanup).device.blocked_gemm.cleanup_width == std::array<std::int64_t, 3>{0, 6, 0});
  const std::string old = blocked_variant("old", [](nlohmann::json& section) {
    for (const char* key : {"cleanup_width", "long_row_steepness", "large_output_steepness", "layout_packing", "large_operand_bytes", "large_operand_slowdown"})
      section.erase(key);
  });
  CHECK(load_hardware_profile(old).device.blocked_gemm.cleanup_width == std::array<std::int64_t, 3>{0, 0, 0});
  // The edges' steepness: read back (a sharper output edge prices a 200 MB output differently);
  // profiles written before it was fitted have 4 for both; a zero or absurd one is named.
  b.long_row_steepness = 11, b.large_output_steepness = 60;
  const std::string steep = blocked_variant("steep");
  const BlockedGemm read_steep = load_hardware_profile(steep).device.blocked_gemm;
  CHECK(read_steep.long_row_steepness == 11);
  CHECK(read_steep.large_output_steepness == 60);
  const GemmShape wide{4096, 12000, 4, 1, true, false};
  CHECK(blocked_gemm_seconds(read_steep, wide, 4) == Approx(blocked_gemm_seconds(b, wide, 4)));
  CHECK(blocked_gemm_seconds(read_steep, wide, 4) != Approx(blocked_gemm_seconds(hw.device.blocked_gemm, wide, 4)).epsilon(0.01));
  CHECK(load_hardware_profile(old).device.blocked_gemm.large_output_steepness == 4);
  CHECK(load_hardware_profile(old).device.blocked_gemm.long_row_steepness == 4);
  const std::string flat = blocked_variant("flat", [](nlohmann::json& section) {
    section["large_output_steepness"] = 0;
  });
  CHECK_THROWS_WITH(load_hardware_profile(flat), Catch::Contains("field 'large_output_steepness'"));
  const std::string absurd = blocked_variant("absurd", [](nlohmann::json& section) {
    section["long_row_steepness"] = 1e6;
  });
  CHECK_THROWS_WITH(load_hardware_profile(absurd), Catch::Contains("field 'long_row_steepness' must be in (0, 1000]"));
  // Packing per layout: read back; absent, one rate for all; the reference layout's factor is 1.
  b.layout_packing = {1, 0.9, 1.25, 1};
  const std::string layouts = blocked_variant("layouts");
  const GemmShape streamed{4, 4096, 4096, 1, false, false};  // B stored [k, n]
  CHECK(blocked_gemm_seconds(load_hardware_profile(layouts).device.blocked_gemm, streamed, 4) == Approx(blocked_gemm_seconds(b, streamed, 4)));
  CHECK(load_hardware_profile(old).device.blocked_gemm.layout_packing == std::array<double, 4>{1, 1, 1, 1});
  const std::string reference = blocked_variant("reference", [](nlohmann::json& section) {
    section["layout_packing"][0] = 2;
  });
  CHECK_THROWS_WITH(load_hardware_profile(reference), Catch::Contains("field 'layout_packing' element 0"));
  // The large-operand edge: read back; absent, none; a slowdown under 1 is named.
  b.large_operand_bytes = 8e7, b.large_operand_slowdown = 1.25;
  const std::string operands = blocked_variant("operands");
  const GemmShape classifier{4, 25088, 4096, 1, false, false};  // 411 MB of B
  CHECK(blocked_gemm_seconds(load_hardware_profile(operands).device.blocked_gemm, classifier, 4) == Approx(blocked_gemm_seconds(b, classifier, 4)));
  CHECK(load_hardware_profile(old).device.blocked_gemm.large_operand_slowdown == 1);
  const std::string faster = blocked_variant("faster", [](nlohmann::json& section) {
    section["large_operand_slowdown"] = 0.5;
  });
  CHECK_THROWS_WITH(load_hardware_profile(faster), Catch::Contains("large_operand_slowdown"));
  // Profiles fitted with the aliased-rows term (removed: docs/models/cpu-features.md) still load,
  // priced as without it.
  const std::string aliased = blocked_variant("aliased", [](nlohmann::json& section) {
    section["aliased_row_bytes"] = 2048;
    section["aliased_slowdown"] = {1.35, 1.1};
  });
  const GemmShape input_gradient{4, 9216, 4096, 1, false, false};
  CHECK(blocked_gemm_seconds(load_hardware_profile(aliased).device.blocked_gemm, input_gradient, 4) == Approx(blocked_gemm_seconds(b, input_gradient, 4)));
  const std::string negative = blocked_variant("negative", [](nlohmann::json& section) {
    section["cleanup_width"][2] = -3;
  });
  CHECK_THROWS_WITH(load_hardware_profile(negative), Catch::Contains("field 'cleanup_width' element 2 must be an integer >= 0"));
  const std::string partial = blocked_variant("partial", [](nlohmann::json& section) {
    section["partial_efficiency"][2] = 1.5;
  });
  CHECK_THROWS_WITH(load_hardware_profile(partial), Catch::Contains("efficiency.blocked_gemm: field 'partial_efficiency' element 2 must be in (0, 1]"));
  const std::string rows = blocked_variant("rows", [](nlohmann::json& section) {
    section["long_row_slowdown"] = {1, 2};
  });
  CHECK_THROWS_WITH(load_hardware_profile(rows), Catch::Contains("field 'long_row_slowdown' must be a list of 4 numbers"));
  const std::string block = blocked_variant("block", [](nlohmann::json& section) {
    section.erase("block");
  });
  CHECK_THROWS_WITH(load_hardware_profile(block), Catch::Contains("efficiency.blocked_gemm: field 'block' is required"));
}

TEST_CASE("A profile's direct convolution models are read back per direction, and bad fields are named", "[hardware][errors]") {
  DirectConv d;
  d.lanes = 16, d.rate = {2e11, 2.5e11, 4.5e10, 1e12}, d.input_fill_exponent = 0.6, d.output_fill_exponent = 1.0, d.window_exponent = 0.03;
  d.input_bandwidth = {1e10, 2e10, 3e10, 4e10}, d.weight_bandwidth = 1e10, d.output_bandwidth = {5e9, 6e9, 7e9, 8e9};
  d.call_overhead_s = 1e-5, d.large_bytes = 1.9e8, d.large_slowdown = 6;
  const std::string good = write_variant("direct", [&](nlohmann::json& j) { j["device"]["efficiency"]["direct_conv"]["backward_data"] = direct_conv_section(d); });
  const HardwareProfile hw = load_hardware_profile(good);
  CHECK_FALSE(hw.device.direct_conv[static_cast<int>(Phase::forward)].enabled());
  const DirectConv& back = hw.device.direct_conv[static_cast<int>(Phase::backward_data)];
  REQUIRE(back.enabled());
  ConvShape c;
  c.n = 4, c.c = 64, c.h = c.w = 16, c.k = 64, c.r = c.s = 3, c.pad_h = c.pad_w = 1, c.p = c.q = 16;
  CHECK(direct_conv_seconds(back, c, Phase::forward, 4) == Approx(direct_conv_seconds(d, c, Phase::forward, 4)));
  const std::string rate = write_variant("rate", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d);
    j["device"]["efficiency"]["direct_conv"]["forward"]["rate"][3] = -1;
  });
  CHECK_THROWS_WITH(load_hardware_profile(rate), Catch::Contains("efficiency.direct_conv.forward: field 'rate' element 3 must be a positive number"));
  const std::string phase = write_variant("phase", [&](nlohmann::json& j) { j["device"]["efficiency"]["direct_conv"]["sideways"] = direct_conv_section(d); });
  CHECK_THROWS_WITH(load_hardware_profile(phase), Catch::Contains("efficiency.direct_conv: unknown field 'sideways'"));
}

TEST_CASE("A direct convolution model with the gemm path writes five paths and its per-image call; four still load", "[hardware][errors]") {
  DirectConv d;
  d.lanes = 16, d.rate = {2e11, 2.5e11, 4.5e10, 1e12, 6e10}, d.input_fill_exponent = 0.6, d.output_fill_exponent = 1.0;
  d.input_bandwidth = {1e10, 2e10, 3e10, 4e10, 5e10}, d.weight_bandwidth = 1e10, d.output_bandwidth = {5e9, 6e9, 7e9, 8e9, 9e9};
  d.stride_exponent = {0.1, 0, -0.3, 0.1, 0.2}, d.call_overhead_s = 1e-5, d.image_call_s = 1.4e-7, d.gemm_path = true;
  ConvShape dw7;  // a depthwise 7x7 weight gradient: the gemm path
  dw7.n = 4, dw7.c = dw7.k = dw7.groups = 64, dw7.h = dw7.w = dw7.p = dw7.q = 16, dw7.r = dw7.s = 7, dw7.pad_h = dw7.pad_w = 3;
  const auto section = [&](const DirectConv& m) {
    return write_variant("gemm_path", [&](nlohmann::json& j) { j["device"]["efficiency"]["direct_conv"]["backward_weight"] = direct_conv_section(m); });
  };
  const DirectConv back = load_hardware_profile(section(d)).device.direct_conv[static_cast<int>(Phase::backward_weight)];
  CHECK(back.gemm_path);
  CHECK(back.rate[4] == Approx(6e10));
  CHECK(back.image_call_s == Approx(1.4e-7));
  CHECK(direct_conv_seconds(back, dw7, Phase::backward_weight, 4) == Approx(direct_conv_seconds(d, dw7, Phase::backward_weight, 4)));
  // Without the path: four per list, and the shape priced on the depthwise path.
  DirectConv without = d;
  without.gemm_path = false;
  const nlohmann::json four = direct_conv_section(without);
  CHECK(four.at("rate").size() == 4);
  const DirectConv read_four = load_hardware_profile(section(without)).device.direct_conv[static_cast<int>(Phase::backward_weight)];
  CHECK_FALSE(read_four.gemm_path);
  CHECK(priced_conv_path(read_four, dw7, Phase::backward_weight) == ConvPath::depthwise);
  // Profiles fitted before the per-image call have none: 0.
  const std::string old = write_variant("no_image_call", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = four;
    j["device"]["efficiency"]["direct_conv"]["forward"].erase("image_call_s");
  });
  CHECK(load_hardware_profile(old).device.direct_conv[0].image_call_s == 0.0);
  // The filter streamed per image: written and read back where fitted, absent (none) before it,
  // and one without the other named.
  DirectConv streamed = d;
  streamed.image_weight_bandwidth = 2.5e10, streamed.weight_cache_bytes = 2e6;
  const DirectConv read_streamed = load_hardware_profile(section(streamed)).device.direct_conv[static_cast<int>(Phase::backward_weight)];
  CHECK(read_streamed.image_weight_bandwidth == Approx(2.5e10));
  CHECK(read_streamed.weight_cache_bytes == Approx(2e6));
  CHECK_FALSE(direct_conv_section(d).contains("image_weight_bandwidth"));
  const std::string half = write_variant("half_streamed", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(streamed);
    j["device"]["efficiency"]["direct_conv"]["forward"].erase("weight_cache_bytes");
  });
  CHECK_THROWS_WITH(load_hardware_profile(half), Catch::Contains("efficiency.direct_conv.forward: field 'weight_cache_bytes'"));
  // Lists of different lengths are named.
  const std::string mixed = write_variant("mixed_paths", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d);
    j["device"]["efficiency"]["direct_conv"]["forward"]["output_bandwidth"].erase(4);
  });
  CHECK_THROWS_WITH(load_hardware_profile(mixed),
                    Catch::Contains("efficiency.direct_conv.forward: field 'output_bandwidth' must be a list of 5 numbers (direct, pointwise, native, depthwise, gemm)"));
  const std::string negative = write_variant("negative_call", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d);
    j["device"]["efficiency"]["direct_conv"]["forward"]["image_call_s"] = -1;
  });
  CHECK_THROWS_WITH(load_hardware_profile(negative), Catch::Contains("efficiency.direct_conv.forward: field 'image_call_s' must be in [0, 1) seconds"));
}

TEST_CASE("A direct convolution model's native columns and call are written and read back; profiles without them still load", "[hardware][errors]") {
  DirectConv d;
  d.lanes = 16, d.rate = {2e11, 2.5e11, 4.5e10, 1e12}, d.input_fill_exponent = 0.6, d.output_fill_exponent = 1.0;
  d.input_bandwidth = {1e10, 2e10, 3e10, 4e10}, d.weight_bandwidth = 1e10, d.output_bandwidth = {5e9, 6e9, 7e9, 8e9};
  d.call_overhead_s = 1e-5, d.image_call_s = 1e-7;
  d.native_column_block = 48, d.native_column_vector = 4, d.native_column_cleanup = 6;
  d.native_leftover_columns = 5.3, d.native_misaligned_slowdown = 3;
  d.native_call_overhead_s = 4e-6;
  ConvShape nine;  // a batch-4 1x1 layer over 3x3 images: PyTorch's native path, 9 columns per image
  nine.n = 4, nine.c = 512, nine.k = 1000, nine.h = nine.w = nine.p = nine.q = 3, nine.r = nine.s = 1;
  ConvShape sixteen = nine;  // over 4x4: 16 columns, whole vectors
  sixteen.h = sixteen.w = sixteen.p = sixteen.q = 4;
  const auto profile = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    return write_variant(name, [&](nlohmann::json& j) {
      j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d);
      edit(j["device"]["efficiency"]["direct_conv"]["forward"]);
    });
  };
  const DirectConv back = load_hardware_profile(profile("native_columns", [](nlohmann::json&) {})).device.direct_conv[0];
  CHECK(back.native_column_block == 48);
  CHECK(back.native_column_cleanup == 6);
  CHECK(back.native_call_overhead_s == Approx(4e-6));
  CHECK(conv_call_seconds(back, nine, Phase::forward) == Approx(4e-6));
  CHECK(direct_conv_seconds(back, nine, Phase::forward, 4) == Approx(direct_conv_seconds(d, nine, Phase::forward, 4)));
  // Nine columns are scalar: more time per FLOP than sixteen.
  const double per_flop_nine = direct_conv_seconds(back, nine, Phase::forward, 4) / 9, per_flop_sixteen = direct_conv_seconds(back, sixteen, Phase::forward, 4) / 16;
  CHECK(per_flop_nine > 1.5 * per_flop_sixteen);
  // Profiles fitted before the term: no column structure, the native rate alone.
  const DirectConv old = load_hardware_profile(profile("no_native_columns", [](nlohmann::json& f) {
                           for (const char* key : {"native_column_block", "native_column_vector", "native_column_cleanup", "native_leftover_columns",
                                                   "native_misaligned_slowdown", "native_call_overhead_s"})
                             f.erase(key);
                         })).device.direct_conv[0];
  CHECK(old.native_column_block == 0);
  CHECK(conv_call_seconds(old, nine, Phase::forward) == Approx(1e-5));  // the other paths' call
  DirectConv plain = d;
  plain.native_column_block = 0, plain.native_call_overhead_s = 0;
  CHECK(direct_conv_seconds(old, nine, Phase::forward, 4) == Approx(direct_conv_seconds(plain, nine, Phase::forward, 4)));
  // Together or not at all, and in range.
  CHECK_THROWS_WITH(load_hardware_profile(profile("native_half", [](nlohmann::json& f) { f.erase("native_column_vector"); })),
                    Catch::Contains("efficiency.direct_conv.forward: field 'native_column_vector' is required"));
  CHECK_THROWS_WITH(load_hardware_profile(profile("native_block", [](nlohmann::json& f) { f["native_column_block"] = 0; })),
                    Catch::Contains("efficiency.direct_conv.forward: field 'native_column_block' must be positive"));
  CHECK_THROWS_WITH(load_hardware_profile(profile("native_slow", [](nlohmann::json& f) { f["native_misaligned_slowdown"] = 0.5; })),
                    Catch::Contains("efficiency.direct_conv.forward: field 'native_misaligned_slowdown' must be in [1, 1e6]"));
  CHECK_THROWS_WITH(load_hardware_profile(profile("native_call", [](nlohmann::json& f) { f["native_call_overhead_s"] = 0; })),
                    Catch::Contains("efficiency.direct_conv.forward: field 'native_call_overhead_s'"));
  CHECK_THROWS_WITH(load_hardware_profile(profile("native_left", [](nlohmann::json& f) { f["native_leftover_columns"] = -2; })),
                    Catch::Contains("efficiency.direct_conv.forward: field 'native_leftover_columns' must be in [0, 1e6] columns"));
}

TEST_CASE("A direct convolution's large-filter edge prices big filters, and profiles without it still load", "[hardware][errors]") {
  DirectConv d;
  d.lanes = 16, d.rate = {2e11, 2.5e11, 4.5e10, 1e12}, d.input_fill_exponent = 0.6, d.output_fill_exponent = 1.0;
  d.input_bandwidth = {1e10, 2e10, 3e10, 4e10}, d.weight_bandwidth = 5e9, d.output_bandwidth = {5e9, 6e9, 7e9, 8e9};
  d.call_overhead_s = 1e-5;
  ConvShape small, big;  // a 9.4 MB and a 151 MB filter over 4x4 images
  small.n = big.n = 4, small.h = small.w = big.h = big.w = 4, small.r = small.s = big.r = big.s = 3;
  small.pad_h = small.pad_w = big.pad_h = big.pad_w = 1, small.p = small.q = big.p = big.q = 4;
  small.c = small.k = 512, big.c = big.k = 2048;
  const double small_before = direct_conv_seconds(d, small, Phase::forward, 4), big_before = direct_conv_seconds(d, big, Phase::forward, 4);
  d.large_weight_bytes = 5e7, d.large_weight_slowdown = 5;
  CHECK(direct_conv_seconds(d, small, Phase::forward, 4) == Approx(small_before).epsilon(0.01));  // far below the edge: (9.4 / 50)^4
  double parts[2];
  direct_conv_seconds(d, big, Phase::forward, 4, parts);
  const double filter_bytes = 2048.0 * 2048 * 9 * 4, r4 = std::pow(filter_bytes / 5e7, 4);
  CHECK(direct_conv_seconds(d, big, Phase::forward, 4) - big_before == Approx(filter_bytes / 5e9 * 4 * r4 / (1 + r4)).epsilon(1e-6));
  // oneDNN's im2col path multiplies the filter as it lies: no edge (an 822 MB filter's 7x7 window
  // padded by 3 over 2x2 images, which its JIT kernels leave to that path).
  ConvShape padded = big;
  padded.h = padded.w = padded.p = padded.q = 2, padded.r = padded.s = 7, padded.pad_h = padded.pad_w = 3;
  REQUIRE(conv_path(padded, Phase::forward) == ConvPath::gemm);
  DirectConv im2col = d;
  const int gemm = static_cast<int>(ConvPath::gemm);
  im2col.gemm_path = true, im2col.rate[gemm] = 1e11, im2col.input_bandwidth[gemm] = im2col.output_bandwidth[gemm] = 1e10;
  DirectConv no_edge = im2col;
  no_edge.large_weight_slowdown = 1;
  CHECK(direct_conv_seconds(im2col, padded, Phase::forward, 4) == Approx(direct_conv_seconds(no_edge, padded, Phase::forward, 4)));
  ConvShape unpadded = padded;  // the same filter over 8x8 images, on the direct path: the edge applies
  unpadded.h = unpadded.w = unpadded.p = unpadded.q = 8;
  REQUIRE(conv_path(unpadded, Phase::forward) == ConvPath::direct);
  const double big_filter = 2048.0 * 2048 * 49 * 4, rb4 = std::pow(big_filter / 5e7, 4);
  CHECK(direct_conv_seconds(im2col, unpadded, Phase::forward, 4) - direct_conv_seconds(no_edge, unpadded, Phase::forward, 4) ==
        Approx(big_filter / 5e9 * 4 * rb4 / (1 + rb4)).epsilon(1e-6));
  const std::string good = write_variant("edge", [&](nlohmann::json& j) { j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d); });
  CHECK(direct_conv_seconds(load_hardware_profile(good).device.direct_conv[0], big, Phase::forward, 4) == Approx(direct_conv_seconds(d, big, Phase::forward, 4)));
  const std::string old = write_variant("old", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d);
    j["device"]["efficiency"]["direct_conv"]["forward"].erase("large_weight_bytes");
    j["device"]["efficiency"]["direct_conv"]["forward"].erase("large_weight_slowdown");
  });
  CHECK(direct_conv_seconds(load_hardware_profile(old).device.direct_conv[0], big, Phase::forward, 4) == Approx(big_before));
  const std::string bad = write_variant("bad", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d);
    j["device"]["efficiency"]["direct_conv"]["forward"]["large_weight_slowdown"] = 0.5;
  });
  CHECK_THROWS_WITH(load_hardware_profile(bad), Catch::Contains("efficiency.direct_conv.forward: field 'large_weight_slowdown'"));
}

TEST_CASE("Processes sharing a CPU slow each other's kernels by the measured factor", "[hardware]") {
  DeviceSpec d = find_hardware_profile("cpu").device;
  CHECK(co_run_factor(d, 4) == 1.0);  // nothing measured
  d.co_run_slowdown = {{2, 1.1}, {4, 1.3}};
  CHECK(co_run_factor(d, 1) == 1.0);
  CHECK(co_run_factor(d, 2) == Approx(1.1));
  CHECK(co_run_factor(d, 3) == Approx(1.2));   // between measured counts
  CHECK(co_run_factor(d, 16) == Approx(1.3));  // beyond them: the largest measured
  const std::string good = write_variant("corun", [](nlohmann::json& j) { j["device"]["co_run_slowdown"] = {{"2", 1.05}}; });
  CHECK(load_hardware_profile(good).device.co_run_slowdown.at(2) == 1.05);
  const std::string key = write_variant("corun_key", [](nlohmann::json& j) { j["device"]["co_run_slowdown"] = {{"two", 1.05}}; });
  CHECK_THROWS_WITH(load_hardware_profile(key), Catch::Contains("device: field 'co_run_slowdown' key 'two' is not a process count of at least 2"));
  const std::string factor = write_variant("corun_factor", [](nlohmann::json& j) { j["device"]["co_run_slowdown"] = {{"2", -1}}; });
  CHECK_THROWS_WITH(load_hardware_profile(factor), Catch::Contains("factor for 2 processes must be a number in (0, 100]"));
}

TEST_CASE("The expected maximum of n standard normals", "[hardware]") {
  CHECK(expected_maximum_of_normals(1) == 0.0);
  // E[max of 2] = 1/sqrt(pi); tabulated values for 4, 10 and 1000 (e.g. Harter 1961).
  CHECK(expected_maximum_of_normals(2) == Approx(1 / std::sqrt(std::numbers::pi)).epsilon(1e-6));
  CHECK(expected_maximum_of_normals(4) == Approx(1.029375).epsilon(1e-5));
  CHECK(expected_maximum_of_normals(10) == Approx(1.538753).epsilon(1e-5));
  CHECK(expected_maximum_of_normals(1000) == Approx(3.241436).epsilon(1e-5));
  CHECK(expected_maximum_of_normals(1000000) > expected_maximum_of_normals(1000));
}

TEST_CASE("Ranks meeting every step wait for the slowest: measured, between and beyond", "[hardware]") {
  DeviceSpec d = find_hardware_profile("cpu").device;
  CHECK(sync_wait_factor(d, 64) == 1.0);  // nothing measured: no wait
  d.sync_wait = {{2, 1.04}};
  CHECK(sync_wait_factor(d, 1) == 1.0);
  CHECK(sync_wait_factor(d, 2) == Approx(1.04));
  // Beyond: the spread 2 ranks imply (0.04 / E[max of 2]) times E[max of N].
  const double spread = 0.04 / expected_maximum_of_normals(2);
  CHECK(sync_wait_factor(d, 4) == Approx(1 + spread * 1.029375).epsilon(1e-6));
  CHECK(sync_wait_factor(d, 1000) == Approx(1 + spread * 3.241436).epsilon(1e-6));
  d.sync_wait = {{2, 1.04}, {4, 1.10}};
  CHECK(sync_wait_factor(d, 3) == Approx(1.07));  // between measured counts
  CHECK(sync_wait_factor(d, 8) > 1.10);           // the largest count's spread carries on
  const std::string good = write_variant("wait", [](nlohmann::json& j) { j["device"]["sync_wait"] = {{"2", 1.045}}; });
  CHECK(load_hardware_profile(good).device.sync_wait.at(2) == 1.045);
  const std::string below = write_variant("wait_below", [](nlohmann::json& j) { j["device"]["sync_wait"] = {{"2", 0.97}}; });
  CHECK_THROWS_WITH(load_hardware_profile(below), Catch::Contains("device: field 'sync_wait' factor for 2 processes must be a number in [1, 100]"));
  const std::string key = write_variant("wait_key", [](nlohmann::json& j) { j["device"]["sync_wait"] = {{"1", 1.1}}; });
  CHECK_THROWS_WITH(load_hardware_profile(key), Catch::Contains("field 'sync_wait' key '1' is not a process count of at least 2"));
  // Nothing measured but a step jitter (the datasheet GPUs): the slowest of N wandering ranks.
  DeviceSpec sheet = find_hardware_profile("cpu").device;
  sheet.step_jitter = 0.005;
  CHECK(sync_wait_factor(sheet, 1) == 1.0);
  CHECK(sync_wait_factor(sheet, 1000) == Approx(1 + 0.005 * 3.241436).epsilon(1e-6));
  CHECK(find_hardware_profile("a100").device.step_jitter == 0.005);
  // A rank's wander averages over the micro-batches between meetings; a measured wait too.
  CHECK(sync_wait_factor(sheet, 1000, 4) == Approx(1 + 0.0025 * 3.241436).epsilon(1e-6));
  CHECK(sync_wait_factor(d, 3, 4) == Approx(1.035));
  // A device's persistent speed does not average out: with a 1.5% spread of speeds, 64
  // micro-batches leave the wait almost what the spread alone makes it.
  sheet.speed_spread = 0.015;
  CHECK(sync_wait_factor(sheet, 8) == Approx(1 + std::hypot(0.015, 0.005) * expected_maximum_of_normals(8)).epsilon(1e-9));
  CHECK(sync_wait_factor(sheet, 8, 64) == Approx(1 + std::hypot(0.015, 0.005 / 8) * expected_maximum_of_normals(8)).epsilon(1e-9));
  CHECK(sync_wait_factor(sheet, 8, 64) > 1 + 0.015 * expected_maximum_of_normals(8));
  CHECK(sync_wait_factor(sheet, 1, 64) == 1.0);
  for (const double bad : {-0.01, 1.5}) {
    const std::string spread_file = write_variant("spread", [bad](nlohmann::json& j) { j["device"]["speed_spread"] = bad; });
    CHECK_THROWS_WITH(load_hardware_profile(spread_file), Catch::Contains("device: field 'speed_spread' must be a relative spread in [0, 1)"));
  }
  for (const double bad : {-0.1, 1.0}) {
    const std::string jitter = write_variant("jitter", [bad](nlohmann::json& j) { j["device"]["step_jitter"] = bad; });
    CHECK_THROWS_WITH(load_hardware_profile(jitter), Catch::Contains("device: field 'step_jitter' must be a relative spread in [0, 1)"));
  }
}

TEST_CASE("DDP's own seconds per step: measured, between, beyond; bad ones named", "[hardware]") {
  DeviceSpec d = find_hardware_profile("cpu").device;
  CHECK(ddp_step_overhead_seconds(d, 8) == 0.0);  // nothing measured: none
  d.ddp_step_overhead_s = {{2, 0.008}, {4, 0.012}};
  CHECK(ddp_step_overhead_seconds(d, 1) == 0.0);  // one rank runs no DDP
  CHECK(ddp_step_overhead_seconds(d, 2) == Approx(0.008));
  CHECK(ddp_step_overhead_seconds(d, 3) == Approx(0.010));   // between measured counts
  CHECK(ddp_step_overhead_seconds(d, 64) == Approx(0.012));  // beyond them: the largest measured
  d.ddp_step_overhead_s = {{4, 0.012}};
  CHECK(ddp_step_overhead_seconds(d, 2) == Approx(0.004));   // from none at one rank
  const std::string good = write_variant("ddp", [](nlohmann::json& j) { j["device"]["ddp_step_overhead_s"] = {{"2", 0.0}, {"4", 0.009}}; });
  CHECK(load_hardware_profile(good).device.ddp_step_overhead_s.at(4) == 0.009);
  CHECK(load_hardware_profile(good).device.ddp_step_overhead_s.at(2) == 0.0);  // none is a measured value
  const std::string negative = write_variant("ddp_negative", [](nlohmann::json& j) { j["device"]["ddp_step_overhead_s"] = {{"2", -0.001}}; });
  CHECK_THROWS_WITH(load_hardware_profile(negative), Catch::Contains("device: field 'ddp_step_overhead_s' seconds for 2 processes must be a number in [0, 10]"));
  const std::string text = write_variant("ddp_text", [](nlohmann::json& j) { j["device"]["ddp_step_overhead_s"] = 0.008; });
  CHECK_THROWS_WITH(load_hardware_profile(text), Catch::Contains("field 'ddp_step_overhead_s' must be an object of process counts"));
}

TEST_CASE("A profile's host dispatch times are read per kernel class and checked", "[hardware]") {
  CHECK(find_hardware_profile("h200").device.host_dispatch_s.empty());  // datasheets: the host keeps ahead
  const std::string good = write_variant("dispatch", [](nlohmann::json& j) { j["device"]["host_dispatch_s"] = {{"gemm", 1.5e-5}, {"pass:batch_norm", 6e-5}}; });
  const DeviceSpec d = load_hardware_profile(good).device;
  CHECK(d.host_dispatch_s.at("gemm") == 1.5e-5);
  CHECK(d.host_dispatch_s.at("pass:batch_norm") == 6e-5);
  const std::string list = write_variant("dispatch_list", [](nlohmann::json& j) { j["device"]["host_dispatch_s"] = {1, 2}; });
  CHECK_THROWS_WITH(load_hardware_profile(list), Catch::Contains("field 'host_dispatch_s' must be an object of kernel classes and seconds"));
  const std::string negative = write_variant("dispatch_negative", [](nlohmann::json& j) { j["device"]["host_dispatch_s"] = {{"gemm", -1}}; });
  CHECK_THROWS_WITH(load_hardware_profile(negative), Catch::Contains("seconds for 'gemm' must be a number in [0, 1)"));
}

TEST_CASE("A profile's host time per op is read per op kind, and bad entries are named", "[hardware][errors]") {
  const std::string good = write_variant("op_host", [](nlohmann::json& j) {
    j["device"]["host_op_s"] = {{"attention", {{"forward", 8e-5}, {"backward", 1.2e-4}}}, {"linear", {{"forward", 1e-5}, {"backward", 2e-5}}}};
  });
  const DeviceSpec d = load_hardware_profile(good).device;
  REQUIRE(d.host_op_s.size() == 2);
  CHECK(d.host_op_s.at("attention").forward == 8e-5);
  CHECK(d.host_op_s.at("attention").backward == 1.2e-4);
  const std::string kind = write_variant("op_host_kind", [](nlohmann::json& j) { j["device"]["host_op_s"] = {{"attn", {{"forward", 1e-5}, {"backward", 1e-5}}}}; });
  CHECK_THROWS_WITH(load_hardware_profile(kind), Catch::Contains("field 'host_op_s' names an unknown op kind 'attn'"));
  const std::string missing = write_variant("op_host_missing", [](nlohmann::json& j) { j["device"]["host_op_s"] = {{"linear", {{"forward", 1e-5}}}}; });
  CHECK_THROWS_WITH(load_hardware_profile(missing), Catch::Contains("host_op_s.linear: field 'backward' is required"));
  const std::string negative = write_variant("op_host_negative", [](nlohmann::json& j) {
    j["device"]["host_op_s"] = {{"linear", {{"forward", -1e-5}, {"backward", 1e-5}}}};
  });
  CHECK_THROWS_WITH(load_hardware_profile(negative), Catch::Contains("host_op_s.linear: field 'forward' must be seconds in [0, 1)"));
}

TEST_CASE("A profile's host dispatch spread is a log spread in [0, 5)", "[hardware]") {
  const std::string good = write_variant("dispatch_sigma", [](nlohmann::json& j) { j["device"]["host_dispatch_sigma"] = 0.25; });
  CHECK(load_hardware_profile(good).device.host_dispatch_sigma == 0.25);
  const std::string bad = write_variant("dispatch_sigma_bad", [](nlohmann::json& j) { j["device"]["host_dispatch_sigma"] = -0.1; });
  CHECK_THROWS_WITH(load_hardware_profile(bad), Catch::Contains("host_dispatch_sigma"));
  // A step's own spread (fit --steps): absent is none, out of range is named.
  CHECK(load_hardware_profile(good).device.step_sigma == 0);
  const std::string step = write_variant("step_sigma", [](nlohmann::json& j) { j["device"]["step_sigma"] = 0.12; });
  CHECK(load_hardware_profile(step).device.step_sigma == 0.12);
  const std::string step_bad = write_variant("step_sigma_bad", [](nlohmann::json& j) { j["device"]["step_sigma"] = -0.5; });
  CHECK_THROWS_WITH(load_hardware_profile(step_bad), Catch::Contains("field 'step_sigma' must be in [0, 5)"));
}

TEST_CASE("A profile's step warmth is read per direction and its bad fields are named", "[hardware][errors]") {
  const auto warmth = [](nlohmann::json& j) {
    j["device"]["step_warmth"] = {{"cache_bytes", 2.7e7}, {"most_saved", 0.8},
                                  {"conv", {{"forward", {{"call_s", 6e-5}, {"input_s_per_byte", 3e-11}, {"weight_s_per_byte", 1.5e-11}, {"output_s_per_byte", 0.0}}}}}};
  };
  const DeviceSpec d = load_hardware_profile(write_variant("warmth", warmth)).device;
  CHECK(d.step_warmth.enabled());
  CHECK(d.step_warmth.cache_bytes == 2.7e7);
  CHECK(d.step_warmth.conv[0].call_s == 6e-5);
  CHECK(d.step_warmth.conv[0].weight_s_per_byte == 1.5e-11);
  CHECK(d.step_warmth.conv[0].call_tau_s == 0);  // not given: a fixed part without bound (profiles before it)
  CHECK(d.step_warmth.conv[2].call_s == 0);  // a direction not given saves nothing
  // The warmth above with one field of its forward direction set to `value`.
  const auto forward_with = [&](const std::string& name, const char* field, double value) {
    return write_variant(name, [&](nlohmann::json& j) {
      warmth(j);
      j["device"]["step_warmth"]["conv"]["forward"][field] = value;
    });
  };
  CHECK(load_hardware_profile(forward_with("warmth_tau", "call_tau_s", 1.5e-4)).device.step_warmth.conv[0].call_tau_s == 1.5e-4);
  CHECK_THROWS_WITH(load_hardware_profile(forward_with("warmth_tau_bad", "call_tau_s", -1)),
                    Catch::Contains("step_warmth.conv.forward") && Catch::Contains("call_tau_s"));
  CHECK(d.step_warmth.realized_share == 1);  // not given: all of the pairs' savings (profiles before it)
  const auto share = [&](const std::string& name, double value) {
    return write_variant(name, [&](nlohmann::json& j) {
      warmth(j);
      j["device"]["step_warmth"]["realized_share"] = value;
    });
  };
  CHECK(load_hardware_profile(share("warmth_share", 0.35)).device.step_warmth.realized_share == 0.35);
  CHECK_THROWS_WITH(load_hardware_profile(share("warmth_share_bad", 1.5)), Catch::Contains("step_warmth") && Catch::Contains("realized_share") && Catch::Contains("must be in [0, 1]"));
  CHECK_FALSE(d.step_warmth.realized_share_inference.has_value());  // not given: inference at training's share
  CHECK(d.step_warmth.share(true) == d.step_warmth.realized_share);
  const auto inference_share = [&](const std::string& name, double value) {
    return write_variant(name, [&](nlohmann::json& j) {
      warmth(j);
      j["device"]["step_warmth"]["realized_share"] = 0.2;
      j["device"]["step_warmth"]["realized_share_inference"] = value;
    });
  };
  const StepWarmth own = load_hardware_profile(inference_share("warmth_inference_share", 0.6)).device.step_warmth;
  CHECK(own.realized_share_inference == 0.6);
  CHECK(own.share(true) == 0.6);
  CHECK(own.share(false) == 0.2);
  CHECK_THROWS_WITH(load_hardware_profile(inference_share("warmth_inference_share_bad", -0.1)),
                    Catch::Contains("step_warmth") && Catch::Contains("realized_share_inference") && Catch::Contains("must be in [0, 1]"));
  CHECK(d.step_warmth.in_step_excess == 0);             // not given: none (profiles before it)
  CHECK_FALSE(d.step_warmth.in_step_excess_inference.has_value());   // and inference at training's
  const auto excess = [&](const std::string& name, const char* field, double value) {
    return write_variant(name, [&](nlohmann::json& j) {
      warmth(j);
      j["device"]["step_warmth"][field] = value;
    });
  };
  CHECK(load_hardware_profile(excess("warmth_excess", "in_step_excess", 0.09)).device.step_warmth.excess(false) == 0.09);
  CHECK(load_hardware_profile(excess("warmth_excess_inference", "in_step_excess_inference", 0.07)).device.step_warmth.excess(true) == 0.07);
  CHECK_THROWS_WITH(load_hardware_profile(excess("warmth_excess_bad", "in_step_excess", -0.1)),
                    Catch::Contains("step_warmth") && Catch::Contains("in_step_excess") && Catch::Contains("must be in [0, 1)"));
  CHECK_THROWS_WITH(load_hardware_profile(excess("warmth_excess_inference_bad", "in_step_excess_inference", 1.0)),
                    Catch::Contains("in_step_excess_inference") && Catch::Contains("must be in [0, 1)"));
  // The cold timings' reach and the price of a byte beyond it: none where not given.
  CHECK(d.step_warmth.far_s_per_byte == 0);
  CHECK_FALSE(d.step_warmth.far_s_per_byte_inference.has_value());
  CHECK(d.step_warmth.last_level_cache_bytes == 0);
  const StepWarmth far = load_hardware_profile(write_variant("warmth_far", [&](nlohmann::json& j) {
                           warmth(j);
                           j["device"]["step_warmth"]["cold_eviction_bytes"] = 67108864;
                           j["device"]["step_warmth"]["last_level_cache_bytes"] = 503316480;
                           j["device"]["step_warmth"]["far_s_per_byte"] = 2.3e-10;
                           j["device"]["step_warmth"]["far_s_per_byte_inference"] = 0.0;
                         })).device.step_warmth;
  CHECK(far.cold_eviction_bytes == 67108864);
  CHECK(far.last_level_cache_bytes == 503316480);
  CHECK(far.far(false) == 2.3e-10);
  CHECK(far.far(true) == 0.0);
  CHECK_THROWS_WITH(load_hardware_profile(excess("warmth_far_bad", "far_s_per_byte", 1e-3)),
                    Catch::Contains("step_warmth") && Catch::Contains("far_s_per_byte") && Catch::Contains("must be in [0, 1e-6)"));
  CHECK_THROWS_WITH(load_hardware_profile(excess("warmth_llc_bad", "last_level_cache_bytes", -1.0)),
                    Catch::Contains("last_level_cache_bytes") && Catch::Contains("must be in [0, 1e13) bytes"));
  // The measured reach and the passes' prices per far byte: none where not given.
  CHECK(far.far_reach_bytes == 0);
  CHECK(far.cold_reach().last_level_bytes == 503316480);
  CHECK(far.pass_far_read_s_per_byte == 0);
  const StepWarmth curve = load_hardware_profile(write_variant("warmth_pass_far", [&](nlohmann::json& j) {
                             warmth(j);
                             j["device"]["step_warmth"]["cold_eviction_bytes"] = 67108864;
                             j["device"]["step_warmth"]["far_reach_bytes"] = 2.6e8;
                             j["device"]["step_warmth"]["pass_far_read_s_per_byte"] = 4e-11;
                             j["device"]["step_warmth"]["pass_far_written_s_per_byte"] = 5.8e-11;
                           })).device.step_warmth;
  CHECK(curve.cold_reach().last_level_bytes == 2.6e8);
  CHECK(curve.pass_far_read_s_per_byte == 4e-11);
  CHECK(curve.pass_far_written_s_per_byte == 5.8e-11);
  CHECK_THROWS_WITH(load_hardware_profile(excess("warmth_pass_far_bad", "pass_far_written_s_per_byte", -1e-11)),
                    Catch::Contains("step_warmth") && Catch::Contains("pass_far_written_s_per_byte") && Catch::Contains("must be in [0, 1e-6)"));
  // A reach inside the eviction would make every byte far.
  CHECK_THROWS_WITH(load_hardware_profile(write_variant("warmth_reach_bad", [&](nlohmann::json& j) {
                      warmth(j);
                      j["device"]["step_warmth"]["cold_eviction_bytes"] = 67108864;
                      j["device"]["step_warmth"]["far_reach_bytes"] = 1e6;
                    })),
                    Catch::Contains("far_reach_bytes") && Catch::Contains("above cold_eviction_bytes"));
  CHECK_FALSE(d.step_warmth.conv[0].native_call_s.has_value());  // not given: the native path saves call_s
  CHECK(load_hardware_profile(forward_with("warmth_native", "native_call_s", 4e-5)).device.step_warmth.conv[0].native_call_s == 4e-5);
  CHECK_THROWS_WITH(load_hardware_profile(forward_with("warmth_native_bad", "native_call_s", 2.0)),
                    Catch::Contains("step_warmth.conv.forward") && Catch::Contains("native_call_s") && Catch::Contains("must be in [0, 1)"));
  CHECK_FALSE(load_hardware_profile(write_variant("no_warmth", [](nlohmann::json&) {})).device.step_warmth.enabled());
  CHECK_THROWS_WITH(load_hardware_profile(forward_with("warmth_negative", "call_s", -1e-5)),
                    Catch::Contains("step_warmth.conv.forward") && Catch::Contains("call_s"));
  const std::string no_cache = write_variant("warmth_no_cache", [&](nlohmann::json& j) {
    warmth(j);
    j["device"]["step_warmth"].erase("cache_bytes");
  });
  CHECK_THROWS_WITH(load_hardware_profile(no_cache), Catch::Contains("cache_bytes"));
  const std::string unknown = write_variant("warmth_unknown", [&](nlohmann::json& j) {
    warmth(j);
    j["device"]["step_warmth"]["conv"]["sideways"] = nlohmann::json::object();
  });
  CHECK_THROWS_WITH(load_hardware_profile(unknown), Catch::Contains("sideways"));
}

TEST_CASE("A fitted communication model is read back as written; models fitted before the per-call term still load", "[hardware][errors]") {
  FittedCommModel m;
  m.kind = CommModelKind::dnnperf;
  m.algorithm = "ring";
  m.params = {1e-6, 1e-10, 8e-6, 2e-10, 0.0, 3e-11, 1e-6, 0.3, 0.0, 2e-5, 0.0};
  m.covariance.assign(121, 0.0);
  for (int i = 0; i < 11; ++i) m.covariance[static_cast<std::size_t>(i * 12)] = 1e-14;
  m.eager_limit = 4096, m.cache_bytes = 1e6, m.memory_bytes = 3e7, m.oversubscribed_from = 2;
  const nlohmann::json section = communication_section({m});
  const std::vector<FittedCommModel> back = read_communication_section(section, "profile.json: communication");
  REQUIRE(back.size() == 1);
  CHECK(comm_seconds(back[0], 1e5, 4) == Approx(comm_seconds(m, 1e5, 4)));
  // Before the per-call term the model had 9 parameters and a 9x9 covariance: the call term is 0;
  // before the fast path, 10 and 10x10.
  nlohmann::json old = section;
  old[0]["parameters"].erase("oversubscribed_call_latency_s_per_rank");
  old[0]["parameters"].erase("alpha_past_fast_path_s");
  old[0].erase("fast_limit_bytes");
  old[0]["covariance"] = std::vector<double>(81, 0.0);
  const std::vector<FittedCommModel> read_old = read_communication_section(old, "old.json: communication");
  REQUIRE(read_old.size() == 1);
  CHECK(read_old[0].params.size() == 11);
  CHECK(read_old[0].params[9] == 0.0);
  CHECK(read_old[0].covariance.size() == 121);
  CHECK(std::isinf(read_old[0].fast_limit));
  CHECK(comm_seconds(read_old[0], 1e5, 4) == Approx(comm_seconds(m, 1e5, 4) - 2 * 2e-5));
  nlohmann::json before_fast = section;
  before_fast[0]["parameters"].erase("alpha_past_fast_path_s");
  before_fast[0]["covariance"] = std::vector<double>(100, 1e-20);
  const FittedCommModel read_before_fast = read_communication_section(before_fast, "old.json: communication").at(0);
  CHECK(read_before_fast.covariance.size() == 121);
  CHECK(read_before_fast.covariance[9 * 11 + 9] == 1e-20);
  CHECK(read_before_fast.covariance[10 * 11 + 10] == 0.0);
  nlohmann::json gap = section;
  gap[0]["parameters"].erase("oversubscribed_call_latency_s_per_rank");
  CHECK_THROWS_WITH(read_communication_section(gap, "bad.json: communication"), Catch::Contains("'alpha_past_fast_path_s' is given without the parameters before it"));
  nlohmann::json bad = section;
  bad[0]["covariance"] = std::vector<double>(50, 0.0);
  CHECK_THROWS_WITH(read_communication_section(bad, "bad.json: communication"), Catch::Contains("bad.json: communication[0]: field 'covariance'"));
  // How the copies slow with ranks sharing cores: written, read back; profiles without the field
  // count extra ranks; a bad value is named.
  CHECK(section[0]["oversubscription_load"] == "extra_ranks");
  FittedCommModel busiest = m;
  busiest.busiest_core_load = true;
  const nlohmann::json busiest_section = communication_section({busiest});
  const FittedCommModel busiest_back = read_communication_section(busiest_section, "b.json: communication").at(0);
  CHECK(busiest_back.busiest_core_load);
  CHECK(comm_seconds(busiest_back, 1e6, 3) == Approx(comm_seconds(busiest, 1e6, 3)));
  // On 2 cores, 3 ranks put one extra on the busiest core either way; 4 ranks put 2 extra in all
  // but 1 on each core.
  CHECK(comm_seconds(busiest, 1e6, 3) == Approx(comm_seconds(m, 1e6, 3)));
  CHECK(comm_seconds(busiest, 1e6, 4) < comm_seconds(m, 1e6, 4));
  nlohmann::json no_load = section;
  no_load[0].erase("oversubscription_load");
  CHECK_FALSE(read_communication_section(no_load, "old.json: communication").at(0).busiest_core_load);
  nlohmann::json bad_load = section;
  bad_load[0]["oversubscription_load"] = "all";
  CHECK_THROWS_WITH(read_communication_section(bad_load, "bad.json: communication"), Catch::Contains("field 'oversubscription_load' must be extra_ranks or busiest_core, is 'all'"));
  // Which ranks share the cores in a step: written and read back; older profiles: all of them.
  FittedCommModel active = busiest;
  active.algorithm = "rabenseifner";
  active.active_ranks_load = true;
  const nlohmann::json active_section = communication_section({active});
  CHECK(active_section[0]["oversubscribed_ranks"] == "active");
  const FittedCommModel active_back = read_communication_section(active_section, "a.json: communication").at(0);
  CHECK(active_back.active_ranks_load);
  CHECK(comm_seconds(active_back, 1e6, 3) == Approx(comm_seconds(active, 1e6, 3)));
  // Rabenseifner on 3 ranks of 2 cores: a fold, then 2 ranks; counting all 3 prices it slower.
  FittedCommModel all_ranks = active;
  all_ranks.active_ranks_load = false;
  CHECK(comm_seconds(active, 1e6, 3) < comm_seconds(all_ranks, 1e6, 3));
  CHECK(comm_seconds(active, 1e6, 4) == Approx(comm_seconds(all_ranks, 1e6, 4)));  // 4 ranks: all active
  no_load[0].erase("oversubscribed_ranks");
  CHECK_FALSE(read_communication_section(no_load, "old.json: communication").at(0).active_ranks_load);
  nlohmann::json bad_ranks = active_section;
  bad_ranks[0]["oversubscribed_ranks"] = "some";
  CHECK_THROWS_WITH(read_communication_section(bad_ranks, "bad.json: communication"), Catch::Contains("field 'oversubscribed_ranks' must be all or active, is 'some'"));
  nlohmann::json no_cores = busiest_section;
  no_cores[0]["oversubscribed_from_ranks"] = 0;
  CHECK_THROWS_WITH(read_communication_section(no_cores, "bad.json: communication"), Catch::Contains("field 'oversubscribed_from_ranks' must be at least 1"));
}

TEST_CASE("A library's choice keeps its map and measured rank counts their own models; bad ones are named", "[hardware][errors]") {
  FittedCommModel m;
  m.kind = CommModelKind::dnnperf;
  m.algorithm = "default";
  m.params = {1e-6, 1e-10, 8e-6, 2e-10, 0.0, 3e-11, 1e-6, 0.3, 0.0, 2e-5, 2e-7};
  m.eager_limit = 4096, m.fast_limit = 400, m.cache_bytes = 1e6, m.memory_bytes = 3e7, m.oversubscribed_from = 2;
  m.library_choices = {{2, 0, "recursive_doubling"}, {2, 5000, "ring"}, {4, 0, "rabenseifner"}};
  FittedCommModel local = m;
  local.library_choices = {{3, 0, "ring"}};
  local.params[0] = 5e-6;
  local.fitted_ranks = 3;
  m.at_ranks = {local};
  // The map: recursive doubling below 5000 B on 2 ranks (one step of n), ring above (two of n/2);
  // 3 ranks take the nearer of 2 and 4, the lower on a tie.
  CHECK(m.steps_of(4096, 2) == "recursive_doubling");
  CHECK(m.steps_of(8192, 2) == "ring");
  CHECK(m.steps_of(8192, 4) == "rabenseifner");
  CHECK(m.steps_of(8192, 8) == "rabenseifner");
  CHECK(m.steps_of(8192, 3) == "ring");
  // 3 ranks were fitted alone: priced by that model, other counts by the joint one.
  CHECK(comm_seconds(m, 1e3, 3) == Approx(comm_seconds(local, 1e3, 3)));
  CHECK(comm_seconds(m, 1e3, 3) != Approx(comm_seconds_with(m, m.params.data(), 1e3, 3)));
  CHECK(comm_prediction(m, 1e3, 3).seconds == Approx(comm_prediction(local, 1e3, 3).seconds));
  CHECK(comm_seconds(m, 1e3, 4) == Approx(comm_seconds_with(m, m.params.data(), 1e3, 4)));
  // The fast path: messages from F on pay a_f more while eager.
  FittedCommModel no_fast = m;
  no_fast.at_ranks.clear();
  no_fast.fast_limit = std::numeric_limits<double>::infinity();
  FittedCommModel joint = m;
  joint.at_ranks.clear();
  CHECK(comm_seconds(joint, 256, 2) == Approx(comm_seconds(no_fast, 256, 2)));
  CHECK(comm_seconds(joint, 1024, 2) == Approx(comm_seconds(no_fast, 1024, 2) + 2e-7));

  // A count without a model of its own gets the spread of the held-out counts in its interval.
  const CommPrediction unmeasured = comm_prediction(m, 1e3, 4);
  m.unmeasured_ranks_sigma = 0.5;
  CHECK(comm_prediction(m, 1e3, 4).seconds == Approx(unmeasured.seconds));
  CHECK(comm_prediction(m, 1e3, 4).high / comm_prediction(m, 1e3, 4).seconds > 1.5 * (unmeasured.high / unmeasured.seconds));
  CHECK(comm_prediction(m, 1e3, 3).high == Approx(comm_prediction(local, 1e3, 3).high));  // measured: its own model's

  const nlohmann::json section = communication_section({m});
  CHECK(section[0]["at_ranks"][0]["ranks"] == 3);
  CHECK(section[0]["unmeasured_ranks_sigma"] == 0.5);
  const FittedCommModel back = read_communication_section(section, "p.json: communication").at(0);
  REQUIRE(back.at_ranks.size() == 1);
  CHECK(back.library_choices.size() == 3);
  CHECK(back.fast_limit == 400);
  for (const int ranks : {2, 3, 4})
    for (const double bytes : {64.0, 1024.0, 8192.0, 1e6}) CHECK(comm_seconds(back, bytes, ranks) == Approx(comm_seconds(m, bytes, ranks)));

  const auto fails = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& message) {
    nlohmann::json bad = section;
    edit(bad[0]);
    CHECK_THROWS_WITH(read_communication_section(bad, "bad.json: communication"), Catch::Contains(message));
  };
  fails([](nlohmann::json& j) { j["library_choices"][1]["algorithm"] = "tree_of_life"; },
        "bad.json: communication[0]: library_choices[1]: field 'algorithm' must be one of dnnperf's algorithms");
  fails([](nlohmann::json& j) { j["library_choices"][1]["from_bytes"] = 0; }, "library_choices[1]: field 'from_bytes' the list must be sorted");
  fails([](nlohmann::json& j) { j["library_choices"][0]["ranks"] = 1; }, "library_choices[0]: field 'ranks' must be at least 2");
  fails([](nlohmann::json& j) { j["algorithm"] = "ring"; }, "field 'library_choices' belongs to a library's own choice");
  fails([](nlohmann::json& j) { j["at_ranks"][0]["at_ranks"] = nlohmann::json::array(); }, "at_ranks[0]: field 'at_ranks' nests only one level");
  fails([](nlohmann::json& j) { j["at_ranks"].push_back(j["at_ranks"][0]); }, "at_ranks[1]: field 'ranks' the list must be sorted by ranks");
  fails([](nlohmann::json& j) { j["at_ranks"][0]["parameters"].erase("alpha_eager_s"); }, "at_ranks[0]: parameters: field 'alpha_eager_s'");
  fails([](nlohmann::json& j) { j["unmeasured_ranks_sigma"] = -1; }, "field 'unmeasured_ranks_sigma' must be in [0, 10)");
}

TEST_CASE("The depthwise path has its own window exponent; profiles without one share the direct path's", "[hardware][errors]") {
  DirectConv d;
  d.lanes = 16, d.rate = {2e11, 2.5e11, 4.5e10, 1e11}, d.input_fill_exponent = 0.6, d.output_fill_exponent = 1.0;
  d.input_bandwidth = {1e10, 2e10, 3e10, 4e10}, d.weight_bandwidth = 1e10, d.output_bandwidth = {5e9, 6e9, 7e9, 8e9};
  d.call_overhead_s = 1e-5, d.window_exponent = 0.0, d.depthwise_window_exponent = 1.5;
  ConvShape dense, dw3, dw7;
  dense.n = dw3.n = dw7.n = 4, dense.c = dense.k = dw3.c = dw3.k = dw7.c = dw7.k = 64;
  dense.h = dense.w = dw3.h = dw3.w = dw7.h = dw7.w = 16, dense.p = dense.q = dw3.p = dw3.q = dw7.p = dw7.q = 16;
  dense.r = dense.s = dw3.r = dw3.s = 3, dw7.r = dw7.s = 7;
  dense.pad_h = dense.pad_w = dw3.pad_h = dw3.pad_w = 1, dw7.pad_h = dw7.pad_w = 3;
  dw3.groups = dw7.groups = 64;
  double p3[2], p7[2], pd[2];
  direct_conv_seconds(d, dw3, Phase::forward, 4, p3);
  direct_conv_seconds(d, dw7, Phase::forward, 4, p7);
  direct_conv_seconds(d, dense, Phase::forward, 4, pd);
  // Arithmetic per FLOP grows as window^1.5 on the depthwise path: 49/9 more FLOPs, (49/9)^1.5 more per FLOP.
  CHECK(p7[0] / p3[0] == Approx(std::pow(49.0 / 9.0, 2.5)).epsilon(1e-9));
  DirectConv shared = d;
  shared.depthwise_window_exponent = 0.0;
  double ps[2];
  direct_conv_seconds(shared, dense, Phase::forward, 4, ps);
  CHECK(ps[0] == Approx(pd[0]));  // the direct path does not see it
  const std::string good = write_variant("dw_window", [&](nlohmann::json& j) { j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d); });
  CHECK(direct_conv_seconds(load_hardware_profile(good).device.direct_conv[0], dw7, Phase::forward, 4) == Approx(direct_conv_seconds(d, dw7, Phase::forward, 4)));
  const std::string old = write_variant("dw_window_old", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d);
    j["device"]["efficiency"]["direct_conv"]["forward"].erase("depthwise_window_exponent");
  });
  CHECK(load_hardware_profile(old).device.direct_conv[0].depthwise_window_exponent == 0.0);
  const std::string bad = write_variant("dw_window_bad", [&](nlohmann::json& j) {
    j["device"]["efficiency"]["direct_conv"]["forward"] = direct_conv_section(d);
    j["device"]["efficiency"]["direct_conv"]["forward"]["depthwise_window_exponent"] = 7;
  });
  CHECK_THROWS_WITH(load_hardware_profile(bad), Catch::Contains("efficiency.direct_conv.forward: field 'depthwise_window_exponent'"));
}

TEST_CASE("A pass family's scalar rate for short runs is read, and a bad one named", "[hardware][errors]") {
  const std::string good = write_variant("short_runs", [](nlohmann::json& j) {
    j["device"]["efficiency"]["passes"]["batch_norm_backward"] = {{"max_efficiency", 0.5}, {"half_efficiency_bytes", 1e5}, {"short_run_element_s", 1.5e-8}};
  });
  CHECK(load_hardware_profile(good).device.passes.at("batch_norm_backward").short_run_element_s == 1.5e-8);
  const std::string bad = write_variant("short_runs_bad", [](nlohmann::json& j) {
    j["device"]["efficiency"]["passes"]["batch_norm_backward"] = {{"max_efficiency", 0.5}, {"short_run_element_s", -1}};
  });
  CHECK_THROWS_WITH(load_hardware_profile(bad), Catch::Contains("efficiency.passes.batch_norm_backward: field 'short_run_element_s' must be in [0, 1) seconds"));
}

TEST_CASE("A pass family's rate per operation is read, and a bad one named", "[hardware][errors]") {
  const std::string good = write_variant("per_operation", [](nlohmann::json& j) {
    j["device"]["efficiency"]["passes"]["max_pool"] = {{"max_efficiency", 0.1}, {"half_efficiency_bytes", 5e4}, {"operation_s", 2e-9}};
  });
  CHECK(load_hardware_profile(good).device.passes.at("max_pool").operation_s == 2e-9);
  CHECK(load_hardware_profile(good).device.passes.at("max_pool").short_run_element_s == 0);
  const std::string bad = write_variant("per_operation_bad", [](nlohmann::json& j) {
    j["device"]["efficiency"]["passes"]["max_pool"] = {{"max_efficiency", 0.1}, {"operation_s", -2e-9}};
  });
  CHECK_THROWS_WITH(load_hardware_profile(bad), Catch::Contains("efficiency.passes.max_pool: field 'operation_s' must be in [0, 1) seconds"));
}

TEST_CASE("A profile's reference passes are read back as written, and bad entries are named", "[hardware][errors]") {
  const std::vector<ReferencePass> passes{{"memory_copy", 64 << 20, DType::f32, 3.1e-3}, {"memory_activation", 16 << 20, DType::f32, 5.0e-4}};
  const std::vector<ReferencePass> back = read_reference_passes_section(reference_passes_section(passes), "p.json: reference_passes");
  REQUIRE(back.size() == 2);
  CHECK(back[0].op == "memory_copy");
  CHECK(back[0].bytes == 64 << 20);
  CHECK(back[1].seconds == 5.0e-4);
  const auto variant = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json section = reference_passes_section(passes);
    change(section[1]);
    return section;
  };
  CHECK_THROWS_WITH(read_reference_passes_section(variant([](nlohmann::json& p) { p["op"] = "gemm"; }), "p.json: reference_passes"),
                    Catch::Contains("reference_passes[1]") && Catch::Contains("op") && Catch::Contains("memory pass"));
  CHECK_THROWS_WITH(read_reference_passes_section(variant([](nlohmann::json& p) { p["bytes"] = 0; }), "p.json: reference_passes"),
                    Catch::Contains("reference_passes[1]") && Catch::Contains("bytes"));
  CHECK_THROWS_WITH(read_reference_passes_section(variant([](nlohmann::json& p) { p["seconds"] = -1; }), "p.json: reference_passes"),
                    Catch::Contains("reference_passes[1]") && Catch::Contains("seconds"));
  CHECK_THROWS_WITH(read_reference_passes_section(variant([](nlohmann::json& p) { p["speed"] = 1; }), "p.json: reference_passes"),
                    Catch::Contains("reference_passes[1]") && Catch::Contains("speed"));
  // A whole profile with a bad section names its file.
  const std::string path = write_variant("bad_reference_passes", [](nlohmann::json& j) { j["reference_passes"] = {{{"op", "memory_copy"}, {"bytes", 4096}}}; });
  CHECK_THROWS_WITH(load_hardware_profile(path), Catch::Contains(path) && Catch::Contains("reference_passes[0]"));
}

TEST_CASE("A profile names the CPU it was calibrated on, or nothing; a malformed one is named", "[hardware][cpu][errors]") {
  const nlohmann::json cpu = {{"vendor", "AuthenticAMD"}, {"name", "AMD EPYC"}, {"family", 25}, {"model", 17}};
  const HardwareProfile with = load_hardware_profile(write_variant("measured_on", [&](nlohmann::json& j) { j["measured_on"] = {{"cpu", cpu}}; }));
  CHECK(with.measured_on_cpu == cpu);
  CHECK(find_hardware_profile("a100").measured_on_cpu.is_null());  // a datasheet profile
  const std::string bad = write_variant("bad_measured_on", [&](nlohmann::json& j) { j["measured_on"] = {{"cpu", {{"family", "zen"}}}}; });
  CHECK_THROWS_WITH(load_hardware_profile(bad), Catch::Contains(bad) && Catch::Contains("measured_on.cpu") && Catch::Contains("family"));
  const std::string unknown = write_variant("unknown_measured_on", [&](nlohmann::json& j) { j["measured_on"] = {{"gpu", "H200"}}; });
  CHECK_THROWS_WITH(load_hardware_profile(unknown), Catch::Contains("measured_on") && Catch::Contains("gpu"));
}

TEST_CASE("A profile names the allocator policy its measurements ran with, or nothing", "[hardware][errors]") {
  const HardwareProfile with = load_hardware_profile(
      write_variant("measured_with", [&](nlohmann::json& j) { j["measured_on"] = {{"allocator", "glibc, every block from the heap"}}; }));
  CHECK(with.measured_with_allocator == "glibc, every block from the heap");
  CHECK(with.measured_on_cpu.is_null());
  CHECK(find_hardware_profile("cpu").measured_with_allocator.empty());
  const std::string bad = write_variant("bad_measured_with", [&](nlohmann::json& j) { j["measured_on"] = {{"allocator", 3}}; });
  CHECK_THROWS_WITH(load_hardware_profile(bad), Catch::Contains(bad) && Catch::Contains("allocator"));
}

TEST_CASE("Collectives between nodes get the bandwidth their transport achieves; bad cluster fields are named", "[hardware][errors]") {
  // InfiniBand by the link kind, at nccl-tests' 97.6% of the line rate.
  const HardwareProfile a100 = find_hardware_profile("a100");
  REQUIRE(a100.cluster.inter.kind == "infiniband-hdr");
  CHECK(a100.cluster.achieved_bandwidth() == Approx(0.976 * a100.cluster.inter.bandwidth));
  // Named, and given outright.
  const HardwareProfile tcp = load_hardware_profile(write_variant("tcp", [](nlohmann::json& j) { j["cluster"]["transport"] = "tcp"; }));
  CHECK(tcp.cluster.achieved_bandwidth() == Approx(0.45 * tcp.cluster.inter.bandwidth));
  const HardwareProfile own = load_hardware_profile(write_variant("own", [](nlohmann::json& j) { j["cluster"]["achieved_fraction"] = 0.6; }));
  CHECK(own.cluster.achieved_bandwidth() == Approx(0.6 * own.cluster.inter.bandwidth));
  // A link kind that implies no transport is priced at its line rate.
  const HardwareProfile other = load_hardware_profile(write_variant("other", [](nlohmann::json& j) { j["cluster"]["inter"]["kind"] = "slingshot"; }));
  CHECK(other.cluster.achieved_bandwidth() == other.cluster.inter.bandwidth);
  CHECK(transport_of_link_kind("ethernet-25g")->name == std::string("tcp"));
  CHECK(transport_of_link_kind("roce-100g")->name == std::string("roce"));
  CHECK_FALSE(transport_of_link_kind("nvswitch-nvlink3"));
  const std::string transport = write_variant("transport", [](nlohmann::json& j) { j["cluster"]["transport"] = "carrier-pigeon"; });
  CHECK_THROWS_WITH(load_hardware_profile(transport), Catch::Contains("cluster: field 'transport' must be one of infiniband, roce, tcp"));
  for (const double f : {0.0, 1.5, -0.2}) {
    const std::string fraction = write_variant("fraction", [f](nlohmann::json& j) { j["cluster"]["achieved_fraction"] = f; });
    CHECK_THROWS_WITH(load_hardware_profile(fraction), Catch::Contains("cluster: field 'achieved_fraction' must be in (0, 1]"));
  }
  const std::string topology = write_variant("topology", [](nlohmann::json& j) { j["cluster"]["topology"] = "hypercube"; });
  CHECK_THROWS_WITH(load_hardware_profile(topology), Catch::Contains("cluster: field 'topology' must be one of fat-tree, rail-optimized, torus, dragonfly"));
  // The fabric's own fields, each named where it is wrong.
  const auto bad_cluster = [](const char* name, nlohmann::json fields, const std::string& message) {
    const std::string path = write_variant(name, [&](nlohmann::json& j) {
      // From a plain fat tree: the base profile's own fabric fields would be refused first.
      j["cluster"].erase("switch_ports");
      j["cluster"]["topology"] = "fat-tree";
      j["cluster"].update(fields);
    });
    CHECK_THROWS_WITH(load_hardware_profile(path), Catch::Contains(path) && Catch::Contains(message));
  };
  bad_cluster("below_one", {{"oversubscription", 0.5}, {"switch_ports", 32}}, "cluster: field 'oversubscription' must be at least 1");
  bad_cluster("no_ports", {{"oversubscription", 2.0}}, "cluster: field 'switch_ports' needed with an oversubscription above 1");
  bad_cluster("small_leaf", {{"switch_ports", 4}, {"nics_per_node", 8}}, "cannot hold one node's 8 NICs");
  bad_cluster("torus_no_dims", {{"topology", "torus"}}, "cluster: field 'torus_dims' needed");
  bad_cluster("torus_zero", {{"topology", "torus"}, {"torus_dims", {4, 0}}}, "cluster: field 'torus_dims' each dimension must be in [1,");
  bad_cluster("torus_oversubscribed", {{"topology", "torus"}, {"torus_dims", {4, 4}}, {"oversubscription", 2.0}}, "not to a torus");
  bad_cluster("tree_dims", {{"torus_dims", {4, 4}}}, "applies to topology \"torus\" only");
  bad_cluster("dragonfly_no_groups", {{"topology", "dragonfly"}}, "cluster: field 'group_nodes' needed with topology \"dragonfly\"");
  bad_cluster("dragonfly_zero_links", {{"topology", "dragonfly"}, {"group_nodes", 16}, {"global_links", 0}}, "cluster: field 'global_links' must be in [1,");
  bad_cluster("tree_groups", {{"group_nodes", 16}}, "cluster: field 'group_nodes' applies to topology \"dragonfly\" only");
  bad_cluster("dragonfly_ports", {{"topology", "dragonfly"}, {"group_nodes", 16}, {"global_links", 4}, {"switch_ports", 32}}, "not to a dragonfly");
  const HardwareProfile dragonfly = load_hardware_profile(write_variant("dragonfly", [](nlohmann::json& j) {
    j["cluster"].erase("switch_ports");
    j["cluster"].update({{"topology", "dragonfly"}, {"group_nodes", 16}, {"global_links", 4}});
  }));
  CHECK(dragonfly.cluster.group_nodes == 16);
  CHECK(dragonfly.cluster.global_links == 4);
  bad_cluster("staged_no_host", {{"gpudirect_rdma", false}}, "cluster: field 'gpudirect_rdma' false needs node.host");
  bad_cluster("straggler_alone", {{"straggler_share", 0.01}}, "cluster: field 'straggler_slowdown' needed with the other");
  bad_cluster("straggler_share", {{"straggler_share", 1.0}, {"straggler_slowdown", 1.2}}, "cluster: field 'straggler_share' must be a share of nodes in [0, 1)");
  bad_cluster("straggler_fast", {{"straggler_share", 0.01}, {"straggler_slowdown", 0.5}}, "cluster: field 'straggler_slowdown' must be a factor");
  const std::string overlap = write_variant("overlap", [](nlohmann::json& j) { j["device"]["overlap_slowdown"] = 1.5; });
  CHECK_THROWS_WITH(load_hardware_profile(overlap), Catch::Contains("device: field 'overlap_slowdown' must be a fraction in [0, 1)"));
  const HardwareProfile staged = load_hardware_profile(write_variant("staged", [](nlohmann::json& j) {
    j["cluster"]["gpudirect_rdma"] = false;
    j["node"]["host"] = {{"kind", "pcie-gen4-x16"}, {"bandwidth", 25e9}, {"latency_s", 2e-6}};
  }));
  CHECK_FALSE(staged.cluster.gpudirect_rdma);
  CHECK(staged.node.host.bandwidth == 25e9);
  const std::string nics = write_variant("nics", [](nlohmann::json& j) { j["cluster"]["nics_per_node"] = 0; });
  CHECK_THROWS_WITH(load_hardware_profile(nics), Catch::Contains("cluster: field 'nics_per_node' must be positive"));
}
