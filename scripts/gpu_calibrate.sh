#!/usr/bin/env bash
# Measures one GPU for dnnperf in under 8 minutes: builds the measurement programs from source
# (CUDA's cuBLAS, cuDNN and NCCL, from the system or from PyTorch's nvidia-* wheels; nlohmann/json
# from .device/include, gathered by scripts/device/prepare.sh), then measures launch overhead,
# memory-bound kernels, GEMMs and convolutions, and checks the results against the datasheet.
#
#   scripts/gpu_calibrate.sh [OUT_DIR]      (default: $OUT, else ./gpu-calibration)
#
# TIME_SCALE=F scales every measurement's time budget (default 1: about 7 minutes of measuring);
# scripts/device/gpu_lease.sh runs it with less beside the PyTorch measurements.
#
# OUT_DIR receives device.json, provenance.json, launch/memory/gemm/conv *.jsonl measurement files
# (docs/measurement-format.md), sanity.txt and the log. Commit them under data/measurements/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-gpu-calibration}}
mkdir -p "$out"
exec > >(tee "$out/gpu_calibrate.log") 2>&1
start=$(date +%s)
echo "start $(date -u +%Y-%m-%dT%H:%M:%SZ)"

# cuDNN and NCCL: the system's, else the ones inside PyTorch's nvidia-* wheels (their root holds
# include/ and lib/, whatever the wheel's folder is called).
site=$(python3 -c "import os, site; print(' '.join(d for d in site.getsitepackages() if os.path.isdir(d)))" 2>/dev/null || true)
for pkg in cudnn nccl; do
  [ -f "/usr/include/$pkg.h" ] && continue
  header=$( (find $site -path '*nvidia*' -name "$pkg.h" 2>/dev/null || true) | head -1)
  if [ -n "$header" ]; then export "${pkg^^}_ROOT=$(dirname "$(dirname "$header")")"; echo "$pkg: $(dirname "$(dirname "$header")")"; fi
done
export LD_LIBRARY_PATH="${CUDNN_ROOT:+$CUDNN_ROOT/lib:}${NCCL_ROOT:+$NCCL_ROOT/lib:}${LD_LIBRARY_PATH:-}"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.' || true)
json_include=.device/include
[ -f /usr/include/nlohmann/json.hpp ] && json_include=/usr/include
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDNNPERF_MICROBENCH_ONLY=ON -DDNNPERF_WITH_MPI=OFF \
  -DDNNPERF_JSON_INCLUDE="$PWD/$json_include" -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}"
cmake --build build-gpu -j"$(nproc)" --target dnnperf-gpu-bench dnnperf-gpu-query
bin=build-gpu/bin
echo "built in $(( $(date +%s) - start )) s"

$bin/dnnperf-gpu-query > "$out/device.json" || { rc=$?; echo "no usable GPU here (dnnperf-gpu-query exited $rc)"; exit "$rc"; }
python3 - "$out" <<'PY'
import json, os, subprocess, sys, datetime
out = sys.argv[1]
def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as e:
        return f"unavailable: {e}"
prov = {"date": datetime.datetime.utcnow().isoformat() + "Z",
        "nvidia_smi": run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem", "--format=csv"]),
        "git_commit": os.environ.get("DNNPERF_COMMIT") or run(["git", "rev-parse", "HEAD"]),
        "device": json.load(open(f"{out}/device.json"))}
json.dump(prov, open(f"{out}/provenance.json", "w"), indent=2)
PY

q=--quiet
bench() { $bin/dnnperf-gpu-bench "$@" $q || echo "FAILED: dnnperf-gpu-bench $* (exit $?)"; }
scale=${TIME_SCALE:-1}
t() { python3 -c "import sys; print(max(5, round($1 * float(sys.argv[1]))))" "$scale"; }
bench launch -o "$out/launch.jsonl"
bench memory --sizes 1048576,16777216,268435456,1073741824 -o "$out/memory.jsonl" --time-budget "$(t 45)"
bench gemm --shapes square:1024,4096,8192 -o "$out/gemm_square.jsonl" --time-budget "$(t 45)"
bench gemm --shapes deepbench -o "$out/gemm_deepbench.jsonl" --time-budget "$(t 90)"
bench gemm --shapes sample:200:1 -o "$out/gemm_sample.jsonl" --time-budget "$(t 60)"
bench conv --shapes deepbench --dtypes f32,bf16 -o "$out/conv_deepbench.jsonl" --time-budget "$(t 100)"
bench conv --shapes sample:100:1 --dtypes f32,bf16 -o "$out/conv_sample.jsonl" --time-budget "$(t 50)"
bench nccl_allreduce -o "$out/nccl_allreduce.jsonl" --time-budget "$(t 15)"

# Sanity against the datasheet of data/hardware/: bf16 GEMM at 8192^3 >= 70% of dense tensor peak,
# device-to-device copy >= 80% of memory bandwidth.
python3 - "$out" <<'PY' | tee "$out/sanity.txt"
import glob, json, sys
out = sys.argv[1]
device = json.load(open(f"{out}/device.json"))["devices"][0]["name"]
profiles = {"H200": "h200-sxm-141gb", "H100": "h100-sxm5-80gb", "A100-SXM4-80GB": "a100-sxm4-80gb", "A100-SXM4-40GB": "a100-sxm4-40gb", "V100": "v100-sxm2-32gb"}
name = next((p for k, p in profiles.items() if k in device), None)
if not name:
    print(f"{device}: no shipped profile to compare with"); sys.exit(0)
hw = json.load(open(f"data/hardware/{name}.json"))["device"]
def records(path):
    return [j for j in map(json.loads, open(path)) if j["type"] == "record" and j["status"] == "ok"]
gemm = [r for r in records(f"{out}/gemm_square.jsonl") if r["params"]["m"] == 8192 and r["dtype"] == "bf16"]
copy = [r for r in records(f"{out}/memory.jsonl") if r["op"] == "memory_copy"]
print(f"device {device}, profile {name}")
if gemm:
    rate = gemm[0]["metrics"]["flop_rate"]; peak = hw["peak_flops"]["bf16_tensor"]
    print(f"bf16 GEMM 8192^3: {rate/1e12:.1f} TFLOP/s = {100*rate/peak:.1f}% of {peak/1e12:.1f} (target >= 70%)")
if copy:
    best = max(r["metrics"]["bytes_per_s"] for r in copy); bw = hw["memory_bandwidth"]
    print(f"device-to-device copy: {best/1e12:.2f} TB/s = {100*best/bw:.1f}% of {bw/1e12:.2f} (target >= 80%)")
PY
echo "done in $(( $(date +%s) - start )) s, files in $out"
