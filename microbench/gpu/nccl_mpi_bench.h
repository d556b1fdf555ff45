#pragma once
// NCCL collectives across MPI processes, one GPU per rank (ranks of a node take its GPUs in
// turn), bootstrapped by broadcasting NCCL's unique id over MPI: the multi-node form of
// `dnnperf bench allreduce|allgather|reduce-scatter --device gpu` under mpirun.
#include <mpi.h>

#include <nlohmann/json.hpp>

#include "microbench/gpu/gpu_bench.h"

namespace dnnperf::bench {

/// All ranks call it; rank 0 writes. `layout` is the run's process layout; returns 0, or 77 on
/// every rank when some rank has no GPU.
int run_nccl_over_mpi(const GpuBenchOptions& options, MPI_Comm node, const nlohmann::json& layout);

}  // namespace dnnperf::bench
