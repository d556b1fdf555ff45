#include "scheduler/milp_solver.h"

#include <algorithm>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <coin/Cbc_C_Interface.h>

#include "core/common/error.h"

namespace dnnperf {

std::string MilpResult::describe() const {
  switch (status) {
    case Status::optimal: return "optimal";
    case Status::feasible: return "feasible";
    case Status::infeasible: return "infeasible";
    case Status::no_solution: return "no solution within the time limit";
    case Status::error: return message.empty() ? "solver error" : "solver error: " + message;
  }
  return "?";
}

int MilpProblem::add_variable(double lower, double upper, double cost, bool integer) {
  lower_.push_back(lower);
  upper_.push_back(upper);
  cost_.push_back(cost);
  integer_.push_back(integer ? 1 : 0);
  return variables() - 1;
}

void MilpProblem::add_row(const std::vector<std::pair<int, double>>& terms, char sense, double rhs) {
  for (const auto& [var, coef] : terms) {
    if (var < 0 || var >= variables()) throw std::logic_error("MILP row names a missing variable");
    if (coef == 0) continue;
    index_.push_back(var);
    value_.push_back(coef);
  }
  row_start_.push_back(static_cast<int>(index_.size()));
  senses_.push_back(sense);
  rhs_.push_back(rhs);
}

MilpResult MilpProblem::solve_here(double time_limit_s, const std::vector<double>& start, double absolute_gap) const {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Cbc_Model, void (*)(Cbc_Model*)> model(Cbc_newModel(), Cbc_deleteModel);
  Cbc_setLogLevel(model.get(), 0);
  // Column-major copy of the rows for Cbc_loadProblem (adding rows one by one through the C
  // interface loses coefficients in CBC 2.10).
  const auto n = static_cast<std::size_t>(variables());
  std::vector<CoinBigIndex> start_of(n + 1, 0);
  for (int v : index_) ++start_of[static_cast<std::size_t>(v) + 1];
  for (std::size_t v = 0; v < n; ++v) start_of[v + 1] += start_of[v];
  std::vector<int> rows_of(index_.size());
  std::vector<double> coefs(index_.size());
  std::vector<CoinBigIndex> fill(start_of.begin(), start_of.end() - 1);
  std::vector<double> row_lower(senses_.size()), row_upper(senses_.size());
  constexpr double inf = 1e300;
  for (std::size_t r = 0; r < senses_.size(); ++r) {
    for (int k = row_start_[r]; k < row_start_[r + 1]; ++k) {
      const auto at = static_cast<std::size_t>(fill[static_cast<std::size_t>(index_[static_cast<std::size_t>(k)])]++);
      rows_of[at] = static_cast<int>(r);
      coefs[at] = value_[static_cast<std::size_t>(k)];
    }
    row_lower[r] = senses_[r] == 'L' ? -inf : rhs_[r];
    row_upper[r] = senses_[r] == 'G' ? inf : rhs_[r];
  }
  Cbc_loadProblem(model.get(), variables(), rows(), start_of.data(), rows_of.data(), coefs.data(), lower_.data(), upper_.data(), cost_.data(),
                  row_lower.data(), row_upper.data());
  for (std::size_t v = 0; v < n; ++v)
    if (integer_[v]) Cbc_setInteger(model.get(), static_cast<int>(v));
  Cbc_setObjSense(model.get(), 1);
  Cbc_setMaximumSeconds(model.get(), std::max(time_limit_s, 0.01));
  Cbc_setAllowableFractionGap(model.get(), 1e-6);
  if (absolute_gap > 0) Cbc_setAllowableGap(model.get(), absolute_gap);
  if (!start.empty()) {
    if (start.size() != static_cast<std::size_t>(variables())) throw std::logic_error("MILP start must set every variable");
    std::vector<int> columns(start.size());
    for (std::size_t i = 0; i < columns.size(); ++i) columns[i] = static_cast<int>(i);
    Cbc_setMIPStartI(model.get(), variables(), columns.data(), start.data());
  }
  Cbc_solve(model.get());

  MilpResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double* best = Cbc_bestSolution(model.get());
  const bool has_integers = std::find(integer_.begin(), integer_.end(), 1) != integer_.end();
  if (!has_integers && Cbc_isProvenOptimal(model.get())) best = Cbc_getColSolution(model.get());
  if (Cbc_isProvenInfeasible(model.get())) {
    result.status = MilpResult::Status::infeasible;
  } else if (best) {
    result.values.assign(best, best + variables());
    result.objective = Cbc_getObjValue(model.get());
    result.status = Cbc_isProvenOptimal(model.get()) ? MilpResult::Status::optimal : MilpResult::Status::feasible;
    result.bound = result.status == MilpResult::Status::optimal ? result.objective : Cbc_getBestPossibleObjValue(model.get());
  } else {
    result.status = Cbc_status(model.get()) == 1 ? MilpResult::Status::no_solution : MilpResult::Status::error;
  }
  return result;
}

namespace {

bool write_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = write(fd, p, bytes);
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

MilpResult MilpProblem::solve(double time_limit_s, const std::vector<double>& start, double absolute_gap) const {
  // CBC 2.10 can crash (in CglPreProcess::postProcess) when its time limit stops a search at the
  // wrong moment. The search runs in a child process, so that a crash costs this one answer —
  // reported as a solver failure, which callers survive — not the whole program.
  const auto t0 = std::chrono::steady_clock::now();
  int fds[2];
  if (pipe(fds) != 0) return solve_here(time_limit_s, start, absolute_gap);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return solve_here(time_limit_s, start, absolute_gap);
  }
  if (pid == 0) {
    close(fds[0]);
    const MilpResult r = solve_here(time_limit_s, start, absolute_gap);
    const int status = static_cast<int>(r.status);
    const std::uint64_t n = r.values.size();
    const bool ok = write_all(fds[1], &status, sizeof status) && write_all(fds[1], &r.objective, sizeof r.objective) &&
                    write_all(fds[1], &r.bound, sizeof r.bound) && write_all(fds[1], &n, sizeof n) &&
                    write_all(fds[1], r.values.data(), n * sizeof(double));
    _exit(ok ? 0 : 3);
  }
  close(fds[1]);
  std::string buffer;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  MilpResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  constexpr std::size_t header = sizeof(int) + 2 * sizeof(double) + sizeof(std::uint64_t);
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || buffer.size() < header) {
    result.status = MilpResult::Status::error;
    result.message = WIFSIGNALED(wstatus) ? "CBC crashed (signal " + std::to_string(WTERMSIG(wstatus)) + ")" : "CBC's process failed";
    return result;
  }
  int status = 0;
  std::uint64_t n = 0;
  const char* p = buffer.data();
  std::memcpy(&status, p, sizeof status), p += sizeof status;
  std::memcpy(&result.objective, p, sizeof(double)), p += sizeof(double);
  std::memcpy(&result.bound, p, sizeof(double)), p += sizeof(double);
  std::memcpy(&n, p, sizeof n), p += sizeof n;
  if (buffer.size() != header + n * sizeof(double)) {
    result.status = MilpResult::Status::error;
    result.message = "CBC's process returned a truncated answer";
    return result;
  }
  result.values.resize(n);
  if (n > 0) std::memcpy(result.values.data(), p, n * sizeof(double));  // no solution: no values (and data() may be null)
  result.status = static_cast<MilpResult::Status>(status);
  return result;
}

}  // namespace dnnperf
