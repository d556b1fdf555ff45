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
# DEADLINE_S (default 460) bounds the whole; STEPS (default "memory ophost sample dtypes validate
# steps profile microbench exact") picks steps, MODES ("train inference") the ground truth's. Results
# go to $OUT/gpu_lease.tar.gz (a lent machine returns few files) and the log beside it.
#
# Dry run, here, without a GPU: DRY_RUN=data/measurements/h200 scripts/device/gpu_lease.sh runs every
# step's bookkeeping (budgets, names, the archive) but copies each step's files from that recorded
# lease instead of measuring them (steps it has nothing for say so), so that
# scripts/device/after_lease.sh can be run on the archive exactly as after a real lease.
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
steps=" ${STEPS:-memory ophost sample dtypes validate steps profile microbench exact} "
want() { [[ "$steps" == *" $1 "* ]]; }
step() { pack; echo; echo "== $1 ($(( $(date +%s) - start )) s, $(left) s left)"; }
# The archive is rewritten before every step: a call stopped at its limit still brings back
# everything measured up to the step it was in.
pack() {
  [ -n "${dir:-}" ] && [ -d "$dir" ] || return 0
  cp "$out/gpu_lease.log" "$dir/" 2>/dev/null
  tar czf "$out/gpu_lease.tar.gz.part" -C /tmp/gpu-lease "$name" && mv "$out/gpu_lease.tar.gz.part" "$out/gpu_lease.tar.gz"
}

replay=${DRY_RUN:-}
# replayed RECORDED DEST: in a dry run, copies the recorded lease's file or folder RECORDED to DEST
# and succeeds (the step is done); outside one, fails, and the step measures.
replayed() {
  [ -n "$replay" ] || return 1
  if [ -e "$replay/$1" ]; then
    mkdir -p "$(dirname "$2")" && cp -r "$replay/$1" "$2" && echo "dry run: $1 -> ${2#"$dir"/}"
  else
    echo "dry run: $replay has nothing recorded at $1; step skipped"
  fi
  return 0
}
if [ -n "$replay" ]; then
  [ -d "$replay" ] || { echo "DRY_RUN=$replay: no such recorded lease folder"; exit 2; }
  gpu="dry run of $replay"
  name="gpu-dry-run-$(date -u +%Y-%m-%d)"
else
  [ -d .device/kernels ] || { echo "missing .device/kernels: run scripts/device/prepare.sh here first"; exit 2; }
  python=python3
  python3 -c "import torch, torchvision" 2>/dev/null || python=/usr/bin/python3
  $python -c "import torch; assert torch.cuda.is_available()" 2>/dev/null || { echo "no GPU usable by PyTorch: nothing to measure"; exit 77; }
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  name="gpu-$(echo "$gpu" | tr 'A-Z' 'a-z' | sed 's/nvidia //; s/[^a-z0-9]\+/-/g; s/-$//')-$(date -u +%Y-%m-%d)"
fi
dir=/tmp/gpu-lease/$name
rm -rf "$dir"
mkdir -p "$dir"
echo "GPU: $gpu -> $name"

step "provenance"
if [ -n "$replay" ]; then
  printf '{"dry_run": "%s", "date": "%s", "git_commit": "%s", "command": "DRY_RUN=%s scripts/device/gpu_lease.sh"}\n' \
    "$replay" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${DNNPERF_COMMIT:-unknown}" "$replay" > "$dir/provenance.json"
else
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
fi

if want memory; then
  step "PyTorch backend: memory-bound passes"
  # calibrate's sizes, and two far beyond the L2 (60 MB on an H200)
  budget=$(share 7 85)
  replayed lease2/torch_cuda_memory.jsonl "$dir/torch_cuda_memory.jsonl" || timeout $((budget + 15)) $python scripts/torch_bench.py --device cuda --memory-sizes 4096,16384,65536,262144,1048576,4194304,16777216,67108864,268435456,1073741824 \
    --time-budget "$budget" -o "$dir/torch_cuda_memory.jsonl" || echo "FAILED: memory passes"
fi

if want ophost; then
  step "PyTorch backend: the host's time per framework op (forward, backward)"
  replayed lease2/torch_cuda_op_host.jsonl "$dir/torch_cuda_op_host.jsonl" || timeout 60 $python scripts/torch_bench.py --device cuda --op-host all -o "$dir/torch_cuda_op_host.jsonl" || echo "FAILED: host time per op"
fi

if want sample; then
  step "PyTorch backend: generic GEMMs and convolutions (calibrate's sample)"
  budget=$(share 22 60)
  replayed lease2/torch_cuda_kernels.jsonl "$dir/torch_cuda_kernels.jsonl" ||
  { [ "$budget" -gt 10 ] && timeout $((budget + 20)) $python scripts/torch_bench.py --device cuda --kernels .device/kernels/sample.json --cold --kernel-names --max-flops 2e11 \
    --time-budget "$budget" -o "$dir/torch_cuda_kernels.jsonl" || echo "FAILED: generic kernels"; }
fi

if want dtypes; then
  # PyTorch's own 16-bit and TF32 GEMMs and convolutions, which its f32 calibration never timed
  # (docs/models/gpu.md: each source leaves maths the other never fitted), the same sample's
  # kernels in each, interleaved by the sample's seeded order, half the budget each.
  # f8e4m3: the sample's plain GEMMs as an FP8 recipe runs them (torch._scaled_mm), which no
  # record has timed yet (math.fp8 starts as the 16-bit math: docs/models/gpu.md).
  step "PyTorch backend: the sample's GEMMs and convolutions in bf16 and TF32, its GEMMs in FP8"
  budget=$(share 10 50)
  for dtype in bf16 tf32 f8e4m3; do
    replayed "lease2/torch_cuda_kernels_$dtype.jsonl" "$dir/torch_cuda_kernels_$dtype.jsonl" ||
    { [ "$budget" -gt 30 ] && timeout $((budget / 3 + 15)) $python scripts/torch_bench.py --device cuda --dtype "$dtype" --kernels .device/kernels/sample.json --kernel-names \
      --cold --max-flops 2e11 --time-budget $((budget / 3)) -o "$dir/torch_cuda_kernels_$dtype.jsonl" || echo "FAILED: $dtype kernels"; }
  done
fi

if want validate; then
  step "ground truth: training and inference iterations"
  budget=$(share 37 25)
  # Two thirds for PyTorch's defaults, a third for bf16 mixed precision: no 16-bit step has been
  # timed on a GPU here, and published BERT runs say its 16-bit steps are priced fast (docs/models/gpu.md).
  replayed validation/ground_truth "$dir/validation/measured" ||
  { [ "$budget" -gt 10 ] && BUDGET_S=$((budget * 2 / 3)) BATCHES=${BATCHES:-32} timeout $((budget * 2 / 3 + 60)) scripts/gpu_validate.sh "$dir/validation" || echo "FAILED: ground truth"
    [ "$budget" -gt 30 ] && DTYPES=bf16 MODES=train NETWORKS=${BF16_NETWORKS:-resnet50,bert-base,transformer_encoder} BUDGET_S=$((budget / 3)) BATCHES=${BATCHES:-32} \
      timeout $((budget / 3 + 60)) scripts/gpu_validate.sh "$dir/validation" || echo "FAILED: bf16 ground truth"; }
fi

if want steps && [ -n "$replay" ]; then
  step "whole training steps of the composition networks"
  replayed steps "$dir/steps"
elif want steps; then
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
  replayed profile "$dir/profile" ||
  for net in transformer_encoder mobilenet_v2; do
    [ "$(left)" -gt 60 ] || break
    timeout 60 $python scripts/torch_profile_step.py --network "$net" --batch "$(b=${BATCHES:-32}; echo "${b%%,*}")" --seq 128 --input 224,224 --device cuda \
      -o "$dir/profile/$net" > /dev/null || echo "FAILED: profile of $net"
  done
fi

if want microbench; then
  step "C++ measurement programs (cuBLAS, cuDNN, NCCL)"
  budget=$(share 30 10)
  if replayed microbench "$dir/microbench"; then :
  elif [ "$budget" -gt 40 ]; then
    scale=$(python3 -c "print(round(min(1.0, ($budget - 25) / 405), 3))")  # 405 s: its measurements at scale 1
    TIME_SCALE=$scale timeout "$budget" scripts/gpu_calibrate.sh "$dir/microbench" || echo "FAILED: C++ measurement programs"
  fi
fi

if want exact; then
  step "PyTorch backend: the validation networks' exact kernels"
  budget=$(( $(left) - 10 ))
  if replayed lease2/torch_cuda_exact.jsonl "$dir/torch_cuda_exact.jsonl"; then :
  elif [ "$budget" -gt 10 ]; then
    timeout $((budget + 5)) $python scripts/torch_bench.py --device cuda --kernels .device/kernels/exact.json --cold --kernel-names --max-flops 2e11 \
      --time-budget "$budget" -o "$dir/torch_cuda_exact.jsonl" || echo "FAILED: exact kernels"
  fi
fi

step "packing"
pack && ls -la "$out" && tar tzf "$out/gpu_lease.tar.gz" | head -80
echo "done in $(( $(date +%s) - start )) s"
