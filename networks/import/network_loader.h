#pragma once
// One entry point for every way of naming a network: a zoo spec ("resnet50",
// "gpt:layers=24,hidden=2048,heads=16"), a JSON network file (*.json) or an ONNX model (*.onnx).
#include <array>
#include <optional>
#include <string>

#include "core/graph/graph.h"

namespace dnnperf {

struct LoadOptions {
  /// Samples per step; zoo networks default to 1, files keep the batch they were written with.
  std::optional<std::int64_t> batch;
  /// Image height and width (zoo CNNs only).
  std::optional<std::array<std::int64_t, 2>> image;
  /// Tokens per sample (zoo transformers only).
  std::optional<std::int64_t> sequence;
  /// Zoo networks: append the training loss.
  bool with_loss = true;
};

/// Throws InputError for an unknown name, a missing or malformed file, or options that do not
/// apply to the kind of source.
Graph load_network(const std::string& spec, const LoadOptions& options = {});

}  // namespace dnnperf
