#pragma once
// Element types of tensors and kernels.
#include <cstdint>
#include <optional>
#include <string_view>

namespace dnnperf {

enum class DType : std::uint8_t { f64, f32, f16, bf16, i64, i32, i8, u8, boolean };

/// Bytes per element.
int dtype_bytes(DType dtype);
/// Short lower-case name: "f32", "bf16", "i64", ...
std::string_view dtype_name(DType dtype);
/// Parses dtype_name() spellings and the common aliases ("float32", "fp16", "int64", ...).
std::optional<DType> parse_dtype(std::string_view name);
/// True for f64, f32, f16 and bf16.
bool is_floating(DType dtype);

}  // namespace dnnperf
