#pragma once
// Kernel: the unit a cost model prices. Lowering turns every op of a graph into kernels, separately
// for the forward pass, the gradient with respect to activations (backward_data), the gradient with
// respect to parameters (backward_weight) and the optimizer update.
//
// FLOPs count a multiply-add as two operations. Bytes are what the kernel must move to and from
// memory at least once (inputs read, outputs written), at the kernel's element type.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/graph/op_kind.h"

namespace dnnperf {

enum class Phase : std::uint8_t { forward, backward_data, backward_weight, update };
inline constexpr int kPhaseCount = 4;
std::string_view phase_name(Phase phase);

enum class KernelClass : std::uint8_t {
  gemm,         // (batched) matrix multiply, priced from m, n, k
  conv,         // 2-D convolution in one of three directions (the phase tells which)
  elementwise,  // one pass over memory, output-sized: activations, arithmetic, optimizer updates
  reduction,    // a pass that reduces along axes: normalisation statistics, softmax, pooling, bias grads
  gather,       // indexed reads or scatters: embeddings
  copy,         // a layout change: transpose, concat
};
std::string_view kernel_class_name(KernelClass cls);

/// C(m x n) = op(A)(m x k) * op(B)(k x n), `batch` times; op() transposes when trans_* is set.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool trans_a = false, trans_b = false;
};

/// A convolution as cuDNN describes it: input N x C x H x W, filter K x C/groups x R x S,
/// output N x K x P x Q.
struct ConvShape {
  std::int64_t n = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0, p = 0, q = 0;
  std::int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  std::int64_t groups = 1;
};

struct Kernel {
  KernelClass cls = KernelClass::elementwise;
  Phase phase = Phase::forward;
  DType dtype = DType::f32;
  /// The kind of the op it came from (tells a ReLU pass from a softmax pass).
  OpKind op_kind = OpKind::relu;
  /// Index of that op in Graph::ops().
  int op = -1;
  GemmShape gemm;   // set when cls == gemm
  ConvShape conv;   // set when cls == conv
  /// Elements written (for gemm and conv: output elements).
  std::int64_t elements = 0;
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  /// Bytes of the stream this pass is one part of, where that decides whether it runs from cache
  /// rather than its own bytes (0: its own). An optimizer step streams every parameter, gradient
  /// and state once, tensor after tensor: a 2 MB layer's update runs at the rate of the whole
  /// step's stream, not of a 2 MB buffer swept again and again.
  double footprint_bytes = 0;
  /// For memory-bound passes that run far from a device's copy bandwidth (a CPU max pool moves its
  /// bytes 40 times slower than a copy), the pass family a profile may price on its own: one of
  /// op_pass_names(). Empty for plain passes, GEMMs and convolutions.
  std::string_view pass;
  /// The length of the contiguous runs a pass walks its elements in, where code vectorised along
  /// the run may fall short of whole vectors (batch norm over images: N x C runs of H x W); 0: one
  /// run (every other pass, GEMMs, convolutions). A device's model decides what is short
  /// (models/compute/analytic_model.h short_run_elements).
  std::int64_t run_elements = 0;
  /// A convolution's weight gradient computed in the same library call as its input gradient
  /// (PyTorch's convolution_backward returns both from one call): it pays no call of its own.
  /// Timed apart, each direction pays one.
  bool shares_call = false;
};

/// The class calibration measures, fits and reports a kernel under: gemm, conv_forward,
/// conv_backward_data, conv_backward_filter, "pass:" + Kernel::pass for a pass family, and
/// memory for every other pass.
std::string calibration_class(const Kernel& kernel);

/// The pass families of Kernel::pass: max_pool, max_pool_backward, avg_pool, batch_norm,
/// batch_norm_backward, batch_norm_inference, softmax (forward: exponentials), embedding, sgd,
/// momentum, adam, dropout (forward: a random number per element, which a CPU draws at about 5 ns
/// each), relu6 (a training step's forward: PyTorch clones the tracked input of its in-place
/// ReLU6 and copies the result back).
const std::vector<std::string_view>& op_pass_names();

/// A GEMM view of a kernel: itself for GEMMs, the implicit GEMM for convolutions (per direction,
/// as cuDNN runs them: forward m = N P Q, n = K/g, k = C/g R S, batch = groups).
GemmShape implicit_gemm(const Kernel& kernel);

}  // namespace dnnperf
