#pragma once
// ONNX import through the ONNX library: what torch.onnx.export (opsets 13-17) produces for
// torchvision classifiers and transformer encoders, in eval and in training mode.
//
// Float initializers become parameters (BatchNorm running statistics become buffers), so the
// parameter count equals PyTorch's trainable parameters for a training-mode export. Integer shape
// subgraphs are folded to constants (onnx_constants.h). An operator dnnperf cannot price is an
// InputError naming the node and its op type, never a silent zero.
#include <string>

#include "core/graph/graph.h"
#include "networks/import/json_network.h"

namespace dnnperf {

/// Parses a serialized ModelProto; `source` names it in error messages.
Graph onnx_network_from_bytes(const std::string& bytes, const std::string& source, const ImportOptions& options = {});

/// Reads an .onnx file.
Graph load_onnx_network(const std::string& path, const ImportOptions& options = {});

}  // namespace dnnperf
