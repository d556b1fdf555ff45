#!/bin/bash
# refit_and_judge.sh: warmth shares fitted on whole composition steps (as before 2026-12-03
# morning) against shares fitted on the composition networks' convolutions timed inside their steps
# (fit --step-warmth, as calibrate fits them now), each profile judged on kept runs. No runs; ~3 min.
#  1. this folder's calibration (06:18, a slow and noisy hour), judged on its own runs;
#  2. the quiet calibration of 01:42 (../cpu-vm-2core-2026-12-03-fresh/, with the pools of 03:33
#     at both strides: the shipped cpu-vm-2core-family25.json) given this folder's in-step records
#     (06:24; a share is a ratio of times taken in one process, so it carries across the hours),
#     judged on the fresh calibration's runs (noise floors 3.6 / 2.2%).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
shares() { /usr/bin/python3 -c "import json, sys; w = json.load(open(sys.argv[1]))['device']['step_warmth']; print('%.2f training, %.2f inference' % (w['realized_share'], w.get('realized_share_inference', w['realized_share'])))" "$1"; }
judged() {  # NAME STEPS RUNS FIT_ARGS...: fit, print the shares, judge on RUNS
  local name=$1 steps=$2 runs=$3; shift 3
  "$B" fit "$@" --hardware cpu --steps "$steps" --step-networks "$W/networks" -o "$W/$name.json" > "$W/fit_$name.log" 2>&1 || { echo "$name: fit failed (see $W/fit_$name.log)"; return; }
  echo "$name: shares $(shares "$W/$name.json")"
  "$ROOT/scripts/judge_kept_runs.sh" "$W/$name.json" "$runs"
}
own=$(ls "$HERE"/torch_cpu_*.jsonl | grep -v step_warmth)
echo "1. this calibration on its own runs"
judged whole_steps "$HERE/steps" "$HERE" $own
judged in_step "$HERE/steps" "$HERE" $own --step-warmth "$HERE/torch_cpu_step_warmth.jsonl"
F=$HERE/../cpu-vm-2core-2026-12-03-fresh
quiet="$F/torch_cpu_allreduce.jsonl $F/torch_cpu_cnn.jsonl $F/torch_cpu_hot_pairs.jsonl $F/torch_cpu_kernels.jsonl $F/torch_cpu_late.jsonl $F/torch_cpu_skinny.jsonl $F/torch_cpu_sync_steps.jsonl $F/torch_cpu_wide.jsonl $HERE/../cpu-vm-2core-2026-12-03-pools/torch_cpu_memory_fresh_with_0333_pools.jsonl"
echo "2. the quiet 01:42 calibration on its runs"
judged quiet_whole_steps "$F/steps" "$F" $quiet
judged quiet_in_step "$F/steps" "$F" $quiet --step-warmth "$HERE/torch_cpu_step_warmth.jsonl"
rm -rf "$W"
