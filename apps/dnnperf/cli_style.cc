#include "apps/dnnperf/cli_style.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <string>

namespace dnnperf::cli {
namespace {

constexpr std::size_t kHelpWidth = 100;
constexpr std::size_t kNameColumn = 30;

/// Breaks `text` into lines of at most `width` characters at spaces (a longer word stays whole).
std::string wrapped(const std::string& text, std::size_t width) {
  std::istringstream words(text);
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

class WrappingFormatter : public CLI::Formatter {
 public:
  WrappingFormatter() { column_width(kNameColumn); }
  std::string make_option_desc(const CLI::Option* opt) const override {
    return wrapped(CLI::Formatter::make_option_desc(opt), kHelpWidth - kNameColumn);
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_name(), wrapped(sub->get_description(), kHelpWidth - kNameColumn), column_width_);
    return out.str();
  }
};

/// A validator of a finite number that `accept` approves; `rule` says which ("must be positive").
CLI::Validator number_check(bool (*accept)(double), const std::string& rule, const std::string& name) {
  return CLI::Validator(
      [accept, rule](std::string& text) -> std::string {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || !accept(v))
          return rule + ", is '" + text + "'";
        return {};
      },
      name, name);
}

}  // namespace

std::shared_ptr<CLI::Formatter> help_formatter() { return std::make_shared<WrappingFormatter>(); }

const CLI::Validator& positive() {
  static const CLI::Validator v = number_check([](double x) { return x > 0; }, "must be a positive number", "POSITIVE");
  return v;
}

const CLI::Validator& non_negative() {
  static const CLI::Validator v = number_check([](double x) { return x >= 0; }, "must be a number >= 0", "NON-NEGATIVE");
  return v;
}

}  // namespace dnnperf::cli
