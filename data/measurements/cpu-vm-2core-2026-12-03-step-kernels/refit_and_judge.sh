#!/bin/bash
# refit_and_judge.sh: each calibration of this folder fitted without and with the composition
# networks' convolutions (their cold timings, torch_cpu_step_kernels.jsonl), then
#  - the validated networks' own GEMMs and convolutions at batch 16 (exact/, timed in the same hour,
#    in neither fit) priced by both profiles: MAPE and the summed bias per network (dnnperf score);
#  - both profiles judged on the calibration's kept runs (scripts/judge_kept_runs.sh).
# No runs; ~2 min.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
for run in first second; do
  D=$HERE/$run
  generic=$(ls "$D"/torch_cpu_*.jsonl | grep -v -e step_warmth -e step_kernels)
  echo "== $run ($(head -1 "$D/times.log"))"
  for v in without with; do
    extra=""; [ $v = with ] && extra=$D/torch_cpu_step_kernels.jsonl
    "$B" fit $generic $extra --step-warmth "$D/torch_cpu_step_warmth.jsonl" --hardware cpu --steps "$D/steps" --step-networks "$W/networks" \
        -o "$W/${run}_$v.json" > "$W/fit_${run}_$v.log" 2>&1 || { echo "$v: fit failed (see $W/fit_${run}_$v.log)"; continue; }
    echo "$v the composition networks' convolutions:"
    for f in "$D"/exact/*_b16.jsonl; do
      "$B" score --hardware "$W/${run}_$v.json" "$f" 2>/dev/null | awk -v n="$(basename "$f" _b16.jsonl)" \
        '$1 == "all" { printf "  exact %-13s %3d kernels  MAPE %5.1f%%  weighted %5.1f%%  bias %+6.1f%%\n", n, $3, $4, $7, $NF }'
    done
    "$ROOT/scripts/judge_kept_runs.sh" "$W/${run}_$v.json" "$D"
  done
done
rm -rf "$W"
