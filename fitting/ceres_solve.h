#pragma once
// One way every fit here runs Ceres: dense QR (problems are small), silent, bounded iterations.
#include <string>

#include <ceres/ceres.h>

namespace dnnperf::fitting {

struct SolveResult {
  bool usable = false;     // a solution exists (may have stopped before converging)
  bool converged = false;
  double cost = 0;
  std::string message;
};

inline SolveResult solve_quietly(ceres::Problem& problem, int max_iterations = 200) {
  ceres::Solver::Options options;
  options.linear_solver_type = ceres::DENSE_QR;
  options.logging_type = ceres::SILENT;
  options.max_num_iterations = max_iterations;
  ceres::Solver::Summary summary;
  ceres::Solve(options, &problem, &summary);
  return {summary.IsSolutionUsable(), summary.IsSolutionUsable() && summary.termination_type == ceres::CONVERGENCE,
          summary.final_cost, summary.message};
}

}  // namespace dnnperf::fitting
