#pragma once
// Timing GPU work as GPU practice demands: CUDA events around each call on one stream, warm-up
// first, enough repetitions for a stable median, operands rotated through copies so each call
// reads from DRAM rather than from the L2 cache of the previous one.
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "microbench/common/cuda_check.h"

namespace dnnperf::bench {

/// Device memory, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Fills `bytes` of device memory with pseudo-random values in [-1, 1) of the given element width
/// (4: float, 2: half or bfloat16 as `bf16`), never zeros: zeros take fast paths in some units.
void fill_random(void* data, std::size_t elements, int element_bytes, bool bf16, unsigned seed, cudaStream_t stream);

/// How many copies of a working set of `bytes` rotate through at least twice the L2 cache,
/// within `memory_budget` bytes (at least 1).
int rotation_copies(std::size_t bytes, std::size_t l2_bytes, std::size_t memory_budget);

struct TimingPlan {
  int warmup = 3;
  int min_repetitions = 10;
  int max_repetitions = 200;
  double target_seconds = 0.1;
};

/// Seconds of each timed call of `call(copy)`, copy cycling over [0, copies).
std::vector<double> time_calls(const std::function<void(int copy)>& call, int copies, cudaStream_t stream, const TimingPlan& plan);

}  // namespace dnnperf::bench
