#!/bin/bash
# refit_and_judge.sh: the fresh calibration of 2026-12-03 01:42 (../cpu-vm-2core-2026-12-03-fresh/)
# refitted with this build, its pooling records as they were (3x3 max and 2x2 average at stride 2)
# and with the pools timed again at 03:33 at both strides (torch_cpu_memory_0333.jsonl: stride 2
# and the new stride-1 records; the fit gives each pool family a rate per window operation);
# each profile judged on the fresh calibration's kept runs. No runs; ~1 min. Run after building.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
F=$HERE/../cpu-vm-2core-2026-12-03-fresh
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
# The fresh memory file without its pools, then every pool record of 03:33 (its context line first).
/usr/bin/python3 - "$F/torch_cpu_memory.jsonl" "$HERE/torch_cpu_memory_0333.jsonl" "$W/torch_cpu_memory.jsonl" <<'PY'
import json, sys
old, new, out = sys.argv[1:]
pools = ("memory_max_pool", "memory_avg_pool", "memory_max_pool_stride1", "memory_avg_pool_stride1")
with open(out, "w") as o:
    for line in open(old):
        r = json.loads(line)
        if r.get("type") != "record" or r["op"] not in pools:
            o.write(line)
    for line in open(new):
        r = json.loads(line)
        if r.get("type") != "record" or r["op"] in pools:
            o.write(line)
PY
others=$(ls "$F"/*.jsonl | grep -v torch_cpu_memory.jsonl)
for variant in stride2 both; do
  mem=$F/torch_cpu_memory.jsonl; [ $variant = both ] && mem=$W/torch_cpu_memory.jsonl
  "$B" fit $others "$mem" --hardware cpu --steps "$F/steps" --step-networks "$W/networks" -o "$W/$variant.json" > "$W/fit_$variant.log" 2>&1 || { echo "$variant: fit failed"; continue; }
  echo "$variant: $(grep -E '^pass:(max|avg)_pool ' "$W/fit_$variant.log" | awk '{printf "%s held-out %s%% (weighted %s%%); ", $1, $3, $6}')"
  "$ROOT/scripts/judge_kept_runs.sh" "$W/$variant.json" "$F"
done
rm -rf "$W"
