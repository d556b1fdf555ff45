#!/bin/bash
# refit_and_judge.sh: this folder's calibrations (the Intel VM at 13:47, and second/ at 14:44)
# refitted with today's fit, the structural GEMM and convolution fits unweighted (--time-weight 0)
# and as `calibrate` now fits them (--time-weight auto: 0 or 0.5, chosen on the composition
# steps), each judged on its grid's kept runs (scripts/judge_kept_runs.sh) and, for the first,
# pricing the validated CNNs' own batch-16 kernels (exact/, in no fit; dnnperf score: the summed
# bias of the weight gradients and of all kernels). No runs; ~4 min.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
for cal in "$HERE" "$HERE/second"; do
  files=$(ls "$cal"/torch_cpu_*.jsonl | grep -v step_warmth)
  for v in 0 auto; do
    out=$W/$(basename "$cal")_$v
    "$B" fit $files --step-warmth "$cal/torch_cpu_step_warmth.jsonl" --hardware cpu --steps "$cal/steps" --step-networks "$W/networks" \
        --time-weight $v -o "$out.json" > "$out.log" 2>&1 || { echo "$cal, time weight $v: fit failed (see $out.log)"; continue; }
    echo "== $(basename "$cal"), time weight $v $(grep -m1 'time weight of the structural fits' "$out.log" | sed 's/.*(their/(their/')"
    "$ROOT/scripts/judge_kept_runs.sh" "$out.json" "$cal"
    [ "$cal" = "$HERE" ] || continue
    for f in "$HERE"/exact/*_b16.jsonl; do
      "$B" score --hardware "$out.json" "$f" 2>/dev/null | awk -v n="$(basename "$f" _b16.jsonl)" \
        '$1 == "conv_backward_filter" { g = $NF } $1 == "all" { printf "  exact %-13s weight gradients %+6.1f%%, all kernels %+6.1f%% (MAPE %s%%)\n", n, g, $NF, $4 }'
    done
  done
done
rm -rf "$W"
