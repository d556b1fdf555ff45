#pragma once
// The JSON network format (docs/network-format.md): named inputs and a list of layers, each an op
// of the IR with its attributes; layer parameters are created as the zoo creates them.
//
// Parsing validates everything: unknown fields, wrong types, missing or unknown references, cycles
// and shapes that do not fit. Errors are InputError messages that name the source, the layer and
// the field.
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/graph/graph.h"

namespace dnnperf {

struct ImportOptions {
  /// Replaces the first (batch) dimension of every network input.
  std::optional<std::int64_t> batch;
};

/// Builds a graph from a parsed JSON document; `source` names it in error messages.
Graph network_from_json(const nlohmann::json& document, const std::string& source, const ImportOptions& options = {});

/// Reads and parses a JSON network file.
Graph load_json_network(const std::string& path, const ImportOptions& options = {});

}  // namespace dnnperf
