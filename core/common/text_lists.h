#pragma once
// The lists and sizes command lines and plan files spell: "4,1K,64K,1M", "f32,bf16".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dnnperf {

/// The items of a list separated by `separator`: "f32,bf16" -> {"f32", "bf16"}. An empty list or
/// an empty item ("4,,8", "8,") is an InputError naming `option` and the text: a stray comma is
/// a typo, not a request for the default.
std::vector<std::string> split_list(std::string_view text, const std::string& option, char separator = ',');

/// A positive byte count: digits with an optional suffix B, K or KiB, M or MiB, GiB (powers of
/// two). InputError naming `option` and the text otherwise.
std::int64_t parse_byte_size(const std::string& text, const std::string& option);

}  // namespace dnnperf
