// Table: columns align to their widest cell, rows keep their order, CSV quotes what needs it.
#include <sstream>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "core/common/table.h"

using dnnperf::Table;

TEST_CASE("a table aligns each column to its widest cell, left or right") {
  Table t;
  t.column("method", Table::left).column("latency").column("status", Table::left);
  t.row({"heft", "3.914 ms", "heuristic"}).row({"milp", "12.5 ms", "feasible (time limit)"});
  std::ostringstream out;
  t.print(out);
  CHECK(out.str() ==
        "method   latency  status\n"
        "heft    3.914 ms  heuristic\n"
        "milp     12.5 ms  feasible (time limit)\n");
  CHECK(t.rows() == 2);
}

TEST_CASE("a short row is padded, a long one is refused, and CSV quotes commas and quotes") {
  Table t;
  t.column("name", Table::left).column("value");
  t.row({"only"});
  t.row({"a, \"b\"", "1"});
  CHECK_THROWS_AS(t.row({"x", "1", "extra"}), std::invalid_argument);
  CHECK_THROWS_AS(t.column("late"), std::invalid_argument);
  std::ostringstream csv;
  t.print_csv(csv);
  CHECK(csv.str() == "name,value\nonly,\n\"a, \"\"b\"\"\",1\n");
}
