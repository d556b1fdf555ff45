#pragma once
// Lowering: from a Graph to the kernels a training step or an inference runs.
//
// Order matters to the simulator: all forward kernels in op order, then backward kernels in
// reverse op order (gradients become ready for the last layers first), then one optimizer update
// kernel per parameter tensor. A kernel's `op` field ties it to its op for per-layer reports.
#include <optional>
#include <vector>

#include "core/graph/graph.h"
#include "core/lowering/kernel.h"

namespace dnnperf {

/// The optimizer whose update the step runs: SGD, SGD with momentum, Adam (Kingma & Ba 2015) and
/// LAMB (You et al., ICLR 2020: Adam's moments with a per-layer trust ratio, the norms of the
/// weights and of the update; BERT's large-batch pre-training).
enum class Optimizer : std::uint8_t { sgd, momentum, adam, lamb };

struct LoweringOptions {
  /// Training lowers forward, backward and update; inference lowers the forward pass only, with
  /// BatchNorm using running statistics and dropout switched off.
  bool training = true;
  Optimizer optimizer = Optimizer::sgd;
  /// Element type of activations, gradients and the weights the step computes with (f16/bf16 for
  /// mixed precision); unset keeps each tensor's own type. Optimizer updates stay in the
  /// parameters' own (master) type, followed by a cast to this type.
  std::optional<DType> compute_dtype;
  /// An FP8 recipe (Transformer Engine's): the GEMMs of layers with weights (linear layers,
  /// attention's projections, experts) run on FP8 tensor cores, their operands cast to f8e4m3 by
  /// passes of their own; attention's products of activations, routers, convolutions and every
  /// other kernel keep compute_dtype.
  bool fp8_gemms = false;
  /// The optimizer as fused multi-tensor kernels (apex's FusedAdam and FusedLAMB, torch.optim's
  /// fused=True, Megatron-LM's and DeepSpeed's optimizers): one pass over all parameters, reading
  /// and writing each element once, lowered as one kernel charged to the first layer with
  /// parameters. Otherwise one update per parameter tensor, as torch.optim's default runs it
  /// (several kernels each: the profile's pass family of the optimizer prices them).
  bool fused_optimizer = false;

  static LoweringOptions inference() {
    LoweringOptions o;
    o.training = false;
    return o;
  }
  static LoweringOptions training_with(Optimizer optimizer) {
    LoweringOptions o;
    o.optimizer = optimizer;
    return o;
  }
};

/// Elements of the weights an FP8 recipe's GEMMs read (LoweringOptions::fp8_gemms): the matrices
/// of linear layers, attention's projections, experts and products with weights; not biases,
/// norms, embeddings, routers or convolutions, which stay 16-bit.
std::int64_t fp8_weight_elements(const Graph& graph);

/// One GEMM or convolution kernel with its FLOPs and bytes (the lowering's conventions; measurement
/// records are turned back into kernels with these).
Kernel gemm_kernel(Phase phase, const GemmShape& shape, DType dtype);
Kernel conv_kernel(Phase phase, const ConvShape& shape, DType dtype);

/// Appends the kernels of `graph` to `kernels`.
void lower(const Graph& graph, const LoweringOptions& options, std::vector<Kernel>& kernels);
std::vector<Kernel> lower(const Graph& graph, const LoweringOptions& options = {});

}  // namespace dnnperf
