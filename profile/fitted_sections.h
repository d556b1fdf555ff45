#pragma once
// The fitted sections of a hardware profile, as JSON: "communication" (fitted communication
// models) and "compute_regression" (the regression family's models per kernel class).
//
//   "communication": [{"collective": "allreduce", "algorithm": "ring", "model": "dnnperf",
//                      "parameters": {"alpha_eager_s": 2.1e-6, ...}, "eager_limit_bytes": 65536,
//                      "cache_bytes": 4194304, "oversubscribed_from_ranks": 2,
//                      "oversubscription_load": "busiest_core",
//                      "covariance": [...], "residual_sigma": 0.04}, ...]
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/comm_model.h"
#include "profile/cpu_library_models.h"
#include "profile/hardware_profile.h"
#include "profile/regression_model.h"

namespace dnnperf {

nlohmann::json communication_section(const std::vector<FittedCommModel>& models);
/// Throws InputError naming `where` and the field for a malformed section.
std::vector<FittedCommModel> read_communication_section(const nlohmann::json& section, const std::string& where);

//   "compute_regression": [{"class": "gemm", "dtype": "f32", "features": ["one", "log_flops", ...],
//                           "weights": [...], "covariance": [...], "residual_sigma": 0.05}, ...]
nlohmann::json compute_regression_section(const std::vector<RegressionModel>& models);
std::vector<RegressionModel> read_compute_regression_section(const nlohmann::json& section, const std::string& where);

//   "measured_kernels": [{"op": "conv_forward", "params": {...}, "dtype": "f32", "seconds": 1.2e-3}, ...]
//   (op and params as in measurement records)
nlohmann::json measured_kernels_section(const std::vector<std::pair<Kernel, double>>& kernels);
std::vector<std::pair<Kernel, double>> read_measured_kernels_section(const nlohmann::json& section, const std::string& where);

//   "reference_passes": [{"op": "memory_copy", "bytes": 67108864, "dtype": "f32", "seconds": 3.1e-3}, ...]
nlohmann::json reference_passes_section(const std::vector<ReferencePass>& passes);
std::vector<ReferencePass> read_reference_passes_section(const nlohmann::json& section, const std::string& where);

//   "efficiency": {"blocked_gemm": {"block": 48, "vector_width": 4, "block_flops": 5.3e10,
//                  "partial_efficiency": [7 numbers in (0, 1]], "misaligned_slowdown": [m, n, k >= 1],
//                  "operand_bandwidth": 6e9, "long_row_bytes": 13000, "long_row_slowdown": [A, A^T, B, B^T],
//                  "output_bandwidth": 1.2e10, "large_output_bytes": 1.8e8, "large_output_slowdown": 6,
//                  "call_overhead_s": 1.4e-5,
//                  "dtype": "f32"}}   (inside "device"; models/compute/blocked_gemm.h)
nlohmann::json blocked_gemm_section(const BlockedGemm& model);
BlockedGemm read_blocked_gemm_section(const nlohmann::json& section, const std::string& where);

//   "efficiency": {"direct_conv": {"forward": {"lanes": 16, "rate": [4 paths], "input_fill_exponent": 0.6,
//                  "output_fill_exponent": 1.0, "narrow_input_fill_exponent": 0, "window_exponent": 0,
//                  "stride_exponent": [4 paths], "input_bandwidth": [4 paths],
//                  "weight_bandwidth": 1e10, "output_bandwidth": [4 paths], "call_overhead_s": 1e-5,
//                  "large_bytes": 1.9e8, "large_slowdown": 6, "dtype": "f32"}, "backward_data": ..., "backward_weight": ...}}
//   (inside "device"; paths: direct, pointwise, native, depthwise; models/compute/direct_conv.h)
nlohmann::json direct_conv_section(const DirectConv& model);
DirectConv read_direct_conv_section(const nlohmann::json& section, const std::string& where);

}  // namespace dnnperf
