#pragma once
// Table: the one way the commands print rows of figures. Cells are text (the caller formats
// numbers with core/common/format.h); a column has a title and an alignment. print() aligns each
// column to its widest cell for a terminal; print_csv() writes the same rows as CSV (RFC 4180:
// a cell with a comma, quote or line break is quoted, quotes doubled) for a spreadsheet or a plot.
//
//   Table t;
//   t.column("method", Table::left).column("latency").column("x bound");
//   t.row({"heft", "3.914 ms", "1.262"});
//   t.print(std::cout);
#include <ostream>
#include <string>
#include <vector>

namespace dnnperf {

class Table {
 public:
  enum Align { left, right };

  /// Adds a column; columns come before rows.
  Table& column(std::string title, Align align = right);
  /// Adds a row of one cell per column; a short row is padded with empty cells, a long one throws
  /// std::invalid_argument (a caller's bug).
  Table& row(std::vector<std::string> cells);

  std::size_t rows() const { return rows_.size(); }
  std::size_t columns() const { return columns_.size(); }

  /// The titles, then every row, each cell padded to its column's width, `gap` spaces between
  /// columns; no line ends in spaces.
  void print(std::ostream& out, int gap = 2) const;
  /// The titles, then every row, as CSV lines.
  void print_csv(std::ostream& out) const;

 private:
  struct Column {
    std::string title;
    Align align;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace dnnperf
