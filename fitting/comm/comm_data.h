#pragma once
// Communication measurements prepared for fitting: one sample per (algorithm, size, ranks), with
// every record that cannot be used excluded and reported with its reason.
#include <ostream>
#include <string>
#include <vector>

#include "profile/comm_model.h"

namespace dnnperf::fitting {

struct CommSample {
  std::string algorithm;  // ring, ... (dnnperf's own), default (the library's), or mpi:<forced>
  double bytes = 0;
  int ranks = 0;
  double seconds = 0;     // median of the record
  double eager_limit = 0; // the transport's eager limit as the library reported it (bytes; 0: unknown)
  int nodes = 0;          // 0: unknown
  int cpus_per_node = 0;  // CPUs the ranks of a node could run on (0: unknown)
  int runs = 1;           // measurement files that timed this point: `seconds` is their median
  double run_spread = 0;  // (slowest - fastest) / mean of those runs' times; 0 for one run
  CommMode mode = CommMode::isolated;  // layout.mode; records without it were isolated calls
  std::string mpi_threads = "";        // layout.mpi_threads, the MPI thread level; empty: unknown
};

struct Exclusion {
  std::string where;   // file:line or algorithm
  std::string reason;
};

/// Writes `excluded` to `log`, one line per reason ("excluded: FIRST and N more: REASON"), at most
/// `most` reasons and then how many more: a file of a million repeated records is one line, not a
/// million.
void log_exclusions(std::ostream& log, const std::vector<Exclusion>& excluded, std::size_t most = 20);

struct CommData {
  std::vector<CommSample> samples;
  std::vector<Exclusion> excluded;
  std::string host;
};

/// Reads `collective` records from measurement files. A point is (algorithm, mode, size, ranks).
/// Throws InputError if the files hold measurements of several systems (hosts) or MPI thread
/// levels, which one fit must not mix. The same point in several files is a repeated run: the
/// sample takes the median of the runs and their spread, the run-to-run noise that no model can be
/// asked to beat; twice in one file it is a duplicate and excluded, as is a run whose layout
/// (eager limit, nodes, CPUs, MPI thread level) differs from the first run's (a field one of them
/// lacks is taken from the other).
/// The samples' run-to-run noise: the mean of 100 (slowest - fastest) / mean over the samples that
/// several files timed, and how many those are (0: none, and the mean is 0).
struct RunNoise {
  double mean_percent = 0;
  int points = 0;
};
RunNoise run_noise(const std::vector<CommSample>& samples);

CommData load_comm_data(const std::vector<std::string>& files, const std::string& collective);

}  // namespace dnnperf::fitting
