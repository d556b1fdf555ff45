#include "core/common/table.h"

#include <algorithm>
#include <stdexcept>

namespace dnnperf {
namespace {

std::string csv_cell(const std::string& cell) {
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

Table& Table::column(std::string title, Align align) {
  if (!rows_.empty()) throw std::invalid_argument("Table: column '" + title + "' added after rows");
  columns_.push_back({std::move(title), align});
  return *this;
}

Table& Table::row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size())
    throw std::invalid_argument("Table: a row of " + std::to_string(cells.size()) + " cells for " + std::to_string(columns_.size()) + " columns");
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

void Table::print(std::ostream& out, int gap) const {
  std::vector<std::size_t> width;
  for (const Column& c : columns_) width.push_back(c.title.size());
  for (const auto& r : rows_)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  const auto line = [&](const auto& cell_of) {
    std::string text;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const std::string& cell = cell_of(i);
      const std::string pad(width[i] - cell.size(), ' ');
      if (i > 0) text += std::string(static_cast<std::size_t>(gap), ' ');
      const bool last = i + 1 == columns_.size();
      text += columns_[i].align == left ? cell + (last ? "" : pad) : pad + cell;
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
  };
  line([&](std::size_t i) -> const std::string& { return columns_[i].title; });
  for (const auto& r : rows_) line([&](std::size_t i) -> const std::string& { return r[i]; });
}

void Table::print_csv(std::ostream& out) const {
  const auto line = [&](const auto& cell_of) {
    for (std::size_t i = 0; i < columns_.size(); ++i) out << (i > 0 ? "," : "") << csv_cell(cell_of(i));
    out << "\n";
  };
  line([&](std::size_t i) -> const std::string& { return columns_[i].title; });
  for (const auto& r : rows_) line([&](std::size_t i) -> const std::string& { return r[i]; });
}

}  // namespace dnnperf
