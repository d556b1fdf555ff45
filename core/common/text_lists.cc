#include "core/common/text_lists.h"

#include <charconv>
#include <limits>

#include "core/common/error.h"

namespace dnnperf {

std::vector<std::string> split_list(std::string_view text, const std::string& option, char separator) {
  if (text.empty()) throw InputError(option + ": the list is empty");
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(separator, start), text.size());
    if (end == start) throw InputError(option + ": an empty item in '" + std::string(text) + "'");
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::int64_t parse_byte_size(const std::string& text, const std::string& option) {
  std::int64_t scale = 1;
  std::string digits = text;
  const auto suffix = [&](const std::string& s, std::int64_t f) {
    if (digits.size() > s.size() && digits.compare(digits.size() - s.size(), s.size(), s) == 0) {
      digits.resize(digits.size() - s.size());
      scale = f;
      return true;
    }
    return false;
  };
  suffix("KiB", 1LL << 10) || suffix("MiB", 1LL << 20) || suffix("GiB", 1LL << 30) || suffix("K", 1LL << 10) || suffix("M", 1LL << 20) ||
      suffix("B", 1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || v <= 0 || v > std::numeric_limits<std::int64_t>::max() / scale)
    throw InputError(option + ": '" + text + "' is not a positive size (bytes, or with K/KiB/M/MiB/GiB)");
  return v * scale;
}

}  // namespace dnnperf
