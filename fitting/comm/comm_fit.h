#pragma once
// Fitting communication models with Ceres Solver, and judging them honestly.
//
// A fit minimises the robust (Huber) sum of squared log errors log(model / measured) — relative
// error, so small and large messages count alike — with every parameter bounded below by zero.
// dnnperf's model takes its protocol threshold from the records where the MPI library reported it
// (MPI_T, `layout.eager_limit`) and its oversubscription point from the node's CPU count
// (`layout.cpus_per_node`, one-node records), else chooses them from the data like its fast-path
// limit and cache sizes (coordinate search over the measured sizes and rank counts). Parameter covariance and
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
  bool usable = false;    // a solution exists: converged, or stopped at the iteration limit
  std::string message;  // Ceres' termination message, or why the fit was not done
  int points = 0;
};

/// Which of dnnperf's own algorithms the library's choice ("default") runs at each point it was
/// measured: the one of `alternatives` timed at the same size and rank count whose time is nearest
/// its own (in log). Consecutive sizes with the same pick make one range; a switch lies halfway
/// (geometrically) between the sizes either side. Empty where no alternative shares a point.
std::vector<LibraryChoice> infer_library_choices(const std::vector<CommSample>& library, const std::vector<CommSample>& alternatives);

/// Fits `kind` for one algorithm to its samples, all of one mode (the model's). Fewer points than parameters: not converged,
/// with the reason. For the library's choice, `alternatives` (samples of dnnperf's own algorithms
/// from the same runs) give it the map of which algorithm it runs where (infer_library_choices).
/// With `size_corrections`, the model keeps what its form missed at each measured size
/// (FittedCommModel::size_corrections), each rank count's in the model that prices it.
FitOutcome fit_comm_model(CommModelKind kind, const std::string& algorithm, const std::vector<CommSample>& samples,
                          const std::vector<CommSample>& alternatives = {}, bool size_corrections = false);

/// One measurement predicted by a fit that did not see it.
struct HeldOutPoint {
  CommSample sample;
  CommPrediction prediction;
  bool by_ranks = false;  // held out with its rank count (else with its size)
};

struct CrossValidation {
  ErrorStats held_out_sizes;
  ErrorStats held_out_ranks;  // count 0 when only one rank count was measured
  /// Root mean square of log(predicted / measured) over the held-out rank counts: what a count
  /// without a model of its own is off by (FittedCommModel::unmeasured_ranks_sigma); 0 when only
  /// one rank count was measured.
  double held_out_ranks_sigma = 0;
  std::vector<HeldOutPoint> points;
};

/// Held-out sizes and rank counts leave the alternatives' samples at those points out as well: the
/// library's choice there is inferred from the other points, as for a size never measured.
CrossValidation cross_validate(CommModelKind kind, const std::string& algorithm, const std::vector<CommSample>& samples,
                               const std::vector<CommSample>& alternatives = {}, bool size_corrections = false);

/// Samples of one algorithm, in one mode.
std::vector<CommSample> of_algorithm(const std::vector<CommSample>& samples, const std::string& algorithm, CommMode mode = CommMode::isolated);

}  // namespace dnnperf::fitting
