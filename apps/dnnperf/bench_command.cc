#include "apps/dnnperf/bench_command.h"
#include "apps/dnnperf/cli_style.h"

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "microbench/shapes/shape_sets.h"
#include "core/common/error.h"
#include "core/common/text_lists.h"
#ifdef DNNPERF_HAVE_MPI
#include "microbench/mpi/comm_bench.h"
#endif
#ifdef DNNPERF_HAVE_CUDA
#include "microbench/gpu/gpu_bench.h"
#endif
#ifdef DNNPERF_HAVE_NCCL_MPI
#include "microbench/gpu/nccl_mpi_bench.h"
#endif

namespace dnnperf::cli {
namespace {

struct Options {
  std::string op;
  std::string device;  // compute: gpu (default); communication: MPI processes, or gpu for NCCL
  std::string shapes = "deepbench";
  std::int64_t batch = 32;
  std::string sizes;
  bool sizes_given = false;  // --sizes "" is an empty list, not the default sweep
  std::string algorithms;
  std::string mpi_algorithm;
  std::string modes;  // MPI collectives: isolated, stream or both (empty)
  std::string mpi_threads = "single";
  double time_budget = 0;
  double timeout = 300;
  bool resume = false;
  bool quiet = false;
  bool list_shapes = false;
  std::string output;
};

const std::vector<std::string> kCommOps = {"p2p", "allreduce", "allgather", "reduce-scatter", "alltoall", "bcast"};
const std::vector<std::string> kComputeOps = {"gemm", "conv", "memory", "launch"};

#ifdef DNNPERF_HAVE_CUDA
bench::GpuBenchOptions gpu_options(const Options& o, const std::string& op) {
  bench::GpuBenchOptions g;
  g.op = op;
  g.output = o.output;
  g.resume = o.resume;
  g.progress = !o.quiet;
  if (o.time_budget > 0) g.time_budget_s = o.time_budget;
  if (o.sizes_given)
    for (const std::string& s : split_list(o.sizes, "--sizes")) g.sizes.push_back(parse_byte_size(s, "--sizes"));
  g.dtypes = o.algorithms.empty() || o.algorithms == "all" ? std::vector<std::string>{} : split_list(o.algorithms, "--algorithms");
  return g;
}
#endif

int run_gpu(const Options& o, const std::string& op, const bench::ShapeSet& shapes) {
#ifdef DNNPERF_HAVE_CUDA
  return bench::run_gpu_bench(gpu_options(o, op), shapes);
#else
  (void)o, (void)shapes;
  std::cerr << "dnnperf bench " << op << ": this dnnperf was built without CUDA (no nvcc found); no GPU to measure\n";
  return 77;
#endif
}

int run_comm(const Options& o) {
  const std::string op = o.op == "reduce-scatter" ? "reduce_scatter" : o.op;
  if (o.device == "gpu") {
    if (op == "p2p" || op == "bcast") throw InputError("--device gpu (NCCL) measures allreduce, allgather, reduce-scatter and alltoall");
    if (o.output.empty()) throw InputError("-o: an output file is required");
    if (!o.modes.empty() && o.modes != "isolated")
      throw InputError("--mode: NCCL calls are timed isolated only (each synchronised before the next); stream is for MPI");
#ifdef DNNPERF_HAVE_NCCL_MPI
    // Under mpirun with several ranks: one GPU per rank, NCCL bootstrapped over MPI.
    const char* world = std::getenv("OMPI_COMM_WORLD_SIZE");
    if (!world) world = std::getenv("PMI_SIZE");
    if (world && std::atoi(world) > 1) {
      bench::MpiSession mpi(nullptr, nullptr, op, std::nullopt, o.timeout);
      try {
        return bench::run_nccl_over_mpi(gpu_options(o, "nccl_" + op), mpi.node(), mpi.layout());
      } catch (const InputError& e) {
        if (mpi.rank() == 0) std::cerr << "dnnperf: error: " << e.what() << "\n";
        return 1;
      }
    }
#endif
    return run_gpu(o, "nccl_" + op, {});
  }
  if (!o.device.empty() && o.device != "cpu") throw InputError("--device must be gpu or cpu, is '" + o.device + "'");
#ifdef DNNPERF_HAVE_MPI
  bench::CommBenchOptions c;
  c.op = op;
  c.output = o.output;
  c.resume = o.resume;
  c.progress = !o.quiet;
  if (o.time_budget > 0) c.time_budget_s = o.time_budget;
  if (!o.sizes_given) c.sizes = bench::default_message_sizes();
  else
    for (const std::string& s : split_list(o.sizes, "--sizes")) c.sizes.push_back(parse_byte_size(s, "--sizes"));
  if (!o.algorithms.empty() && o.algorithms != "all") c.algorithms = split_list(o.algorithms, "--algorithms");
  if (!o.modes.empty()) c.modes = split_list(o.modes, "--mode");
  if (!(o.timeout > 0)) throw InputError("--timeout must be positive");
  std::optional<std::string> forced;
  if (!o.mpi_algorithm.empty()) forced = o.mpi_algorithm;
  bench::MpiSession mpi(nullptr, nullptr, op, forced, o.timeout, o.mpi_threads);
  try {
    const int written = bench::run_comm_bench(mpi, c);
    if (mpi.rank() == 0) std::cerr << "dnnperf bench: " << written << " records written to " << o.output << "\n";
    return 0;
  } catch (const InputError& e) {
    if (mpi.rank() == 0) std::cerr << "dnnperf: error: " << e.what() << "\n";
    return 1;
  }
#else
  throw InputError("this dnnperf was built without MPI: install libopenmpi-dev (scripts/setup.sh) and rebuild");
#endif
}

int run_compute(const Options& o) {
  if (!o.device.empty() && o.device != "gpu" && o.device != "cpu") throw InputError("--device must be gpu or cpu, is '" + o.device + "'");
  if (o.output.empty()) throw InputError("-o: an output file is required");
  if (o.device == "cpu")
    throw InputError("`dnnperf bench " + o.op + "` measures GPU kernels; CPU kernel benchmarks are not part of this version");
  const bench::ShapeSet shapes = o.op == "gemm" || o.op == "conv" ? bench::shape_set(o.shapes, o.batch) : bench::ShapeSet{};
  return run_gpu(o, o.op, shapes);
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("bench", "Measure per-operation costs (GPU kernels; MPI communication under mpirun)");
  c->footer("Examples:\n  dnnperf bench gemm --shapes deepbench -o gemm.jsonl\n  mpirun -np 4 dnnperf bench allreduce --algorithms all -o allreduce.jsonl --resume");
  std::vector<std::string> ops = kComputeOps;
  ops.insert(ops.end(), kCommOps.begin(), kCommOps.end());
  c->add_option("operation", o->op, "gemm, conv, memory, launch (GPU); p2p, allreduce, allgather, reduce-scatter, alltoall, bcast (MPI)")
      ->required()
      ->check(CLI::IsMember(ops).description(""));  // the choices are in the text: the generated list outgrows the help's width
  c->add_option("-o,--output", o->output, "measurement file (JSON Lines, docs/measurement-format.md); required unless --list-shapes");
  c->add_option("--device", o->device, "compute: gpu (default); allreduce/allgather/reduce-scatter/alltoall: gpu measures NCCL over this node's GPUs instead of MPI");
  c->add_option("--shapes", o->shapes, "gemm/conv shapes: zoo:NETWORK, deepbench, sample:N[:SEED[:GFLOP]], cnn:N[:SEED[:GFLOP]], depthwise:N[:SEED[:GFLOP]] or square:N,... (microbench/shapes/shape_sets.h)")->capture_default_str();
  c->add_option("--batch", o->batch, "batch of the network for --shapes zoo:NETWORK")->capture_default_str()->check(positive());
  CLI::Option* sizes = c->add_option("--sizes", o->sizes, "message or buffer sizes, e.g. 4,1K,64KiB,1MiB (default: 4 B to 256 MiB)");
  c->add_option("--algorithms", o->algorithms,
                "allreduce: mpi,ring,recursive_doubling,rabenseifner,binomial_tree,hierarchical or all; gemm/conv: dtypes f32,tf32,f16,bf16");
  c->add_option("--mode", o->modes,
                "MPI: isolated (a barrier before each call: latency), stream (calls back to back: throughput) or both, "
                "e.g. isolated,stream (default: both; p2p: isolated)");
  c->add_option("--mpi-threads", o->mpi_threads,
                "MPI thread level to run at, as the application to predict does: single (MPI_Init: plain MPI programs), funneled, "
                "serialized (torch.distributed's MPI backend) or multiple (Horovod); it changes small calls' cost")
      ->capture_default_str()
      ->check(CLI::IsMember({"single", "funneled", "serialized", "multiple"}));
  c->add_option("--mpi-algorithm", o->mpi_algorithm, "force OpenMPI's algorithm for this run (e.g. ring, recursive_doubling, bruck)");
  c->add_option("--time-budget", o->time_budget, "stop cleanly after this many seconds")->check(positive());
  c->add_option("--timeout", o->timeout, "seconds one measurement may take before the run is stopped")->capture_default_str()->check(positive());
  c->add_flag("--resume", o->resume, "continue an existing output file, skipping what it holds");
  c->add_flag("--quiet", o->quiet, "no progress line");
  c->add_flag("--list-shapes", o->list_shapes, "print the --shapes set as JSON ({op, params} per kernel) and measure nothing");
  c->callback([o, sizes, &exit_code] {
    o->sizes_given = sizes->count() > 0;
    if (o->list_shapes) {
      std::cout << bench::shape_set_json(bench::shape_set(o->shapes, o->batch)).dump() << "\n";
      return;
    }
    if (o->output.empty()) throw InputError("-o: an output file is required");
    const bool comm = std::find(kCommOps.begin(), kCommOps.end(), o->op) != kCommOps.end();
    exit_code = comm ? run_comm(*o) : run_compute(*o);
  });
}

}  // namespace dnnperf::cli
