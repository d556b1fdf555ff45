#pragma once
// RunConfig: everything about a run besides the network and the hardware.
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/lowering/lower.h"
#include "predictor/simulation/parallel_plan.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

/// fp32; tf32 (fp32 storage, TF32 tensor cores for GEMMs and convolutions); fp16 and bf16 (mixed
/// precision: half-precision activations, gradients and working weights, fp32 master weights and
/// optimizer state); fp8 (bf16 mixed precision whose layers' weight GEMMs run on FP8 tensor
/// cores, as Transformer Engine runs them: LoweringOptions::fp8_gemms).
enum class Precision : std::uint8_t { fp32, tf32, fp16, bf16, fp8 };
std::string_view precision_name(Precision p);
std::optional<Precision> parse_precision(std::string_view name);
/// Whether activations, gradients and working weights are 16-bit (fp16, bf16, fp8).
bool mixed_precision(Precision p);
/// The lowering of a step in this precision: its compute type (f16 or bf16; unset for fp32 and
/// tf32, whose tensors keep their own), whether weight GEMMs run in FP8, and the optimizer's
/// kernels (LoweringOptions::fused_optimizer).
LoweringOptions lowering_for(Precision p, bool training, Optimizer optimizer, bool fused_optimizer = false);
/// The tensor cores a precision cannot run without (TF32's, FP8's); none for the others, which
/// fall back to plain units where a device has no tensor cores.
std::optional<MathMode> required_tensor_math(Precision p);
std::string_view optimizer_name(Optimizer o);

/// How the host hands an asynchronous device its kernels. eager: one launch per kernel from the
/// framework (PyTorch's default; the profile's measured DeviceSpec::host_dispatch_s paces the
/// device). graph: the step captured once and replayed (CUDA Graphs, torch.compile's
/// "reduce-overhead"), so the host's per-kernel dispatch drops out and the kernels run back to
/// back; each kernel keeps its own launch-to-finish minimum, which the kernel models include.
enum class Launch : std::uint8_t { eager, graph };
std::string_view launch_name(Launch l);
std::optional<Launch> parse_launch(std::string_view name);
std::optional<Optimizer> parse_optimizer(std::string_view name);

struct RunConfig {
  ParallelPlan plan;
  Precision precision = Precision::fp32;
  Optimizer optimizer = Optimizer::sgd;
  /// The optimizer as fused multi-tensor kernels (LoweringOptions::fused_optimizer) rather than
  /// torch.optim's default per-tensor updates.
  bool fused_optimizer = false;
  /// Samples in the dataset: gives the epoch time.
  std::optional<std::int64_t> dataset_size;
  /// Predict inference (forward only) instead of a training iteration.
  bool inference = false;
  /// Micro-batches per optimizer step (gradient accumulation): each device runs forward and
  /// backward this many times on its batch before the gradients are exchanged once and the
  /// optimizer steps once. The exchange goes with the last micro-batch (DDP's no_sync on the
  /// others), overlapping its backward as the plan's sync says. 1: no accumulation.
  int accumulation_steps = 1;
  Launch launch = Launch::eager;
};

}  // namespace dnnperf
