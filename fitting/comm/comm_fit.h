#pragma once
// Fitting communication models with Ceres Solver, and judging them honestly.
//
// A fit minimises the robust (Huber) sum of squared log errors log(model / measured) — relative
// error, so small and large messages count alike — with every parameter bounded below by zero.
// dnnperf's model takes its protocol threshold from the records where the MPI library reported it
// (MPI_T, `layout.eager_limit`) and its oversubscription point from the node's CPU count
// (`layout.cpus_per_node`, one-node records), else chooses them from the data like its cache sizes
// (coordinate search over the measured sizes and rank counts). Parameter covariance and
// the residual spread give 95% prediction intervals.
//
// Evaluation never scores a model on data it was fitted to: sizes are held out in folds (every
// fourth size), and each rank count in turn.
#include <optional>
#include <string>
#include <vector>

#include "fitting/comm/comm_data.h"
#include "fitting/error_stats.h"
#include "models/comm/fitted_comm_model.h"

namespace dnnperf::fitting {

struct FitOutcome {
  FittedCommModel model;
  bool converged = false;
  std::string message;  // Ceres' termination message, or why the fit was not done
  int points = 0;
};

/// Fits `kind` for one algorithm to its samples. Fewer points than parameters: not converged,
/// with the reason.
FitOutcome fit_comm_model(CommModelKind kind, const std::string& algorithm, const std::vector<CommSample>& samples);

/// One measurement predicted by a fit that did not see it.
struct HeldOutPoint {
  CommSample sample;
  CommPrediction prediction;
  bool by_ranks = false;  // held out with its rank count (else with its size)
};

struct CrossValidation {
  ErrorStats held_out_sizes;
  ErrorStats held_out_ranks;  // count 0 when only one rank count was measured
  std::vector<HeldOutPoint> points;
};

CrossValidation cross_validate(CommModelKind kind, const std::string& algorithm, const std::vector<CommSample>& samples);

/// Samples of one algorithm.
std::vector<CommSample> of_algorithm(const std::vector<CommSample>& samples, const std::string& algorithm);

}  // namespace dnnperf::fitting
