#pragma once
// Communication benchmarks over MPI: ping-pong point-to-point, and the collectives AllReduce,
// AllGather, ReduceScatter and Bcast with the MPI library's algorithm (its default, or one forced
// for the run) and, for AllReduce, the toolkit's own algorithms over point-to-point. Every result
// is checked before it is timed. All ranks call run_comm_bench; rank 0 writes the records.
#include <optional>
#include <string>
#include <vector>

#include "microbench/mpi/mpi_session.h"

namespace dnnperf::bench {

struct CommBenchOptions {
  std::string op;                    // p2p, allreduce, allgather, reduce_scatter, alltoall, bcast
  std::vector<std::int64_t> sizes;   // bytes per message (the whole vector for collectives)
  /// "mpi" and, for allreduce, the toolkit's algorithms by name; empty: all that apply.
  std::vector<std::string> algorithms;
  /// How calls are timed (each record names its mode in layout.mode), as nccl-tests and OSU
  /// distinguish them: "isolated", one call after a barrier, its slowest rank's time (a latency);
  /// "stream", calls back to back between barriers, the burst's slowest rank's time over its
  /// length (what a call costs when calls follow each other, as DDP issues gradient buckets).
  /// Empty: both for collectives, isolated for p2p (a ping-pong is a round trip already).
  std::vector<std::string> modes;
  std::string output;
  bool resume = false;
  std::optional<double> time_budget_s;
  double target_seconds = 0.3;       // time spent timing one measurement
  int min_repetitions = 5;
  int max_repetitions = 20000;
  bool progress = true;
};

/// Default sizes: 4 B to 256 MiB, powers of two and the points halfway between (x1.5).
std::vector<std::int64_t> default_message_sizes();

/// Throws InputError (on every rank alike) for bad options; returns the number of records written.
int run_comm_bench(MpiSession& mpi, const CommBenchOptions& options);

}  // namespace dnnperf::bench
