#!/bin/bash
# refit_and_judge.sh: this folder's calibration (the Intel VM, 13:47) refitted with its structural
# GEMM and convolution fits unweighted (--time-weight 0, as calibrated) and weighted by time
# (--time-weight 0.5, and auto: chosen on the composition steps), each judged on the grid's kept
# runs (scripts/judge_kept_runs.sh) and pricing ResNet-50's own batch-16 kernels (exact/, in no
# fit; dnnperf score: the time-weighted bias per class). No runs; ~3 min.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
files=$(ls "$HERE"/torch_cpu_*.jsonl | grep -v step_warmth)
for v in 0 0.5 auto; do
  "$B" fit $files --step-warmth "$HERE/torch_cpu_step_warmth.jsonl" --hardware cpu --steps "$HERE/steps" --step-networks "$W/networks" \
      --time-weight $v -o "$W/$v.json" > "$W/$v.log" 2>&1 || { echo "time weight $v: fit failed (see $W/$v.log)"; continue; }
  echo "== time weight $v: $(grep -m1 'time weight of the structural fits' "$W/$v.log" | sed 's/.*(their/(their/')"
  "$ROOT/scripts/judge_kept_runs.sh" "$W/$v.json" "$HERE"
  "$B" score --hardware "$W/$v.json" "$HERE/exact/resnet50_b16.jsonl" 2>/dev/null | awk '$1 ~ /^(gemm|conv|all)/ { printf "  exact resnet50 b16 %-22s bias %+6.1f%%\n", $1, $NF }'
done
rm -rf "$W"
