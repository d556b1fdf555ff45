#include "microbench/gpu/gpu_timing.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <utility>

#ifdef DNNPERF_GOOGLE_BENCHMARK
#include <benchmark/benchmark.h>
#endif

namespace dnnperf::bench {
namespace {

__device__ float hash_value(unsigned long long i, unsigned seed) {
  unsigned long long x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  const float u = static_cast<float>(x >> 40) * (1.0f / 16777216.0f);  // [0, 1)
  const float v = 2.0f * u - 1.0f;
  return v == 0.0f ? 0.5f : v;
}

__global__ void fill_kernel(void* data, unsigned long long n, int width, bool bf16, unsigned seed) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * blockDim.x * gridDim.x) {
    const float v = hash_value(i, seed);
    if (width == 4) static_cast<float*>(data)[i] = v;
    else if (bf16) static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16(v);
    else static_cast<__half*>(data)[i] = __float2half(v);
  }
}

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Keeps the GPU busy for `ns` nanoseconds (one thread: it takes no SM time worth counting).
__global__ void hold_kernel(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) {
  }
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  DNNPERF_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes) DNNPERF_CUDA(cudaMalloc(&ptr_, bytes));
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}

void fill_random(void* data, std::size_t elements, int width, bool bf16, unsigned seed, cudaStream_t stream) {
  if (!elements) return;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((elements + 255) / 256, 65535));
  fill_kernel<<<blocks, 256, 0, stream>>>(data, elements, width, bf16, seed);
  DNNPERF_CUDA(cudaGetLastError());
}

int rotation_copies(std::size_t bytes, std::size_t l2, std::size_t budget) {
  if (bytes == 0) return 1;
  const std::size_t wanted = (2 * l2 + bytes - 1) / bytes;
  const std::size_t affordable = std::max<std::size_t>(1, budget / bytes);
  return static_cast<int>(std::max<std::size_t>(1, std::min({wanted, affordable, std::size_t{64}})));
}

TimedCalls time_calls(const std::function<void(int)>& call, int copies, cudaStream_t stream, const TimingPlan& plan) {
  cudaEvent_t start, stop;
  DNNPERF_CUDA(cudaEventCreate(&start));
  DNNPERF_CUDA(cudaEventCreate(&stop));
  TimedCalls out;
  std::vector<double> host;
  double hold_s = 50e-6;  // grows with the longest queueing seen: three times it, plus 20 us
  int copy = 0;
  const auto once = [&] {
    for (int attempt = 0;; ++attempt) {
      if (plan.behind_hold) {
        hold_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(hold_s * 1e9));
        DNNPERF_CUDA(cudaGetLastError());
      }
      DNNPERF_CUDA(cudaEventRecord(start, stream));
      const auto queued = std::chrono::steady_clock::now();
      call(copy);
      const double queue_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - queued).count();
      DNNPERF_CUDA(cudaEventRecord(stop, stream));
      DNNPERF_CUDA(cudaEventSynchronize(stop));
      DNNPERF_CUDA(cudaGetLastError());
      const bool overrun = plan.behind_hold && queue_s > 0.8 * hold_s;
      hold_s = std::min(std::max(hold_s, 3 * queue_s + 20e-6), 0.05);
      if (overrun && attempt < 3) {
        ++out.hold_overruns;
        continue;  // the GPU may have idled inside the events: again, held longer
      }
      host.push_back(queue_s);
      copy = (copy + 1) % copies;
      return elapsed(start, stop) * 1e-3;
    }
  };
  double warm = 0;
  for (int i = 0; i < plan.warmup; ++i) warm = once();
  host.clear();
  out.hold_overruns = 0;
  const int reps = std::clamp(static_cast<int>(plan.target_seconds / std::max(warm + (plan.behind_hold ? hold_s : 0.0), 1e-7)),
                              plan.min_repetitions, plan.max_repetitions);
  std::vector<double>& samples = out.seconds;
  samples.reserve(static_cast<std::size_t>(reps));
#ifdef DNNPERF_GOOGLE_BENCHMARK
  // Google Benchmark drives the repetitions; the time it records is the CUDA events' (manual time).
  benchmark::RegisterBenchmark("gpu_call", [&](benchmark::State& state) {
    for (auto _ : state) {
      const double t = once();
      state.SetIterationTime(t);
      samples.push_back(t);
    }
  })->UseManualTime()->Iterations(reps);
  struct Quiet : benchmark::BenchmarkReporter {
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>&) override {}
  } quiet;
  benchmark::RunSpecifiedBenchmarks(&quiet);
  benchmark::ClearRegisteredBenchmarks();
#else
  for (int i = 0; i < reps; ++i) samples.push_back(once());
#endif
  out.dispatch_s = median_of(host);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return out;
}

}  // namespace dnnperf::bench
