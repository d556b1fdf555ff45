#pragma once
// Check macros for CUDA runtime, cuBLAS, cuDNN and NCCL calls: a failed call throws with the host,
// file:line, the call and the library's own error string. Measurement programs never time a region
// whose calls were not all checked.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace dnnperf::microbench {

inline std::string failure(const char* library, const char* call, const char* file, int line, const std::string& what) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  return std::string(host) + " " + file + ":" + std::to_string(line) + ": " + library + " call " + call + " failed: " + what;
}

}  // namespace dnnperf::microbench

#define DNNPERF_CUDA(call)                                                                               \
  do {                                                                                                   \
    const cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess)                                                                               \
      throw std::runtime_error(::dnnperf::microbench::failure("CUDA", #call, __FILE__, __LINE__, cudaGetErrorString(e_))); \
  } while (0)

#define DNNPERF_CUBLAS(call)                                                                             \
  do {                                                                                                   \
    const cublasStatus_t s_ = (call);                                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                                                     \
      throw std::runtime_error(::dnnperf::microbench::failure("cuBLAS", #call, __FILE__, __LINE__, cublasGetStatusString(s_))); \
  } while (0)

#define DNNPERF_CUDNN(call)                                                                              \
  do {                                                                                                   \
    const cudnnStatus_t s_ = (call);                                                                     \
    if (s_ != CUDNN_STATUS_SUCCESS)                                                                      \
      throw std::runtime_error(::dnnperf::microbench::failure("cuDNN", #call, __FILE__, __LINE__, cudnnGetErrorString(s_))); \
  } while (0)

#define DNNPERF_NCCL(call)                                                                               \
  do {                                                                                                   \
    const ncclResult_t r_ = (call);                                                                      \
    if (r_ != ncclSuccess)                                                                               \
      throw std::runtime_error(::dnnperf::microbench::failure("NCCL", #call, __FILE__, __LINE__, ncclGetErrorString(r_))); \
  } while (0)
