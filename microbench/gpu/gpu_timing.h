#pragma once
// Timing GPU work as GPU practice demands: CUDA events around each call on one stream, warm-up
// first, enough repetitions for a stable median, operands rotated through copies so each call
// reads from DRAM rather than from the L2 cache of the previous one.
//
// Events recorded around a call on an idle GPU time the host's work inside the call as well:
// the start event fires at once, then the GPU waits while the library prepares and queues its
// kernels. cuDNN 9's legacy calls spend 25-75 us there (H200 records of 2026-11-30: no
// convolution under 29 us, where PyTorch's GPU-only times start at 4 us). So each call is queued
// behind a kernel that holds the GPU for longer than the host takes to queue it, as
// scripts/torch_bench.py does: the events then time the GPU's work alone, and the host's time to
// queue the call is measured on its own (TimedCalls::dispatch_s).
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
  /// Queue each call behind a hold kernel (above). Off only where the host's part is what is
  /// measured: the launch records, whose bracket says what an unheld time holds.
  bool behind_hold = true;
};

struct TimedCalls {
  std::vector<double> seconds;  // each timed call's, by the events
  /// Median host seconds to queue one call (wall clock around it, the GPU held busy).
  double dispatch_s = 0;
  /// Calls whose queueing outlasted their hold, so that the GPU idled inside the events; each is
  /// timed again with a longer hold, and the count is reported.
  int hold_overruns = 0;
};

/// Times each call of `call(copy)`, copy cycling over [0, copies).
TimedCalls time_calls(const std::function<void(int copy)>& call, int copies, cudaStream_t stream, const TimingPlan& plan);

}  // namespace dnnperf::bench
