#pragma once
// Shape sets: which GEMMs and convolutions a compute benchmark measures.
//
//   zoo:SPEC     the GEMM and convolution kernels the lowering produces for a network (any name
//                `dnnperf net show` takes: zoo spec, .json or .onnx), training phases, deduplicated;
//                zoo:SPEC@H or @HxW at that image size (zoo CNNs)
//   deepbench    a fixed list of training GEMM and convolution shapes in the style of DeepBench
//   sample:N[:SEED[:GFLOP]]  N GEMMs and N convolutions drawn from the shape space (log-uniform
//                sizes; half the GEMMs as the training GEMMs of random fully connected layers,
//                batches from 1; images from 2x2 to 224x224 with realistic channel, kernel and
//                stride combinations), the same for the same seed; with GFLOP, every kernel fits
//                under that many GFLOP (batches and rows shrink, or the shape is drawn again), so
//                that a slow device times all N rather than skipping the large ones. (Before
//                2026-11-30 images started at 7x7; measurement records carry their shapes.)
//   depthwise:N[:SEED[:GFLOP]]  N depthwise convolutions (3x3 mostly, 5x5 and 7x7; stride 1 or
//                2; images 2x2 to 224x224; batches from 1), drawn as sample's are: the mobile
//                networks' most irregular kernels, of which sample draws one in ten
//   cnn:N[:SEED[:GFLOP]]  N dense convolutions drawn as a CNN's layers are: an image's activations
//                log-uniform over 2K-800K values, real channel counts, the image side what the two
//                leave (2x2 to ~110x110), outputs 1/4-4x the inputs, kernels 1-7, stride 2
//                sometimes, batches from 1 — where sample's independent draws of channels and side
//                put few of the small-image, many-channel layers networks at small inputs run
//   late:N[:SEED[:GFLOP]]  N convolutions of CNNs' last stages at small inputs: images 2x2 to
//                8x8, 64-2048 channels, outputs 1/6-6x the inputs, 1x1 mostly (3x3 and depthwise
//                3x3 an eighth each), batches 1-32, the three directions: the per-image GEMMs of
//                few columns PyTorch's CPU backend runs for 1x1 layers at batches under 16
//                (`dnnperf calibrate` times late:60:1:2 on a CPU)
//   anchors:GFLOP  twenty GEMMs and twenty of each convolution direction of sample:600:1:GFLOP (the
//                default calibration's set), of middling work for their class: timed first by
//                every calibration run (scripts/torch_bench.py --anchors), they are the kernels two
//                files share, by which `dnnperf fit` puts files of different sessions on one speed
//                (fitting/compute/session_speed.h)
//   wide:N[:SEED]  N GEMMs with outputs of 40-400 MB and k of 1-16, mostly with A transposed: a
//                large fully connected layer's weight gradient at small batches, where writing the
//                output sets the time (VGG's first classifier layer: 411 MB)
//   skinny:N[:SEED]  N GEMMs of 1-16 rows against a matrix of 40-400 MB, transposed or not: a large
//                fully connected layer's forward and input gradient at small batches, where reading
//                (and a BLAS packing) the weight matrix sets the time; half of them with widths a
//                multiple of 256 or 512, as real layers' are
//   square:N,... square GEMMs N x N x N (peak-rate checks)
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/lowering/kernel.h"

namespace dnnperf::bench {

struct ConvCase {
  ConvShape shape;
  Phase phase = Phase::forward;  // forward, backward_data (dgrad) or backward_weight (wgrad)
};

struct ShapeSet {
  std::string name;
  std::vector<GemmShape> gemms;
  std::vector<ConvCase> convs;
};

/// Anchors per kernel class in anchors:GFLOP: fit compares two sessions per class from
/// fitting::kMinSharedKernels shared kernels, and the median of twenty kernels' ratios was within
/// 5% of that of 200 on the dev VM on a day its kernels varied 20% between sessions.
inline constexpr int kAnchorsPerClass = 20;

/// Throws InputError naming the spec for an unknown set or a bad count or seed.
ShapeSet shape_set(const std::string& spec, std::int64_t batch = 32);

/// A shape as measurement records name its parameters (docs/measurement-format.md).
nlohmann::json gemm_params(const GemmShape& g);
nlohmann::json conv_params(const ConvShape& c);
/// conv_forward, conv_backward_data or conv_backward_filter.
std::string conv_op(Phase phase);
/// The whole set as a JSON list of {"op", "params"}, for other measurement backends.
nlohmann::json shape_set_json(const ShapeSet& set);

}  // namespace dnnperf::bench
