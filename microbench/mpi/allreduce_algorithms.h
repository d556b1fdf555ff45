#pragma once
// The toolkit's own AllReduce algorithms over MPI point-to-point (sum of floats, in place): the
// algorithms models/comm/allreduce.h prices, run for real so that their models can be fitted and
// checked against the MPI library's own implementations.
#include <mpi.h>

#include <optional>
#include <string_view>
#include <vector>

#include "models/comm/allreduce.h"

namespace dnnperf::bench {

/// Sums `data` (count floats per rank) over `comm`, in place, with `algorithm`. `scratch` is
/// resized as needed and may be reused between calls. Hierarchical needs `node` (ranks sharing a
/// node) and `leaders` (local rank 0 of each node; MPI_COMM_NULL elsewhere).
void allreduce(AllReduceAlgorithm algorithm, float* data, int count, MPI_Comm comm, MPI_Comm node, MPI_Comm leaders,
               std::vector<float>& scratch);

}  // namespace dnnperf::bench
