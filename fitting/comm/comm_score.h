#pragma once
// A profile's fitted collective models judged on measurements they were not fitted to: each record
// priced by the model of its own algorithm and mode (an isolated call's model never prices a
// stream's records, nor the reverse), errors per model. `dnnperf score` prints it; an independent
// loop's records (validation/mpi/allreduce_loop.cc) are what the models are judged on.
#include <string>
#include <vector>

#include "fitting/comm/comm_data.h"
#include "fitting/error_stats.h"
#include "profile/hardware_profile.h"

namespace dnnperf::fitting {

struct ScoredMessage {
  CommSample sample;
  CommPrediction prediction;
};

struct CommScore {
  std::string algorithm;  // default (the library's choice), ring, ...
  CommMode mode = CommMode::isolated;
  int ranks = 0;
  std::string model;      // hockney, loggp, dnnperf
  ErrorStats errors;
  std::vector<ScoredMessage> messages;
};

/// Scores every sample of `data` with `profile`'s models: one score per algorithm, mode and rank
/// count, sorted so. Samples whose algorithm and mode the profile has no model of are added to
/// `data.excluded`, naming what is missing.
std::vector<CommScore> score_comm(const HardwareProfile& profile, CommData& data, const std::string& collective);

}  // namespace dnnperf::fitting
