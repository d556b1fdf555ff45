// How long the GPU kernel family takes to price one kernel (issue 50: under 1 us), for a GEMM,
// each convolution direction and a memory pass, directly and through the profile's model (which
// also consults its regressions), on the shipped H200 profile.
//
//   build/bin/kernel_pricing --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "core/lowering/lower.h"
#include "models/compute/gpu/gpu_compute_model.h"
#include "models/compute/profile_model.h"
#include "profile/hardware_profile.h"

namespace {

using namespace dnnperf;

const HardwareProfile& h200() {
  static const HardwareProfile hw = load_hardware_profile(DNNPERF_SOURCE_DIR "/data/hardware/calibrated/h200-torch-2026-11-30.json");
  return hw;
}

// ResNet-50's layer3 3x3 convolution at batch 32.
constexpr ConvShape kConv{32, 256, 14, 14, 256, 3, 3, 14, 14, 1, 1, 1, 1, 1, 1, 1};

Kernel kernel(int which) {
  switch (which) {
    case 0: return gemm_kernel(Phase::forward, {2048, 4096, 1024, 1, false, true}, DType::bf16);
    case 1: return conv_kernel(Phase::forward, kConv, DType::f32);
    case 2: return conv_kernel(Phase::backward_data, kConv, DType::f32);
    case 3: return conv_kernel(Phase::backward_weight, kConv, DType::f32);
    default: {
      Kernel copy;
      copy.cls = KernelClass::copy;
      copy.bytes_read = copy.bytes_written = 64.0 * 1024 * 1024;
      copy.elements = 16 * 1024 * 1024;
      return copy;
    }
  }
}

void gpu_family(benchmark::State& state) {
  const GpuComputeModel model(h200().device);
  const Kernel k = kernel(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(model.seconds(k, ExecutionOptions{}));
}

void profile_model(benchmark::State& state) {
  const ProfileComputeModel model(h200());
  const Kernel k = kernel(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(model.seconds(k, ExecutionOptions{}));
}

}  // namespace

// 0 GEMM bf16, 1 conv forward, 2 conv backward data, 3 conv backward filter, 4 copy.
BENCHMARK(gpu_family)->DenseRange(0, 4)->Unit(benchmark::kNanosecond);
BENCHMARK(profile_model)->DenseRange(0, 4)->Unit(benchmark::kNanosecond);
