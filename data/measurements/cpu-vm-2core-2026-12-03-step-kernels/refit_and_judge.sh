#!/bin/bash
# refit_and_judge.sh: each calibration of this folder fitted without and with the composition
# networks' convolutions (their cold timings, torch_cpu_step_kernels.jsonl), then
#  - the validated networks' own GEMMs and convolutions at batch 16 (exact/, timed in the same hour,
#    in neither fit) priced by both profiles: MAPE and the summed bias per network (dnnperf score);
#  - both profiles judged on the calibration's kept runs (scripts/judge_kept_runs.sh);
# and the profile with them fitted once more with the inferences' convolutions timed inside them
# at batch 16 as well (b16/, 09:51), as calibrate fits them since: judged the same way, and on the
# quiet 01:42 calibration (../cpu-vm-2core-2026-12-03-fresh/, as in
# ../cpu-vm-2core-2026-12-03-instep-share/refit_and_judge.sh). No runs; ~3 min.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
shares() { /usr/bin/python3 -c "import json, sys; w = json.load(open(sys.argv[1]))['device']['step_warmth']; print('%.2f training, %.2f inference' % (w['realized_share'], w.get('realized_share_inference', w['realized_share'])))" "$1"; }
for run in first second; do
  D=$HERE/$run
  generic=$(ls "$D"/torch_cpu_*.jsonl | grep -v -e step_warmth -e step_kernels)
  echo "== $run ($(head -1 "$D/times.log"))"
  cat "$D/torch_cpu_step_warmth.jsonl" "$HERE/b16/torch_cpu_step_warmth_b16_inference.jsonl" > "$W/${run}_b16.jsonl"
  for v in without with with_b16; do
    extra=""; [ $v != without ] && extra=$D/torch_cpu_step_kernels.jsonl
    warmth=$D/torch_cpu_step_warmth.jsonl; [ $v = with_b16 ] && warmth=$W/${run}_b16.jsonl
    "$B" fit $generic $extra --step-warmth "$warmth" --hardware cpu --steps "$D/steps" --step-networks "$W/networks" \
        -o "$W/${run}_$v.json" > "$W/fit_${run}_$v.log" 2>&1 || { echo "$v: fit failed (see $W/fit_${run}_$v.log)"; continue; }
    echo "$v the composition networks' convolutions$([ $v = with_b16 ] && echo ', and the batch-16 inferences in the share') (shares $(shares "$W/${run}_$v.json")):"
    for f in "$D"/exact/*_b16.jsonl; do
      "$B" score --hardware "$W/${run}_$v.json" "$f" 2>/dev/null | awk -v n="$(basename "$f" _b16.jsonl)" \
        '$1 == "all" { printf "  exact %-13s %3d kernels  MAPE %5.1f%%  weighted %5.1f%%  bias %+6.1f%%\n", n, $3, $4, $7, $NF }'
    done
    "$ROOT/scripts/judge_kept_runs.sh" "$W/${run}_$v.json" "$D"
  done
done
F=$HERE/../cpu-vm-2core-2026-12-03-fresh
S=$HERE/../cpu-vm-2core-2026-12-03-instep-share
quiet="$F/torch_cpu_allreduce.jsonl $F/torch_cpu_cnn.jsonl $F/torch_cpu_hot_pairs.jsonl $F/torch_cpu_kernels.jsonl $F/torch_cpu_late.jsonl $F/torch_cpu_skinny.jsonl $F/torch_cpu_sync_steps.jsonl $F/torch_cpu_wide.jsonl $HERE/../cpu-vm-2core-2026-12-03-pools/torch_cpu_memory_fresh_with_0333_pools.jsonl"
cat "$S/torch_cpu_step_warmth.jsonl" "$HERE/b16/torch_cpu_step_warmth_b16_inference.jsonl" > "$W/quiet_b16.jsonl"
echo "== the quiet 01:42 calibration, in-step records of 06:24 (batch 4)"
for v in b4 b4_b16; do
  warmth=$S/torch_cpu_step_warmth.jsonl; [ $v = b4_b16 ] && warmth=$W/quiet_b16.jsonl
  "$B" fit $quiet --step-warmth "$warmth" --hardware cpu --steps "$F/steps" --step-networks "$W/networks" -o "$W/quiet_$v.json" > "$W/fit_quiet_$v.log" 2>&1 ||
    { echo "$v: fit failed"; continue; }
  echo "$([ $v = b4 ] && echo 'as fitted' || echo 'and the batch-16 inferences') (shares $(shares "$W/quiet_$v.json")):"
  "$ROOT/scripts/judge_kept_runs.sh" "$W/quiet_$v.json" "$F"
done
rm -rf "$W"
