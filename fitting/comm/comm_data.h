#pragma once
// Communication measurements prepared for fitting: one sample per (algorithm, size, ranks), with
// every record that cannot be used excluded and reported with its reason.
#include <string>
#include <vector>

namespace dnnperf::fitting {

struct CommSample {
  std::string algorithm;  // ring, ... (dnnperf's own), default (the library's), or mpi:<forced>
  double bytes = 0;
  int ranks = 0;
  double seconds = 0;     // median of the record
  double eager_limit = 0; // the transport's eager limit as the library reported it (bytes; 0: unknown)
  int nodes = 0;          // 0: unknown
  int cpus_per_node = 0;  // CPUs the ranks of a node could run on (0: unknown)
};

struct Exclusion {
  std::string where;   // file:line or algorithm
  std::string reason;
};

struct CommData {
  std::vector<CommSample> samples;
  std::vector<Exclusion> excluded;
  std::string host;
};

/// Reads `collective` records from measurement files. Throws InputError if the files hold
/// measurements of several systems (hosts), which one fit must not mix.
CommData load_comm_data(const std::vector<std::string>& files, const std::string& collective);

}  // namespace dnnperf::fitting
