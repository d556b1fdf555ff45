#pragma once
// GEMM and convolution kernels as measurement records name them ("op" and "params",
// docs/measurement-format.md), and the identity of such a kernel's shape: what fitting reads back
// from records and what a profile's table of measured kernels is keyed by.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/lowering/kernel.h"

namespace dnnperf {

/// The kernel of a "gemm", "conv_forward", "conv_backward_data" or "conv_backward_filter" record,
/// counted as the lowering counts it; nullopt for other ops. Throws nlohmann::json::exception for
/// missing or mistyped params, InputError (naming the field) for values no kernel has: a zero
/// stride, a negative pad, groups that do not divide the channels, a tensor past 2^48 elements.
std::optional<Kernel> matrix_kernel_of(const std::string& op, const nlohmann::json& params, DType dtype);

/// The record "op" and "params" of a GEMM or convolution kernel (the inverse of matrix_kernel_of).
std::pair<std::string, nlohmann::json> matrix_kernel_record(const Kernel& kernel);

/// What a GEMM's or convolution's time depends on: class, phase, type and shape.
using MatrixKernelKey = std::array<std::int64_t, 19>;
MatrixKernelKey matrix_kernel_key(const Kernel& kernel);

}  // namespace dnnperf
