#include "microbench/mpi/mpi_session.h"

#include <sched.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/common/error.h"

namespace dnnperf::bench {
namespace {

// OpenMPI 4.1 coll_tuned: `ompi_info --param coll tuned --level 9`.
const std::map<std::string, std::map<std::string, int>>& algorithms() {
  static const std::map<std::string, std::map<std::string, int>> table = {
      {"allreduce", {{"basic_linear", 1}, {"nonoverlapping", 2}, {"recursive_doubling", 3}, {"ring", 4}, {"segmented_ring", 5}, {"rabenseifner", 6}}},
      {"allgather", {{"linear", 1}, {"bruck", 2}, {"recursive_doubling", 3}, {"ring", 4}, {"neighbor_exchange", 5}, {"two_proc", 6}}},
      {"reduce_scatter", {{"non_overlapping", 1}, {"recursive_halving", 2}, {"ring", 3}, {"butterfly", 4}}},
      {"bcast", {{"basic_linear", 1}, {"chain", 2}, {"pipeline", 3}, {"split_binary_tree", 4}, {"binary_tree", 5}, {"binomial", 6}, {"knomial", 7}, {"scatter_allgather", 8}, {"scatter_allgather_ring", 9}}}};
  return table;
}

std::mutex label_mutex;

/// The first of `names` the MPI library has as an integer control variable, read through the MPI
/// tool interface (MPI-3 MPI_T); nullopt where it has none of them.
std::optional<long long> control_variable(std::initializer_list<std::string_view> names) {
  int provided = 0, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return std::nullopt;
  std::optional<long long> value;
  MPI_T_cvar_get_num(&count);
  for (int i = 0; i < count && !value; ++i) {
    char name[256] = {}, description[8] = {};
    int name_length = sizeof name, description_length = sizeof description, verbosity = 0, binding = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumeration = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(i, name, &name_length, &verbosity, &type, &enumeration, description, &description_length, &binding,
                            &scope) != MPI_SUCCESS ||
        std::find(names.begin(), names.end(), std::string_view(name)) == names.end() || binding != MPI_T_BIND_NO_OBJECT)
      continue;
    MPI_T_cvar_handle handle;
    int elements = 0;
    if (MPI_T_cvar_handle_alloc(i, nullptr, &handle, &elements) != MPI_SUCCESS) continue;
    if (elements == 1) {
      if (type == MPI_INT || type == MPI_UNSIGNED) {
        int v = 0;
        if (MPI_T_cvar_read(handle, &v) == MPI_SUCCESS) value = v;
      } else if (type == MPI_UNSIGNED_LONG || type == MPI_UNSIGNED_LONG_LONG || type == MPI_LONG_LONG || type == MPI_LONG) {
        unsigned long long v = 0;
        if (MPI_T_cvar_read(handle, &v) == MPI_SUCCESS) value = static_cast<long long>(v);
      }
    }
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  return value;
}

/// The largest message the transport between these ranks sends eagerly (Open MPI counts its match
/// header in it), where the library says: the shared-memory BTL's limit when all ranks share a
/// node (vader in Open MPI 4, sm in 5). Across nodes the transport (TCP, UCX, ...) is the PML's
/// choice, not known here: nullopt, and fitting finds the switch from the data.
std::optional<long long> eager_limit(int nodes) {
  if (nodes != 1) return std::nullopt;
  const auto v = control_variable({"btl_vader_eager_limit", "btl_sm_eager_limit"});
  return v && *v > 0 ? v : std::nullopt;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// CPUs the ranks on this node may run on: the union of their affinity masks (a rank bound to one
/// core contributes that core; an unbound one, all the CPUs its cgroup allows). More ranks than
/// these time-share cores.
int node_cpus(MPI_Comm node) {
  constexpr int kWords = CPU_SETSIZE / 64;
  std::uint64_t words[kWords] = {};
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mask)) words[cpu / 64] |= std::uint64_t{1} << (cpu % 64);
  MPI_Allreduce(MPI_IN_PLACE, words, kWords, MPI_UINT64_T, MPI_BOR, node);
  int count = 0;
  for (std::uint64_t w : words) count += std::popcount(w);
  return count;
}

}  // namespace

std::optional<int> openmpi_algorithm(const std::string& op, const std::string& name) {
  const auto it = algorithms().find(op);
  if (it == algorithms().end()) return std::nullopt;
  const auto a = it->second.find(name);
  if (a == it->second.end()) return std::nullopt;
  return a->second;
}

std::string openmpi_algorithm_names(const std::string& op) {
  std::string out;
  const auto it = algorithms().find(op);
  if (it == algorithms().end()) return out;
  for (const auto& [name, number] : it->second) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::optional<int> mpi_thread_level(const std::string& name) {
  if (name == "single") return MPI_THREAD_SINGLE;
  if (name == "funneled") return MPI_THREAD_FUNNELED;
  if (name == "serialized") return MPI_THREAD_SERIALIZED;
  if (name == "multiple") return MPI_THREAD_MULTIPLE;
  return std::nullopt;
}

MpiSession::MpiSession(int* argc, char*** argv, const std::string& op, const std::optional<std::string>& forced, double timeout_s,
                       const std::string& threads)
    : label_("mpi:default"), timeout_s_(timeout_s) {
  const std::optional<int> level = mpi_thread_level(threads);
  if (!level) throw InputError("--mpi-threads: '" + threads + "' is not an MPI thread level (single, funneled, serialized, multiple)");
  if (forced) {
    const auto number = openmpi_algorithm(op, *forced);
    if (!number)
      throw InputError("--mpi-algorithm: OpenMPI has no " + op + " algorithm '" + *forced + "' (" + openmpi_algorithm_names(op) + ")");
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
    setenv(("OMPI_MCA_coll_tuned_" + op + "_algorithm").c_str(), std::to_string(*number).c_str(), 1);
    label_ = "mpi:" + *forced;
  }
  int provided = 0;
  MPI_Init_thread(argc, argv, *level, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_);
  int local = 0, local_size = 1;
  MPI_Comm_rank(node_, &local);
  MPI_Comm_size(node_, &local_size);
  MPI_Comm_split(MPI_COMM_WORLD, local == 0 ? 0 : MPI_UNDEFINED, rank_, &leaders_);
  int nodes = local == 0 ? 1 : 0, max_per_node = local_size;
  MPI_Allreduce(MPI_IN_PLACE, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &max_per_node, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // The level the library granted, which may be below the one asked for.
  const char* granted = provided >= MPI_THREAD_MULTIPLE ? "multiple" : provided >= MPI_THREAD_SERIALIZED ? "serialized"
                        : provided >= MPI_THREAD_FUNNELED ? "funneled" : "single";
  layout_ = {{"ranks", size_}, {"nodes", nodes}, {"ranks_per_node", max_per_node}, {"mpi_threads", granted}};
  int cpus = node_cpus(node_);
  MPI_Allreduce(MPI_IN_PLACE, &cpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);  // the most constrained node
  if (cpus > 0) layout_["cpus_per_node"] = cpus;
  if (size_ > 1)
    if (const auto limit = eager_limit(nodes)) layout_["eager_limit"] = *limit;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  version_ = version;
  version_ = version_.substr(0, version_.find_first_of(",\n"));
  watchdog_ = std::thread([this] { watch(); });
}

MpiSession::~MpiSession() {
  running_ = false;
  if (watchdog_.joinable()) watchdog_.join();
  if (leaders_ != MPI_COMM_NULL) MPI_Comm_free(&leaders_);
  MPI_Comm_free(&node_);
  MPI_Finalize();
}

void MpiSession::start(const std::string& what) {
  {
    std::lock_guard<std::mutex> lock(label_mutex);
    current_ = what;
  }
  started_ = now();
}

void MpiSession::stop() { started_ = -1; }

void MpiSession::watch() {
  while (running_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double t = started_;
    if (t >= 0 && now() - t > timeout_s_) {
      std::lock_guard<std::mutex> lock(label_mutex);
      std::fprintf(stderr,
                   "dnnperf bench: rank %d: %s has not finished within %.0f s (a dead or stuck rank?); stopping. "
                   "Records measured so far are kept; rerun with --resume to continue.\n",
                   rank_, current_.c_str(), timeout_s_);
      std::fflush(stderr);
      std::_Exit(3);  // mpirun ends the other ranks
    }
  }
}

}  // namespace dnnperf::bench
