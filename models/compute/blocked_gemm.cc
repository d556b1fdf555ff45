#include "models/compute/blocked_gemm.h"

#include <algorithm>
#include <cmath>

namespace dnnperf {

std::array<double, kBlockedGemmParameters> log_parameters(const BlockedGemm& m) {
  std::array<double, kBlockedGemmParameters> p{};
  p[0] = std::log(m.block_flops);
  for (int r = 0; r < 7; ++r) p[1 + r] = std::log(m.partial_efficiency[r]);
  for (int d = 0; d < 3; ++d) p[8 + d] = std::log(m.misaligned_slowdown[d]);
  p[11] = std::log(m.operand_bandwidth);
  p[12] = std::log(m.output_bandwidth);
  p[13] = std::log(m.call_overhead_s);
  p[14] = std::log(m.long_row_bytes);
  for (int x = 0; x < 4; ++x) p[15 + x] = std::log(std::max(m.long_row_slowdown[x] - 1, 1e-12));
  p[19] = std::log(m.large_output_bytes);
  p[20] = std::log(std::max(m.large_output_slowdown - 1, 1e-12));
  p[21] = std::log(m.long_row_steepness);
  p[22] = std::log(m.large_output_steepness);
  for (int x = 1; x < 4; ++x) p[22 + x] = std::log(m.layout_packing[x]);
  p[26] = std::log(m.large_operand_bytes);
  p[27] = std::log(std::max(m.large_operand_slowdown - 1, 1e-12));
  return p;
}

BlockedGemm with_log_parameters(BlockedGemm m, const double* p) {
  m.block_flops = std::exp(p[0]);
  for (int r = 0; r < 7; ++r) m.partial_efficiency[r] = std::exp(p[1 + r]);
  for (int d = 0; d < 3; ++d) m.misaligned_slowdown[d] = std::exp(p[8 + d]);
  m.operand_bandwidth = std::exp(p[11]);
  m.output_bandwidth = std::exp(p[12]);
  m.call_overhead_s = std::exp(p[13]);
  m.long_row_bytes = std::exp(p[14]);
  for (int x = 0; x < 4; ++x) m.long_row_slowdown[x] = 1 + std::exp(p[15 + x]);
  m.large_output_bytes = std::exp(p[19]);
  m.large_output_slowdown = 1 + std::exp(p[20]);
  m.long_row_steepness = std::exp(p[21]);
  m.large_output_steepness = std::exp(p[22]);
  for (int x = 1; x < 4; ++x) m.layout_packing[x] = std::exp(p[22 + x]);
  m.large_operand_bytes = std::exp(p[26]);
  m.large_operand_slowdown = 1 + std::exp(p[27]);
  return m;
}

double blocked_gemm_seconds(const BlockedGemm& model, const GemmShape& g, double element_bytes, double* parts) {
  const auto p = log_parameters(model);
  return blocked_gemm_seconds(g, model.block, model.vector_width, model.cleanup_width, element_bytes, p.data(), parts);
}

}  // namespace dnnperf
