#include "predictor/large_model/pipeline_layout.h"

#include <cctype>

#include "core/common/error.h"

namespace dnnperf {
namespace {

// Far beyond any model's layers and chunks: a bound on what a typo can make us unroll.
constexpr std::int64_t kMaxLetters = 1'000'000;

/// Expands "x*n" and "(...)*n" (innermost groups first) into plain letters and separators.
std::string unrolled(std::string_view layout, const std::string& where) {
  std::string s;
  for (const char c : layout)
    if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) s += c;
  const auto count_at = [&](std::size_t star) {
    std::size_t end = star + 1;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
    if (end == star + 1) throw InputError(where + ": '*' at " + std::to_string(star) + " needs a count after it");
    const std::string digits = s.substr(star + 1, end - star - 1);
    if (digits.size() > 6) throw InputError(where + ": repeat count " + digits + " is too large");
    return std::pair{std::stoll(digits), end};
  };
  // Groups: the last "(" opens the innermost one.
  for (std::size_t open = s.rfind('('); open != std::string::npos; open = s.rfind('(')) {
    const std::size_t close = s.find(')', open);
    if (close == std::string::npos) throw InputError(where + ": '(' at " + std::to_string(open) + " is never closed");
    if (close + 1 >= s.size() || s[close + 1] != '*') throw InputError(where + ": a group '(...)' must be followed by '*' and a count");
    const auto [n, end] = count_at(close + 1);
    const std::string body = s.substr(open + 1, close - open - 1);
    if (static_cast<double>(s.size() - (end - open)) + static_cast<double>(body.size()) * static_cast<double>(n) > kMaxLetters)
      throw InputError(where + ": unrolls to more than " + std::to_string(kMaxLetters) + " letters");
    std::string repeated;
    for (std::int64_t i = 0; i < n; ++i) repeated += body;
    s = s.substr(0, open) + repeated + s.substr(end);
  }
  if (s.find(')') != std::string::npos) throw InputError(where + ": ')' without its '('");
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '*') {
      out += s[i];
      continue;
    }
    if (out.empty() || out.back() == '|') throw InputError(where + ": '*' at " + std::to_string(i) + " repeats nothing");
    const auto [n, end] = count_at(i);
    if (n < 1) throw InputError(where + ": a repeat count must be at least 1");
    if (static_cast<double>(out.size()) + static_cast<double>(n) > kMaxLetters)
      throw InputError(where + ": unrolls to more than " + std::to_string(kMaxLetters) + " letters");
    out.append(static_cast<std::size_t>(n - 1), out.back());
    i = end - 1;
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> parse_pipeline_layout(std::string_view layout, int pp, std::int64_t layers) {
  const std::string where = "--pipeline-layout \"" + std::string(layout) + "\"";
  const std::string s = unrolled(layout, where);
  std::vector<std::int64_t> chunks{0};
  int embeddings = 0, losses = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '|') {
      chunks.push_back(0);
    } else if (c == 't') {
      ++chunks.back();
    } else if (c == 'E') {
      if (i != 0) throw InputError(where + ": the embedding (E) must open the first chunk");
      ++embeddings;
    } else if (c == 'L') {
      if (i != s.size() - 1) throw InputError(where + ": the output layer and loss (L) must close the last chunk");
      ++losses;
    } else if (c == 'm') {
      throw InputError(where + ": multi-token prediction layers (m) are not modelled");
    } else {
      throw InputError(where + ": unknown letter '" + std::string(1, c) + "' (E embedding, t transformer layer, L output and loss; '|' between chunks)");
    }
  }
  if (embeddings != 1) throw InputError(where + ": needs the embedding (E) once, at the start");
  if (losses != 1) throw InputError(where + ": needs the output layer and loss (L) once, at the end");
  std::int64_t total = 0;
  for (const std::int64_t n : chunks) total += n;
  if (total != layers)
    throw InputError(where + ": places " + std::to_string(total) + " transformer layers (t), the model has " + std::to_string(layers));
  if (pp < 1 || chunks.size() % static_cast<std::size_t>(pp) != 0)
    throw InputError(where + ": " + std::to_string(chunks.size()) + " chunks are not a multiple of --pp " + std::to_string(pp));
  return chunks;
}

}  // namespace dnnperf
