#include "core/analysis/network_summary.h"

#include "core/analysis/saved_activations.h"

namespace dnnperf {

void LayerCounts::add(const LayerCounts& other) {
  params += other.params;
  for (std::size_t p = 0; p < phases.size(); ++p) {
    phases[p].flops += other.phases[p].flops;
    phases[p].bytes_read += other.phases[p].bytes_read;
    phases[p].bytes_written += other.phases[p].bytes_written;
    phases[p].kernels += other.phases[p].kernels;
  }
  forward_macs += other.forward_macs;
  activation_bytes += other.activation_bytes;
}

NetworkSummary summarize(const Graph& graph, std::span<const Kernel> kernels) {
  NetworkSummary s;
  s.layers.resize(graph.ops().size());
  std::vector<bool> counted(graph.tensors().size(), false);
  for (std::size_t i = 0; i < graph.ops().size(); ++i) {
    for (int t : graph.op(static_cast<int>(i)).inputs) {
      const Tensor& tensor = graph.tensor(t);
      if (tensor.role != TensorRole::parameter || counted[static_cast<std::size_t>(t)]) continue;
      counted[static_cast<std::size_t>(t)] = true;
      s.layers[i].params += tensor.shape.numel();
    }
  }
  for (const Kernel& k : kernels) {
    if (k.op < 0) continue;
    LayerCounts& layer = s.layers[static_cast<std::size_t>(k.op)];
    PhaseCounts& p = layer.phases[static_cast<std::size_t>(k.phase)];
    p.flops += k.flops;
    p.bytes_read += k.bytes_read;
    p.bytes_written += k.bytes_written;
    ++p.kernels;
    if (k.phase == Phase::forward && (k.cls == KernelClass::gemm || k.cls == KernelClass::conv))
      layer.forward_macs += k.flops / 2;
  }
  const std::vector<std::int64_t> saved = saved_activation_bytes(graph);
  for (std::size_t i = 0; i < saved.size(); ++i) s.layers[i].activation_bytes = saved[i];
  for (const LayerCounts& layer : s.layers) s.totals.add(layer);
  return s;
}

}  // namespace dnnperf
