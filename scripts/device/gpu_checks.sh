#!/usr/bin/env bash
# Runs on the lent GPU machine (CUDA, CMake and PyTorch, none of our Debian packages): builds the
# measurement programs from source against CUDA's libraries, with cuDNN and NCCL from the system
# or from PyTorch's nvidia-* wheels, runs them, and writes results under $OUT (or ./device-out).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-device-out}
mkdir -p "$out"
exec > >(tee "$out/gpu_checks.log") 2>&1
date -u +"start %Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv || true

for pkg in cudnn nccl; do
  dir=$(python3 -c "import nvidia.$pkg, os; print(os.path.dirname(nvidia.$pkg.__file__))" 2>/dev/null || true)
  [ -z "$dir" ] && dir=$(python3 -c "import nvidia.$pkg, os; print(list(nvidia.$pkg.__path__)[0])" 2>/dev/null || true)
  if [ -n "$dir" ]; then export "${pkg^^}_ROOT=$dir"; fi
done
echo "cudnn root: ${CUDNN_ROOT:-system}  nccl root: ${NCCL_ROOT:-system}"

cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DDNNPERF_MICROBENCH_ONLY=ON \
  -DDNNPERF_JSON_INCLUDE="$PWD/.device/include" -DCMAKE_CUDA_ARCHITECTURES=90
cmake --build build-device -j"$(nproc)"
export LD_LIBRARY_PATH="${CUDNN_ROOT:+$CUDNN_ROOT/lib:}${NCCL_ROOT:+$NCCL_ROOT/lib:}${LD_LIBRARY_PATH:-}"
build-device/bin/dnnperf-gpu-query > "$out/gpu_query.json"
cat "$out/gpu_query.json"
date -u +"end %Y-%m-%dT%H:%M:%SZ"
