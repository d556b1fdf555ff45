#!/bin/bash
# refit_and_judge.sh: this folder's calibrations refitted with today's fit as `calibrate` fits
# (--time-weight auto, the in-step warmth share, excess and far-byte price), each judged on its own
# grid's kept runs (scripts/judge_kept_runs.sh). The first three (13:47, second/ at 14:36, third/
# at 15:35) once with their own records and once with cold-state/'s optimizer steps over rotated
# parameters and training-step ReLU6 (16:45) in place of their own optimizer passes; fourth/
# (17:06), fifth/ (17:50), sixth/ (19:02) and seventh/ (19:29), which timed both themselves, with their own. For the
# first, also the validated CNNs' own batch-16 kernels (exact/, in no fit; dnnperf score: the
# summed bias of the weight gradients and of all kernels). No runs; ~12 min.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
for cal in "$HERE" "$HERE/second" "$HERE/third" "$HERE/fourth" "$HERE/fifth" "$HERE/sixth" "$HERE/seventh"; do
  [ -d "$cal" ] || continue
  name=$(basename "$cal")
  own=$(ls "$cal"/torch_cpu_*.jsonl | grep -v step_warmth)
  # The same files, the memory passes' optimizer steps replaced by cold-state/'s.
  mkdir -p "$W/$name"
  grep -v '"op": "memory_\(sgd\|momentum\|adam\)"' "$cal/torch_cpu_memory.jsonl" > "$W/$name/torch_cpu_memory.jsonl"
  cold=$(echo "$own" | grep -v torch_cpu_memory.jsonl; echo "$W/$name/torch_cpu_memory.jsonl"; ls "$HERE"/cold-state/torch_cpu_*.jsonl)
  variants="own cold-state"
  case $name in fourth|fifth|sixth|seventh) variants=own ;; esac
  for variant in $variants; do
    files=$own; [ $variant = cold-state ] && files=$cold
    out=$W/${name}_$variant
    "$B" fit $files --step-warmth "$cal/torch_cpu_step_warmth.jsonl" --hardware cpu --steps "$cal/steps" --step-networks "$W/networks" \
        -o "$out.json" > "$out.log" 2>&1 || { echo "$cal, $variant records: fit failed (see $out.log)"; continue; }
    echo "== $name, $variant records; in-step excess and far-byte price (training / inference): $(/usr/bin/python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['device']['step_warmth']; print('%.3f / %s, %.0f / %s ps' % (w.get('in_step_excess', 0), w.get('in_step_excess_inference', '-'), 1e12 * w.get('far_s_per_byte', 0), 1e12 * w['far_s_per_byte_inference'] if 'far_s_per_byte_inference' in w else '-'))" "$out.json")"
    "$ROOT/scripts/judge_kept_runs.sh" "$out.json" "$cal"
    [ "$cal" = "$HERE" ] || continue
    for f in "$HERE"/exact/*_b16.jsonl; do
      "$B" score --hardware "$out.json" "$f" 2>/dev/null | awk -v n="$(basename "$f" _b16.jsonl)" \
        '$1 == "conv_backward_filter" { g = $NF } $1 == "all" { printf "  exact %-13s weight gradients %+6.1f%%, all kernels %+6.1f%% (MAPE %s%%)\n", n, g, $NF, $4 }'
    done
  done
done
rm -rf "$W"
