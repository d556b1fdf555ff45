#pragma once
// The model zoo: networks built in code, parameterised by batch, input size and (for transformers)
// sequence length. CNN parameter counts equal torchvision's; transformer counts follow the standard
// formulas of their papers.
//
// A network is named by a spec: a zoo name, optionally followed by ':' and key=value settings,
// e.g. "resnet50", "gpt3-175b", "gpt:layers=24,hidden=2048,heads=16", "randwire-ws:nodes=1000,seed=7".
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"

namespace dnnperf {

struct NetworkOptions {
  /// Samples per step. The default of 1 gives per-sample counts, as papers quote them.
  std::int64_t batch = 1;
  /// Image height and width; unset means the network's standard input (224x224 for most CNNs).
  std::optional<std::array<std::int64_t, 2>> image;
  /// Tokens per sample for transformers; unset means the network's standard context.
  std::optional<std::int64_t> sequence;
  /// Append the training loss (cross-entropy against integer labels) after the logits.
  bool with_loss = true;
};

struct ZooEntry {
  std::string name;
  std::string description;
  /// A transformer, sized by a sequence length; otherwise an image network, sized by H x W.
  bool takes_sequence = false;
};

/// Every network name the zoo knows, with a one-line description.
const std::vector<ZooEntry>& zoo_networks();

/// True if `spec` names a zoo network (its part before ':' is a zoo name).
bool is_zoo_network(std::string_view spec);
/// True if `spec` names a zoo transformer (sized by a sequence length, not an image size).
bool is_zoo_sequence_model(std::string_view spec);

/// Builds the network `spec` names. Throws InputError naming the spec for an unknown network or
/// setting, a value out of range, or a size of the other kind (an image size for a transformer,
/// a sequence length for an image network), which would otherwise be ignored without a word.
Graph build_zoo_network(std::string_view spec, const NetworkOptions& options = {});

}  // namespace dnnperf
