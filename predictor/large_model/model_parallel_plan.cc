#include "predictor/large_model/model_parallel_plan.h"

#include <string>

#include "core/common/error.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

std::optional<Recompute> parse_recompute(std::string_view name) {
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full})
    if (recompute_name(r) == name) return r;
  return std::nullopt;
}

void ModelParallelPlan::validate(const TransformerSpec& spec, const HardwareProfile& hw) const {
  spec.validate();
  const auto fail = [&](const std::string& field, const std::string& what) {
    throw InputError(spec.name + " on " + std::to_string(gpus()) + " GPUs: " + field + " " + what);
  };
  const auto positive = [&](std::int64_t v, const std::string& field) {
    if (v < 1) fail(field, "must be positive, is " + std::to_string(v));
  };
  positive(nodes, "--nodes");
  positive(gpus_per_node, "--gpus-per-node");
  positive(tp, "--tp");
  positive(pp, "--pp");
  positive(virtual_stages, "--interleave");
  positive(ep, "--ep");
  positive(micro_batch, "--micro-batch");
  positive(global_batch, "--global-batch");
  if (sequence < 0) fail("--seq", "must be positive, is " + std::to_string(sequence));
  if (gpus_per_node > hw.node.devices)
    fail("--gpus-per-node", "= " + std::to_string(gpus_per_node) + " exceeds the " + std::to_string(hw.node.devices) + " GPUs of a " + hw.name + " node");
  if (tp > gpus_per_node)
    fail("--tp", "= " + std::to_string(tp) + " exceeds the " + std::to_string(gpus_per_node) +
                     " GPUs of a node: tensor parallelism all-reduces every layer and needs the node's links");
  if (gpus() % (tp * pp) != 0)
    fail("--tp x --pp", "= " + std::to_string(tp * pp) + " does not divide the " + std::to_string(gpus()) + " GPUs");
  if (gpus_per_node % tp != 0) fail("--tp", "= " + std::to_string(tp) + " does not divide the node's " + std::to_string(gpus_per_node) + " GPUs");
  if (!chunk_layers.empty()) {
    std::int64_t placed = 0;
    for (const std::int64_t n : chunk_layers) {
      if (n < 0) fail("--pipeline-layout", "gives a chunk " + std::to_string(n) + " layers");
      placed += n;
    }
    if (chunk_layers.size() != static_cast<std::size_t>(pp) * static_cast<std::size_t>(virtual_stages))
      fail("--pipeline-layout", "has " + std::to_string(chunk_layers.size()) + " chunks, --pp x --interleave = " + std::to_string(pp * virtual_stages));
    if (placed != spec.layers) fail("--pipeline-layout", "places " + std::to_string(placed) + " of the " + std::to_string(spec.layers) + " layers");
  } else if (spec.layers % (static_cast<std::int64_t>(pp) * virtual_stages) != 0) {
    fail("--pp x --interleave", "= " + std::to_string(pp * virtual_stages) + " does not divide the " + std::to_string(spec.layers) +
                                    " layers (--pipeline-layout places them unevenly)");
  }
  if (virtual_stages > 1 && pp < 2) fail("--interleave", "needs pipeline parallelism (--pp of 2 or more)");
  if (spec.heads % tp != 0) fail("--tp", "= " + std::to_string(tp) + " does not divide the " + std::to_string(spec.heads) + " heads");
  if (spec.kv() % tp != 0 && tp % spec.kv() != 0)
    fail("--tp", "= " + std::to_string(tp) + " and the " + std::to_string(spec.kv()) + " kv heads do not divide one another");
  if (spec.ffn_width() % tp != 0) fail("--tp", "= " + std::to_string(tp) + " does not divide the FFN width " + std::to_string(spec.ffn_width()));
  if (ep > 1 && spec.experts == 0) fail("--ep", "= " + std::to_string(ep) + " needs a mixture-of-experts model");
  if (spec.experts > 0 && spec.experts % ep != 0) fail("--ep", "= " + std::to_string(ep) + " does not divide the " + std::to_string(spec.experts) + " experts");
  if (dp() % ep != 0) fail("--ep", "= " + std::to_string(ep) + " does not divide the data-parallel degree " + std::to_string(dp()));
  if (zero < 0 || zero > 3) fail("--zero", "must be 0, 1, 2 or 3, is " + std::to_string(zero));
  const std::int64_t per_step = static_cast<std::int64_t>(dp()) * micro_batch;
  if (global_batch % per_step != 0)
    fail("--global-batch", "= " + std::to_string(global_batch) + " is not a multiple of data-parallel " + std::to_string(dp()) + " x micro-batch " +
                               std::to_string(micro_batch) + " = " + std::to_string(per_step));
  if (virtual_stages > 1 && micro_batches() % pp != 0)
    fail("--interleave", "needs the micro-batches per pipeline (" + std::to_string(micro_batches()) + ") to be a multiple of --pp " + std::to_string(pp));
  if (sequence_parallel && tp == 1) fail("--sequence-parallel", "needs tensor parallelism (--tp of 2 or more)");
  if (sequence > 0 && sequence > spec.sequence && spec.position == PositionKind::learned)
    fail("--seq", "= " + std::to_string(sequence) + " exceeds the model's context of " + std::to_string(spec.sequence));
  if (!(fragmentation >= 0 && fragmentation < 1)) fail("fragmentation", "must be in [0, 1)");
  if (hw.device.kind != "gpu") fail("--hardware", "'" + hw.name + "' is a " + hw.device.kind + "; model-parallel plans are priced on GPUs");
  const MathMode needed = precision == Precision::fp8    ? MathMode::fp8_tensor
                          : precision == Precision::bf16 ? MathMode::bf16_tensor
                          : precision == Precision::fp16 ? MathMode::fp16_tensor
                          : precision == Precision::tf32 ? MathMode::tf32_tensor
                                                         : MathMode::fp32;
  if (!hw.supports(needed))
    fail("--dtype", "= " + std::string(precision_name(precision)) + ": '" + hw.name + "' (" + hw.device.model + ") has no " +
                        std::string(math_mode_name(needed)) + " units");
}

}  // namespace dnnperf
