#!/bin/bash
# refit_and_judge.sh: the midday calibration (../cpu-vm-2core-2026-12-03-midday/, whose sample
# reached 35 GEMMs and left the cache-blocked GEMM model unfitted) refitted as it was and with the
# 64 GEMMs this folder's calibration timed first (its torch_cpu_kernels.jsonl's first records,
# 12:05, anchors included: fit puts them on the midday file's speed), each
#  - judged on the midday calibration's kept runs (scripts/judge_kept_runs.sh), and
#  - pricing the validated CNNs' own batch-4 kernels (../cpu-vm-2core-2026-12-03-midday/exact_b4/,
#    in neither fit): MAPE of the GEMMs and of all kernels, and the GEMMs' summed bias (dnnperf score).
# No runs; ~2 min.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
M=$HERE/../cpu-vm-2core-2026-12-03-midday
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
/usr/bin/python3 - "$HERE/torch_cpu_kernels.jsonl" "$W/gemm_first.jsonl" <<'PY'
import json, sys
n = 0
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("type") != "record":
            out.write(line)
        elif n < 64 and r["op"] == "gemm":
            out.write(line)
            n += 1
PY
midday=$(ls "$M"/torch_cpu_*.jsonl | grep -v step_warmth)
for v in as_calibrated with_gemms_first; do
  extra=""; [ $v = with_gemms_first ] && extra=$W/gemm_first.jsonl
  "$B" fit $midday $extra --step-warmth "$M/torch_cpu_step_warmth.jsonl" --hardware cpu --steps "$M/steps" --step-networks "$W/networks" \
      -o "$W/$v.json" > "$W/$v.log" 2>&1 || { echo "$v: fit failed (see $W/$v.log)"; continue; }
  echo "== midday, $v: $(grep -m1 'analytic gemm' "$W/$v.log" | cut -c1-120)"
  "$ROOT/scripts/judge_kept_runs.sh" "$W/$v.json" "$M"
  for f in "$M"/exact_b4/*_b4.jsonl; do
    "$B" score --hardware "$W/$v.json" "$f" 2>/dev/null | awk -v n="$(basename "$f" _b4.jsonl)" \
      '$1 == "gemm" { g = sprintf("GEMMs MAPE %5.1f%% bias %+6.1f%%", $4, $NF) } $1 == "all" { printf "  exact %-13s %s, all %3d kernels MAPE %5.1f%%\n", n, g, $3, $4 }'
  done
done
rm -rf "$W"
