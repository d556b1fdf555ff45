#!/bin/bash
# Refits the Intel VM's ninth and tenth calibrations (../cpu-vm-2core-2026-12-03-intel/) with the
# current build twice: with their own records ("own") and with this folder's skinny:24:1 of round
# widths (torch_cpu_skinny24_rounded.jsonl, anchored) in place of their skinny file ("new"); prints
# the fitted aliasing, AlexNet's and VGG-11's batch-4 classifier GEMMs scored (cold, alone), and
# each profile judged on its calibration's kept runs (scripts/judge_kept_runs.sh). No runs; ~3 min.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
D=$ROOT/data/measurements/cpu-vm-2core-2026-12-03-intel
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
for cal in ${CALS:-ninth tenth}; do
  own=$(ls "$D/$cal"/torch_cpu_*.jsonl | grep -v step_warmth)
  new=$(echo "$own" | grep -v skinny; echo "$HERE/torch_cpu_skinny24_rounded.jsonl")
  for v in own new; do
    files=$own; [ $v = new ] && files=$new
    out=$W/${cal}_$v
    "$B" fit $files --step-warmth "$D/$cal/torch_cpu_step_warmth.jsonl" --hardware cpu --steps "$D/$cal/steps" --step-networks "$W/networks" \
        -o "$out.json" > "$out.log" 2>&1 || { echo "$cal $v: fit failed (see $out.log)"; continue; }
    echo "== $cal, $v records: $(grep 'analytic gemm' "$out.log")"
    /usr/bin/python3 -c "import json,sys; b=json.load(open(sys.argv[1]))['device']['efficiency']['blocked_gemm']; print('   aliased_slowdown', [round(x, 3) for x in b['aliased_slowdown']], 'layout_packing', [round(x, 2) for x in b['layout_packing']], 'long_row_slowdown', [round(x, 2) for x in b['long_row_slowdown']])" "$out.json"
    for n in alexnet vgg11; do
      f=$D/classifier-gemms/torch_cpu_alexnet_b4_gemms.jsonl; [ $n = vgg11 ] && f=$HERE/torch_cpu_vgg11_b4_gemms.jsonl
      "$B" score --hardware "$out.json" "$f" 2>/dev/null | awk -v n=$n '$1 == "gemm" { printf "   %s batch-4 GEMMs: MAPE %s%%, bias %s%%\n", n, $4, $NF }'
    done
    "$ROOT/scripts/judge_kept_runs.sh" "$out.json" "$D/$cal"
  done
done
rm -rf "$W"
