#pragma once
// AnalyticComputeModel: the layer-wise analytic (roofline) model.
//
//   t = launch_overhead + max(FLOPs / (peak(mode) * e_compute), bytes / (bandwidth * e_memory))
//
// For GEMMs and convolutions (as implicit GEMMs) e_compute is
//   max_efficiency * tile_efficiency * wave_efficiency * k / (k + half_efficiency_k):
// the output is cut into tiles (the profile's tile, or its halves or quarters, whichever runs
// fastest, as libraries choose; smaller tiles reuse operands less and run slower), padding in
// the last tile is wasted (tile quantisation), and tiles run in waves of one per multiprocessor, the
// last wave partly idle (wave quantisation); outputs with too few tiles to fill the device split
// their k dimension over several blocks (split-K); and each tile's loop over k pays a pipeline
// fill, which the last factor charges. Depthwise and grouped convolutions with fewer than 8
// channels per group are too thin for tiles: they run on the plain units at conv.max_efficiency
// (libraries' direct kernels), mostly bound by their traffic. Memory-bound passes reach
//   max_efficiency * bytes / (bytes + half_efficiency_bytes)
// of peak bandwidth, divided by 1 + (dram_slowdown - 1) * bytes / (bytes + cache_bytes) where the
// profile models a cache that large passes overflow; a pass that is one part of a longer stream
// (Kernel::footprint_bytes: an optimizer step's passes over every parameter) also pays for its
// bytes the difference between that overflow at the stream's size and at its own, at
// max_efficiency. Where calibration found a CPU BLAS's cache
// blocking (DeviceSpec::blocked_gemm), GEMMs of its element type are priced by that sum of
// blocks, clean-up code, packing and call instead (models/compute/blocked_gemm.h); where it
// fitted a CPU library's convolutions of a direction as arithmetic plus traffic
// (DeviceSpec::direct_conv), those are priced by that sum (models/compute/direct_conv.h).
// Passes of an op-specific family (Kernel::pass: pooling, training batch norm, embedding gathers,
// optimizer steps) use the family's own max_efficiency and ramp where the profile has them,
// fitted to the whole pass, arithmetic included; a family whose arithmetic per byte varies
// (pooling windows at several strides) adds its operations at its own rate
// (MemoryEfficiency::operation_s), and batch norm its short runs'. All parameters live in the
// hardware profile's device.efficiency, where calibration sets them.
#include "models/compute/compute_model.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

/// Runs of fewer elements than this are short: one AVX2 vector of floats, the width PyTorch's CPU
/// batch norm vectorises at (docs/models/fitting-notes.md has the timings).
constexpr std::int64_t kShortRunElements = 8;

/// The elements of a pass that a CPU's code vectorised along its runs walks in scalar code: all of
/// them where its runs (Kernel::run_elements) are shorter than kShortRunElements, else none.
/// Priced by MemoryEfficiency::short_run_element_s.
std::int64_t short_run_elements(const Kernel& kernel);

/// Depthwise and other grouped convolutions with fewer than 8 channels per group, in or out: each
/// group's matrix product is too thin for tiles (a 1 x 9 product per pixel for a 3x3 depthwise
/// window), and libraries run them as direct kernels on the plain units instead.
bool thin_group_conv(const ConvShape& conv);

/// A kernel priced by the analytic model, with its parts (for reports and fitting).
struct AnalyticCost {
  double seconds = 0;
  double compute_seconds = 0;
  double memory_seconds = 0;
  double launch_seconds = 0;
  double compute_efficiency = 0;  // of peak, for GEMM and convolution
  double memory_efficiency = 0;   // of peak bandwidth
  MathMode mode = MathMode::fp32;
};

class AnalyticComputeModel final : public ComputeModel {
 public:
  /// Keeps a reference: `device` must outlive the model. Throws InputError if the device has no
  /// arithmetic for fp32.
  explicit AnalyticComputeModel(const DeviceSpec& device);

  double seconds(const Kernel& kernel, const ExecutionOptions& options) const override {
    return cost(kernel, options).seconds;
  }
  AnalyticCost cost(const Kernel& kernel, const ExecutionOptions& options) const;

  /// The math mode a kernel runs in: tensor cores for GEMM/convolution in f16/bf16 (and f32 with
  /// TF32 allowed, or f32 convolutions on a device whose fp32_conv_math is TF32) where the device
  /// has them, plain units otherwise. Throws InputError when the
  /// device cannot compute in the kernel's type at all.
  MathMode mode(const Kernel& kernel, const ExecutionOptions& options) const;

 private:
  const DeviceSpec& device_;
};

}  // namespace dnnperf
