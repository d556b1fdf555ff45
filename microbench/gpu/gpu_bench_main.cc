// dnnperf-gpu-bench: the GPU measurements without the rest of dnnperf, for GPU machines that
// have CUDA but not dnnperf's other dependencies (scripts/gpu_calibrate.sh builds it there).
// Same records as `dnnperf bench gemm|conv|memory|launch`.
//
//   dnnperf-gpu-bench gemm|conv|memory|launch|nccl_allreduce|nccl_allgather|nccl_reduce_scatter|nccl_alltoall -o FILE [--shapes deepbench|sample:N[:SEED[:GFLOP]]] [--dtypes f32,tf32,f16,bf16]
//                     [--sizes BYTES,...] [--time-budget S] [--resume] [--quiet]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "microbench/gpu/gpu_bench.h"
#include "core/common/error.h"
#include "core/common/text_lists.h"

namespace {

int usage() {
  std::fprintf(stderr, "usage: dnnperf-gpu-bench gemm|conv|memory|launch -o FILE [--shapes SET] [--dtypes LIST] "
                       "[--sizes BYTES,...] [--time-budget S] [--resume] [--quiet]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  dnnperf::bench::GpuBenchOptions o;
  o.op = argv[1];
  std::string shapes = "deepbench";
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      const auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw dnnperf::InputError(a + " needs a value");
        return argv[++i];
      };
      if (a == "-o" || a == "--output") o.output = value();
      else if (a == "--shapes") shapes = value();
      else if (a == "--dtypes") o.dtypes = dnnperf::split_list(value(), "--dtypes");
      else if (a == "--sizes")
        for (const std::string& s : dnnperf::split_list(value(), "--sizes")) o.sizes.push_back(dnnperf::parse_byte_size(s, "--sizes"));
      else if (a == "--time-budget") o.time_budget_s = std::stod(value());
      else if (a == "--resume") o.resume = true;
      else if (a == "--quiet") o.progress = false;
      else throw dnnperf::InputError("unknown option '" + a + "'");
    }
    if (o.output.empty()) return usage();
    const dnnperf::bench::ShapeSet set = o.op == "gemm" || o.op == "conv" ? dnnperf::bench::shape_set(shapes) : dnnperf::bench::ShapeSet{};
    return dnnperf::bench::run_gpu_bench(o, set);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dnnperf-gpu-bench: error: %s\n", e.what());
    return 1;
  }
}
