#pragma once
// Element types of tensors and kernels.
#include <cstdint>
#include <optional>
#include <string_view>

namespace dnnperf {

/// f8e4m3: the 8-bit float (4 exponent, 3 mantissa bits; PyTorch's float8_e4m3fn) that FP8 tensor
/// cores multiply; kernels carry it, networks' own tensors do not.
enum class DType : std::uint8_t { f64, f32, f16, bf16, i64, i32, i8, u8, boolean, f8e4m3 };

/// Bytes per element.
int dtype_bytes(DType dtype);
/// Short lower-case name: "f32", "bf16", "i64", ...
std::string_view dtype_name(DType dtype);
/// Parses dtype_name() spellings and the common aliases ("float32", "fp16", "int64", ...).
std::optional<DType> parse_dtype(std::string_view name);
/// True for f64, f32, f16, bf16 and f8e4m3.
bool is_floating(DType dtype);

}  // namespace dnnperf
