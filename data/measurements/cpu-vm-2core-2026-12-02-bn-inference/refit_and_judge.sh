#!/bin/bash
# refit_and_judge.sh: refits the late calibration's files without and with this folder's inference
# batch-norm records, and prices both sets of that session's saved runs with each (no runs).
# Run from the repository root after building; about 1 minute.
set -euo pipefail
HERE=data/measurements/cpu-vm-2core-2026-12-02-bn-inference
LATE=data/measurements/cpu-vm-2core-2026-12-02-late
B=${DNNPERF:-build/bin/dnnperf}
W=$(mktemp -d)
/usr/bin/python3 scripts/export_onnx.py --skip-existing "$W/networks" composition > /dev/null  # the composition steps' networks
mkdir -p "$W/without" "$W/with"
cp $LATE/*.jsonl "$W/without/"; cp $LATE/*.jsonl "$W/with/"
(head -1 $HERE/torch_cpu_batch_norm_grid.jsonl; grep '"memory_batch_norm_inference"' $HERE/torch_cpu_batch_norm_grid.jsonl) > "$W/with/torch_cpu_bn_inference.jsonl"
for v in without with; do
  $B fit "$W/$v"/*.jsonl --hardware cpu --steps $LATE/steps --step-networks "$W/networks" -o "$HERE/refit_$v.json" > "$W/$v.log"
  (cd $LATE && bash judge_new.sh "$OLDPWD/$HERE/refit_$v.json" "$OLDPWD/$HERE/judged_${v}_set1")
  (cd $LATE/repeat && bash ../judge_new.sh "$OLDPWD/$HERE/refit_$v.json" "$OLDPWD/$HERE/judged_${v}_set2")
done
