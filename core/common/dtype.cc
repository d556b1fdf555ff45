#include "core/common/dtype.h"

#include <array>
#include <utility>

namespace dnnperf {

int dtype_bytes(DType dtype) {
  switch (dtype) {
    case DType::f64: case DType::i64: return 8;
    case DType::f32: case DType::i32: return 4;
    case DType::f16: case DType::bf16: return 2;
    case DType::i8: case DType::u8: case DType::boolean: case DType::f8e4m3: return 1;
  }
  return 4;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f64: return "f64";
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i64: return "i64";
    case DType::i32: return "i32";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::boolean: return "bool";
    case DType::f8e4m3: return "f8e4m3";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, DType>, 25> kNames{{
      {"f64", DType::f64},   {"fp64", DType::f64},     {"float64", DType::f64},
      {"f32", DType::f32},   {"fp32", DType::f32},     {"float32", DType::f32}, {"float", DType::f32},
      {"f16", DType::f16},   {"fp16", DType::f16},     {"float16", DType::f16}, {"half", DType::f16},
      {"bf16", DType::bf16}, {"bfloat16", DType::bf16},
      {"i64", DType::i64},   {"int64", DType::i64},    {"i32", DType::i32},     {"int32", DType::i32},
      {"i8", DType::i8},     {"int8", DType::i8},      {"u8", DType::u8},       {"uint8", DType::u8},
      {"bool", DType::boolean},
      {"f8e4m3", DType::f8e4m3}, {"fp8", DType::f8e4m3}, {"float8_e4m3fn", DType::f8e4m3},
  }};
  for (const auto& [spelling, dtype] : kNames)
    if (spelling == name) return dtype;
  return std::nullopt;
}

bool is_floating(DType dtype) {
  return dtype == DType::f64 || dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16 || dtype == DType::f8e4m3;
}

}  // namespace dnnperf
