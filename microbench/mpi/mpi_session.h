#pragma once
// MpiSession: MPI for the lifetime of a benchmark run — initialisation (after forcing an OpenMPI
// collective algorithm, which OpenMPI reads from its environment at MPI_Init), the process layout
// every record carries, and a watchdog that ends a run whose collective stops making progress
// instead of letting it hang.
#include <mpi.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace dnnperf::bench {

/// OpenMPI's coll_tuned algorithm numbers for `op` (allreduce, allgather, reduce_scatter, bcast):
/// the number for `name` ("ring", "recursive_doubling", ...), or nullopt if it has none.
std::optional<int> openmpi_algorithm(const std::string& op, const std::string& name);
/// The names openmpi_algorithm() accepts for `op`.
std::string openmpi_algorithm_names(const std::string& op);

/// The MPI thread levels by name (single, funneled, serialized, multiple): MPI_THREAD_*, or
/// nullopt for another name.
std::optional<int> mpi_thread_level(const std::string& name);

class MpiSession {
 public:
  /// Forces `forced` (an openmpi_algorithm name) for `op` when given, then initialises MPI at
  /// `threads` (a mpi_thread_level name). Throws InputError for an unknown algorithm or level
  /// (before MPI starts). The level changes what a call costs: on the 2-core VM, Open MPI 4.1's
  /// 2-rank AllReduce of 100 B took 0.49 us under funneled and 0.60 us under single, and of
  /// 700-3,000 B 10% longer under funneled (docs/validation.md). A plain MPI program runs at
  /// single (MPI_Init), torch.distributed's MPI backend at serialized, Horovod at multiple. The
  /// watchdog thread makes no MPI calls, so single holds.
  MpiSession(int* argc, char*** argv, const std::string& op, const std::optional<std::string>& forced, double timeout_s,
             const std::string& threads = "single");
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm node() const { return node_; }
  MPI_Comm leaders() const { return leaders_; }
  /// {"ranks", "nodes", "ranks_per_node", "mpi_threads"}, "cpus_per_node" (the CPUs the ranks of a node may run
  /// on, fewest over the nodes: more ranks than these time-share cores), and "eager_limit" (bytes)
  /// where the MPI library tells its transport's eager/rendezvous switch through MPI_T (shared
  /// memory on one node).
  const nlohmann::json& layout() const { return layout_; }
  const std::string& library_version() const { return version_; }
  /// "mpi:default" or "mpi:<forced name>".
  const std::string& mpi_algorithm_label() const { return label_; }

  /// Starts the watchdog's clock for one measurement; stop() ends it.
  void start(const std::string& what);
  void stop();

 private:
  void watch();

  int rank_ = 0, size_ = 1;
  MPI_Comm node_ = MPI_COMM_NULL, leaders_ = MPI_COMM_NULL;
  nlohmann::json layout_;
  std::string version_, label_;
  double timeout_s_;
  std::atomic<double> started_{-1};
  std::atomic<bool> running_{true};
  std::string current_;
  std::thread watchdog_;
};

}  // namespace dnnperf::bench
