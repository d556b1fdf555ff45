#pragma once
// GPU compute benchmarks: cuBLAS GEMMs, cuDNN convolutions (forward, backward-data,
// backward-filter; NCHW and NHWC; cuDNN's heuristic choice and the fastest found by search),
// memory-bound kernels (copy, elementwise, reduction, softmax, layer normalisation) and the
// empty-kernel launch overhead. Timed with CUDA events around each call, after warm-up, over
// random inputs rotated through enough copies to defeat the L2 cache; Google Benchmark runs each
// case (manual time) where it is built in. NCCL AllReduce/AllGather/ReduceScatter over the GPUs of
// one node, from one process (several nodes over MPI are not supported yet).
#include <optional>
#include <string>
#include <vector>

#include "microbench/shapes/shape_sets.h"

namespace dnnperf::bench {

struct GpuBenchOptions {
  std::string op;                    // gemm, conv, memory, launch, nccl_allreduce, nccl_allgather, nccl_reduce_scatter
  std::string output;
  bool resume = false;
  bool progress = true;
  std::optional<double> time_budget_s;
  std::vector<std::int64_t> sizes;   // memory: buffer bytes (default 1 MiB .. 1 GiB)
  std::vector<std::string> dtypes;   // gemm, conv: f32, tf32, f16, bf16 (default: all)
  int device = 0;
};

/// Returns 0, or 77 (with the reason on stderr) when there is no usable CUDA device.
/// Throws InputError for bad options.
int run_gpu_bench(const GpuBenchOptions& options, const ShapeSet& shapes);

}  // namespace dnnperf::bench
