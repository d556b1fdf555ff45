#include "microbench/gpu/nccl_mpi_bench.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "microbench/gpu/gpu_timing.h"
#include "core/common/progress.h"
#include "records/record_writer.h"
#include "core/common/error.h"

namespace dnnperf::bench {
namespace {

bool all(bool mine, MPI_Comm comm) {
  int v = mine ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, comm);
  return v == 1;
}

}  // namespace

int run_nccl_over_mpi(const GpuBenchOptions& o, MPI_Comm node, const nlohmann::json& layout) {
  int rank = 0, p = 1, local = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(node, &local);
  int gpus = 0;
  const bool have = cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0;
  if (!all(have, MPI_COMM_WORLD)) {
    if (rank == 0) std::fprintf(stderr, "dnnperf bench %s: a rank has no CUDA device available; nothing measured\n", o.op.c_str());
    return 77;
  }
  DNNPERF_CUDA(cudaSetDevice(local % gpus));
  const std::string op = o.op.substr(5);  // nccl_allreduce -> allreduce
  ncclUniqueId id;
  if (rank == 0) DNNPERF_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  DNNPERF_NCCL(ncclCommInitRank(&comm, p, id, rank));
  cudaStream_t stream;
  DNNPERF_CUDA(cudaStreamCreate(&stream));
  int version = 0;
  ncclGetVersion(&version);
  std::unique_ptr<RecordWriter> writer;
  std::string failure;
  if (rank == 0) {
    try {
      writer = std::make_unique<RecordWriter>(o.output, o.resume, run_context({{"nccl", version}}));
    } catch (const InputError& e) {
      failure = e.what();
    }
  }
  if (!all(failure.empty(), MPI_COMM_WORLD)) throw InputError(rank == 0 ? failure : "rank 0 could not open the output file");
  std::vector<std::int64_t> sizes = o.sizes;
  if (sizes.empty())
    for (std::int64_t s = 1024; s <= (1LL << 30); s *= 4) sizes.push_back(s);
  Deadline deadline(o.time_budget_s);
  Progress progress(sizes.size(), o.progress && rank == 0);
  for (std::int64_t bytes : sizes) {
    Record r;
    r.op = op;
    r.params = {{"bytes", bytes}};
    r.dtype = "f32";
    r.algorithm = "nccl:default";
    r.layout = layout;
    r.library = "NCCL";
    r.library_version = std::to_string(version);
    r.host = hostname();
    r.date = utc_now();
    int skip = writer && writer->done(r.key()) ? 1 : 0, stop = deadline.expired() ? 1 : 0;
    MPI_Bcast(&skip, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (stop) break;
    if (skip) continue;
    const std::size_t count = static_cast<std::size_t>(bytes) / 4;
    if (count == 0 || count % static_cast<std::size_t>(p) != 0) {
      r.status = "skipped";
      r.reason = "size is not a multiple of " + std::to_string(p) + " floats";
    } else {
      const std::size_t part = count / static_cast<std::size_t>(p);
      const std::size_t in_count = op == "allgather" ? part : count, out_count = op == "reduce_scatter" ? part : count;
      DeviceBuffer in, out;
      bool allocated = true;
      try {
        in = DeviceBuffer(in_count * 4);
        out = DeviceBuffer(out_count * 4);
      } catch (const std::exception&) {
        allocated = false;
        cudaGetLastError();
      }
      if (!all(allocated, MPI_COMM_WORLD)) {
        r.status = "skipped";
        r.reason = "does not fit in the memory of every GPU";
      } else {
        std::vector<float> host(in_count, static_cast<float>(rank + 1));
        DNNPERF_CUDA(cudaMemcpy(in.get(), host.data(), in_count * 4, cudaMemcpyHostToDevice));
        const auto call = [&] {
          if (op == "allreduce") DNNPERF_NCCL(ncclAllReduce(in.get(), out.get(), count, ncclFloat, ncclSum, comm, stream));
          else if (op == "allgather") DNNPERF_NCCL(ncclAllGather(in.get(), out.get(), part, ncclFloat, comm, stream));
          else if (op == "alltoall") {
            // NCCL has no all-to-all call: a part to and from every peer, grouped.
            DNNPERF_NCCL(ncclGroupStart());
            for (int j = 0; j < p; ++j) {
              const std::size_t at = static_cast<std::size_t>(j) * part;
              DNNPERF_NCCL(ncclSend(static_cast<float*>(in.get()) + at, part, ncclFloat, j, comm, stream));
              DNNPERF_NCCL(ncclRecv(static_cast<float*>(out.get()) + at, part, ncclFloat, j, comm, stream));
            }
            DNNPERF_NCCL(ncclGroupEnd());
          } else DNNPERF_NCCL(ncclReduceScatter(in.get(), out.get(), part, ncclFloat, ncclSum, comm, stream));
          DNNPERF_CUDA(cudaStreamSynchronize(stream));
        };
        call();
        std::vector<float> result(out_count);
        DNNPERF_CUDA(cudaMemcpy(result.data(), out.get(), out_count * 4, cudaMemcpyDeviceToHost));
        const float sum = static_cast<float>(p) * static_cast<float>(p + 1) / 2;
        bool ok = true;
        for (std::size_t j = 0; j < out_count && ok; ++j)
          ok = op == "allgather" || op == "alltoall" ? result[j] == static_cast<float>(j / part + 1) : result[j] == sum;
        r.verified = all(ok, MPI_COMM_WORLD);
        if (!*r.verified) {
          r.status = "failed";
          r.reason = "wrong result";
        } else {
          std::vector<double> samples;
          for (int i = 0; i < 3; ++i) call();
          // At least 20 repetitions, then until about 0.2 s is spent (the same count on every rank:
          // the elapsed total is the reduced maximum, identical everywhere).
          double spent = 0;
          for (int i = 0; i < 20 || (i < 2000 && spent < 0.2); ++i) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            call();
            double t = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            samples.push_back(t);
            spent += t;
          }
          r.timing = summarize(samples);
          const double algbw = static_cast<double>(bytes) / r.timing->median;
          const double factor = op == "allreduce" ? 2.0 * (p - 1) / p : static_cast<double>(p - 1) / p;
          r.metrics = {{"algbw_bytes_per_s", algbw}, {"busbw_bytes_per_s", algbw * factor}};
        }
      }
    }
    if (writer) writer->write(r);
    progress.step(op + " " + std::to_string(bytes) + " B");
  }
  progress.finish();
  cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
  return 0;
}

}  // namespace dnnperf::bench
