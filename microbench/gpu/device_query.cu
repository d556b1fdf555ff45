// dnnperf-gpu-query: what a hardware profile needs to know about the GPUs of this machine and the
// libraries the measurement programs use, as one JSON object on stdout.
//
// Exit status: 0 with devices listed; 77 (the "skipped" code CTest understands) when there is no
// usable CUDA device, with the reason on stderr; 1 when a library call fails.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "microbench/common/cuda_check.h"

namespace {

int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  DNNPERF_CUDA(cudaDeviceGetAttribute(&value, what, device));
  return value;
}

nlohmann::json libraries() {
  int runtime = 0, driver = 0, cublas_major = 0, cublas_minor = 0, cublas_patch = 0, nccl = 0;
  DNNPERF_CUDA(cudaRuntimeGetVersion(&runtime));
  DNNPERF_CUDA(cudaDriverGetVersion(&driver));
  DNNPERF_CUBLAS(cublasGetProperty(MAJOR_VERSION, &cublas_major));
  DNNPERF_CUBLAS(cublasGetProperty(MINOR_VERSION, &cublas_minor));
  DNNPERF_CUBLAS(cublasGetProperty(PATCH_LEVEL, &cublas_patch));
  DNNPERF_NCCL(ncclGetVersion(&nccl));
  return {{"cuda_runtime", runtime},
          {"cuda_driver", driver},
          {"cublas", std::to_string(cublas_major) + "." + std::to_string(cublas_minor) + "." + std::to_string(cublas_patch)},
          {"cudnn", cudnnGetVersion()},
          {"nccl", nccl}};
}

nlohmann::json device(int d) {
  cudaDeviceProp p{};
  DNNPERF_CUDA(cudaGetDeviceProperties(&p, d));
  const double memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, d);
  const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, d);
  // Double data rate: two transfers per memory clock.
  const double bandwidth = 2.0 * memory_clock_khz * 1e3 * bus_bits / 8.0;
  return {{"index", d},
          {"name", p.name},
          {"compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor)},
          {"multiprocessors", p.multiProcessorCount},
          {"memory_bytes", p.totalGlobalMem},
          {"memory_bus_bits", bus_bits},
          {"memory_clock_khz", memory_clock_khz},
          {"theoretical_memory_bandwidth_bytes_per_s", bandwidth},
          {"sm_clock_khz", attribute(cudaDevAttrClockRate, d)},
          {"l2_cache_bytes", p.l2CacheSize},
          {"shared_memory_per_sm_bytes", p.sharedMemPerMultiprocessor},
          {"max_threads_per_sm", p.maxThreadsPerMultiProcessor}};
}

}  // namespace

int main() {
  int count = 0;
  // Without a driver or a device, cudaGetDeviceCount fails ("CUDA driver version is insufficient"
  // on machines with the toolkit but no GPU): that is "nothing to measure", not an error.
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::fprintf(stderr, "dnnperf-gpu-query: no CUDA device available (%s); skipping\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "0 devices");
    return 77;
  }
  try {
    nlohmann::json out;
    out["libraries"] = libraries();
    for (int d = 0; d < count; ++d) out["devices"].push_back(device(d));
    std::cout << out.dump(2) << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dnnperf-gpu-query: %s\n", e.what());
    return 1;
  }
  return 0;
}
