// dnnperf-mpi-layout: how the processes of an MPI job map onto nodes, as JSON on rank 0's stdout.
// Collective costs depend on it (ranks per node decide which links a ring or a tree crosses), and
// every communication measurement record carries it.
//
//   mpirun -np 4 build/bin/dnnperf-mpi-layout
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);

  // Ranks that share memory share a node: MPI_COMM_TYPE_SHARED is the portable test.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local_rank = 0, local_size = 0;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);

  std::vector<char> hosts(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<int> local_ranks(static_cast<std::size_t>(size));
  MPI_Gather(&local_rank, 1, MPI_INT, local_ranks.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    std::map<std::string, int> per_node;
    nlohmann::json ranks = nlohmann::json::array();
    for (int r = 0; r < size; ++r) {
      const std::string h(&hosts[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
      ++per_node[h];
      ranks.push_back({{"rank", r}, {"host", h}, {"local_rank", local_ranks[static_cast<std::size_t>(r)]}});
    }
    int max_per_node = 0;
    for (const auto& [h, n] : per_node) max_per_node = std::max(max_per_node, n);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int version_length = 0;
    MPI_Get_library_version(version, &version_length);
    std::string library(version);
    library = library.substr(0, library.find_first_of(",\n"));
    const nlohmann::json out = {{"ranks", size},
                                {"nodes", per_node.size()},
                                {"max_ranks_per_node", max_per_node},
                                {"library", library},
                                {"layout", ranks}};
    std::cout << out.dump(2) << "\n";
  }
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
