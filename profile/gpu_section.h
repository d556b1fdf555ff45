#pragma once
// The GPU kernel family's section of a profile (in "device.efficiency"; docs/hardware-format.md):
//
//   "gpu": {"generation": "hopper", "l2_bytes": 6.3e7, "kernel_min_s": 4.2e-6, "pass_min_s": 2e-6,
//           "dram_efficiency": 0.88,
//           "math": {"fp32": {"max_efficiency": 0.75, "tile_fixed_s": 2e-6, "k_step_min_s": 5e-8, "operand_bandwidth": 9e12,
//                             "misaligned_efficiency": [1, 0.6, 0.3]}, "tf32": ..., "half": ..., "fp64": ...},
//           "conv": {"forward": {"efficiency": 0.9, "tile_fixed_s": 1e-6, "fixed_s": 8e-6}, "backward_data": ..., "backward_weight": ...},
//           "pass_efficiency": {"": 1, "softmax": 0.45, ...},
//           "residual_sigma": {"gemm": 0.06, ...}, "shared_sigma": {"gemm": 0.02, ...}}
#include <string>

#include <nlohmann/json.hpp>

#include "profile/gpu_kernel_params.h"

namespace dnnperf {

nlohmann::json gpu_section(const GpuKernelParams& params);
/// Throws InputError naming `where` and the field for a malformed section. Fields left out keep
/// GpuKernelParams' defaults; the result is enabled.
GpuKernelParams read_gpu_section(const nlohmann::json& section, const std::string& where);

}  // namespace dnnperf
