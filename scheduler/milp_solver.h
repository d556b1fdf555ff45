#pragma once
// MilpProblem: a mixed-integer linear program built column by column and row by row, solved by
// COIN-OR CBC (through its C interface) with a time limit and an optional starting solution.
// The only place dnnperf talks to CBC.
#include <string>
#include <utility>
#include <vector>

namespace dnnperf {

struct MilpResult {
  enum class Status { optimal, feasible, infeasible, no_solution, error };
  Status status = Status::error;
  double objective = 0;  // of the best solution found
  double bound = 0;      // proven lower bound (minimisation)
  std::vector<double> values;
  double seconds = 0;
  std::string message;  // why, for an error
  bool has_solution() const { return status == Status::optimal || status == Status::feasible; }
  std::string describe() const;
};

class MilpProblem {
 public:
  /// A variable in [lower, upper] with objective coefficient `cost` (minimised); returns its index.
  int add_variable(double lower, double upper, double cost, bool integer);
  int add_binary(double cost = 0) { return add_variable(0, 1, cost, true); }
  /// sum(terms) (<=, >= or ==) rhs, sense being 'L', 'G' or 'E'.
  void add_row(const std::vector<std::pair<int, double>>& terms, char sense, double rhs);
  int variables() const { return static_cast<int>(lower_.size()); }
  int rows() const { return static_cast<int>(senses_.size()); }

  /// Solves with CBC in a child process (a solver crash becomes Status::error, never the
  /// program's); `start`, if not empty, gives a value for every variable. The search stops
  /// as optimal once the best solution is within `absolute_gap` of the bound (for objectives
  /// with tie-breaking terms: proving the tie-break optimal is wasted effort) or within a
  /// relative 1e-6.
  MilpResult solve(double time_limit_s, const std::vector<double>& start = {}, double absolute_gap = 0) const;

 private:
  MilpResult solve_here(double time_limit_s, const std::vector<double>& start, double absolute_gap) const;
  std::vector<double> lower_, upper_, cost_;
  std::vector<char> integer_;
  std::vector<int> row_start_{0};
  std::vector<int> index_;
  std::vector<double> value_;
  std::vector<char> senses_;
  std::vector<double> rhs_;
};

}  // namespace dnnperf
