#!/usr/bin/env bash
# Everything dnnperf measures on a GPU, in one call of a lent machine, inside a deadline: the
# PyTorch backend's calibration (the kernels `dnnperf calibrate --device cuda` times), the ground
# truth of `dnnperf validate` (scripts/gpu_validate.sh), the network's exact kernels, and the C++
# measurement programs (scripts/gpu_calibrate.sh: cuBLAS, cuDNN, NCCL, memory, launch). Steps run
# most valuable first, each bounded, so a short lease still brings back the first ones whole.
# dnnperf itself is not built there (its Debian dependencies are missing): the kernel lists come
# from scripts/device/prepare.sh, and the fit and the comparison run here afterwards.
#
#   here:   scripts/device/prepare.sh
#   there:  DNNPERF_COMMIT=$(git rev-parse HEAD) scripts/device/gpu_lease.sh    (carry .device)
#   here:   tar xzf gpu_lease.tar.gz -C data/measurements/, then `dnnperf fit` and
#           `dnnperf validate --measured` as data/measurements/h200/README.md did
#
# DEADLINE_S (default 460) bounds the whole; STEPS (default "memory ophost sample validate steps
# profile microbench exact") picks steps, MODES ("train inference") the ground truth's. Results go to
# $OUT/gpu_lease.tar.gz (a lent machine returns few files) and the log beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
deadline=${DEADLINE_S:-460}
out=${OUT:-gpu-lease}
mkdir -p "$out"
exec > >(tee "$out/gpu_lease.log") 2>&1
start=$(date +%s)
left() { echo $(( deadline - ($(date +%s) - start) )); }
# share P: P percent of the deadline, but never more than is left beyond R percent kept for later steps
share() { local b=$(( deadline * $1 / 100 )) rest=$(( $(left) - deadline * $2 / 100 )); [ "$rest" -lt "$b" ] && b=$rest; echo "$b"; }
steps=" ${STEPS:-memory ophost sample validate steps profile microbench exact} "
want() { [[ "$steps" == *" $1 "* ]]; }
step() { pack; echo; echo "== $1 ($(( $(date +%s) - start )) s, $(left) s left)"; }
# The archive is rewritten before every step: a call stopped at its limit still brings back
# everything measured up to the step it was in.
pack() {
  [ -n "${dir:-}" ] && [ -d "$dir" ] || return 0
  cp "$out/gpu_lease.log" "$dir/" 2>/dev/null
  tar czf "$out/gpu_lease.tar.gz.part" -C /tmp/gpu-lease "$name" && mv "$out/gpu_lease.tar.gz.part" "$out/gpu_lease.tar.gz"
}

[ -d .device/kernels ] || { echo "missing .device/kernels: run scripts/device/prepare.sh here first"; exit 2; }
python=python3
python3 -c "import torch, torchvision" 2>/dev/null || python=/usr/bin/python3
$python -c "import torch; assert torch.cuda.is_available()" 2>/dev/null || { echo "no GPU usable by PyTorch: nothing to measure"; exit 77; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
name="gpu-$(echo "$gpu" | tr 'A-Z' 'a-z' | sed 's/nvidia //; s/[^a-z0-9]\+/-/g; s/-$//')-$(date -u +%Y-%m-%d)"
dir=/tmp/gpu-lease/$name
mkdir -p "$dir"
echo "GPU: $gpu -> $name"

step "provenance"
DIR="$dir" $python - <<'PY'
import json, os, subprocess, datetime, platform, torch
def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as e:
        return f"unavailable: {e}"
prov = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": os.environ.get("DNNPERF_COMMIT", "unknown"),
        "command": "scripts/device/gpu_lease.sh",
        "nvidia_smi": run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit", "--format=csv"]),
        "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
        "gpu": torch.cuda.get_device_name(0), "multiprocessors": torch.cuda.get_device_properties(0).multi_processor_count,
        "host_cpus": os.cpu_count(), "python": platform.python_version()}
json.dump(prov, open(os.path.join(os.environ["DIR"], "provenance.json"), "w"), indent=2)
print(json.dumps(prov, indent=2))
PY

if want memory; then
  step "PyTorch backend: memory-bound passes"
  # calibrate's sizes, and two far beyond the L2 (60 MB on an H200)
  budget=$(share 7 85)
  timeout $((budget + 15)) $python scripts/torch_bench.py --device cuda --memory-sizes 4096,16384,65536,262144,1048576,4194304,16777216,67108864,268435456,1073741824 \
    --time-budget "$budget" -o "$dir/torch_cuda_memory.jsonl" || echo "FAILED: memory passes"
fi

if want ophost; then
  step "PyTorch backend: the host's time per framework op (forward, backward)"
  timeout 60 $python scripts/torch_bench.py --device cuda --op-host all -o "$dir/torch_cuda_op_host.jsonl" || echo "FAILED: host time per op"
fi

if want sample; then
  step "PyTorch backend: generic GEMMs and convolutions (calibrate's sample)"
  budget=$(share 26 60)
  [ "$budget" -gt 10 ] && timeout $((budget + 20)) $python scripts/torch_bench.py --device cuda --kernels .device/kernels/sample.json --cold --max-flops 2e11 \
    --time-budget "$budget" -o "$dir/torch_cuda_kernels.jsonl" || echo "FAILED: generic kernels"
fi

if want validate; then
  step "ground truth: training and inference iterations"
  budget=$(share 37 25)
  [ "$budget" -gt 10 ] && BUDGET_S=$budget BATCHES=${BATCHES:-32} timeout $((budget + 60)) scripts/gpu_validate.sh "$dir/validation" || echo "FAILED: ground truth"
fi

if want steps; then
  step "whole training steps of the composition networks (fit --steps: the step's own error)"
  # Two runs each at the validation's batch, named as validate --save-measured names them, so that
  # here `dnnperf fit ... --steps <this>/steps --step-networks .device-onnx` reads them.
  b=${BATCHES:-32}; b=${b%%,*}
  mkdir -p "$dir/steps"
  for f in .device/networks/*.pt; do
    [ "$(left)" -gt 40 ] || { echo "no time left for $(basename "$f")"; break; }
    stem="$dir/steps/$(basename "${f%.pt}").onnx_b${b}_p1_train"
    for r in 0 1; do
      timeout 60 $python scripts/torch_train.py --network "$f" --batch "$b" --iterations 5 --device cuda -o "${stem}_run$r.json" > /dev/null \
        || { echo "FAILED: steps of $(basename "$f")"; break; }
    done
  done
fi

if want profile; then
  step "torch.profiler over training steps (where the transformer's and MobileNetV2's time goes)"
  for net in transformer_encoder mobilenet_v2; do
    [ "$(left)" -gt 60 ] || break
    timeout 60 $python scripts/torch_profile_step.py --network "$net" --batch "$(b=${BATCHES:-32}; echo "${b%%,*}")" --seq 128 --input 224,224 --device cuda \
      -o "$dir/profile/$net" > /dev/null || echo "FAILED: profile of $net"
  done
fi

if want microbench; then
  step "C++ measurement programs (cuBLAS, cuDNN, NCCL)"
  budget=$(share 30 10)
  if [ "$budget" -gt 40 ]; then
    scale=$(python3 -c "print(round(min(1.0, ($budget - 25) / 405), 3))")  # 405 s: its measurements at scale 1
    TIME_SCALE=$scale timeout "$budget" scripts/gpu_calibrate.sh "$dir/microbench" || echo "FAILED: C++ measurement programs"
  fi
fi

if want exact; then
  step "PyTorch backend: the validation networks' exact kernels"
  budget=$(( $(left) - 10 ))
  if [ "$budget" -gt 10 ]; then
    timeout $((budget + 5)) $python scripts/torch_bench.py --device cuda --kernels .device/kernels/exact.json --cold --max-flops 2e11 \
      --time-budget "$budget" -o "$dir/torch_cuda_exact.jsonl" || echo "FAILED: exact kernels"
  fi
fi

step "packing"
pack && ls -la "$out" && tar tzf "$out/gpu_lease.tar.gz" | head -80
echo "done in $(( $(date +%s) - start )) s"
