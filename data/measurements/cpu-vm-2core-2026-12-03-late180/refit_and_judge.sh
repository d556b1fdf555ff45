#!/bin/bash
# refit_and_judge.sh: the night's calibration (../cpu-vm-2core-2026-12-02-night/) refitted with
# this build, with and without 120 more `late` convolutions (late:120:2:2, timed here 2026-12-03
# 01:20) and with the composition networks' inferences (inference_steps/, timed 01:30) beside its
# training steps; each profile priced on the kept runs of the night's two sets and of
# ../cpu-vm-2core-2026-12-03-run-speed/. No runs; ~3 min. Run from anywhere after building.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
B=${DNNPERF:-$ROOT/build/bin/dnnperf}
N=$HERE/../cpu-vm-2core-2026-12-02-night
W=$(mktemp -d)
/usr/bin/python3 "$ROOT/scripts/export_onnx.py" --skip-existing "$W/networks" composition > /dev/null
mkdir -p "$W/steps" && cp "$N"/steps/*.json "$HERE"/inference_steps/*.json "$W/steps/"
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
judge() {  # PROFILE: MAPE per saved set, training and inference (Inception-v3 at 128 in brackets), DDP per process count
  for set in "$N" "$N/repeat" "$HERE/../cpu-vm-2core-2026-12-03-run-speed"; do
    line="  $(basename "$(cd "$set" && pwd)"):"
    for mode in train inference; do
      d=$set/ground_truth; f=""; [ $mode = inference ] && d=$set/ground_truth_inference && f=--inference
      a=$("$B" validate --hardware "$1" --networks $NETS --batch 4,16,32 --input 64 $f --measured "$d" --json 2>/dev/null | /usr/bin/python3 -c "import json,sys; print('%.1f' % json.load(sys.stdin)['absolute_error_percent']['mean'])")
      i=$("$B" validate --hardware "$1" --networks inception_v3_noaux --batch 4,16,32 --input 128 $f --measured "$d" --json 2>/dev/null | /usr/bin/python3 -c "import json,sys; print('%.1f' % json.load(sys.stdin)['absolute_error_percent']['mean'])")
      line="$line $mode $a% ($i%)"
    done
    if [ -d "$set/ground_truth_ddp" ]; then
      line="$line; ddp $("$B" validate --hardware "$1" --networks resnet18,mobilenet_v2,transformer_encoder,alexnet --batch 4 --input 64 --procs 1,2 --measured "$set/ground_truth_ddp" --json 2>/dev/null |
        /usr/bin/python3 -c "import json,sys; print(' '.join('%d proc %.1f%%' % (g['procs'], g['absolute_error_percent']['mean']) for g in json.load(sys.stdin)['by_size']))")"
    fi
    echo "$line"
  done
}
for variant in night late180; do
  files=("$N"/*.jsonl); [ $variant = late180 ] && files+=("$HERE/torch_cpu_late_120_2.jsonl")
  "$B" fit "${files[@]}" --hardware cpu --steps "$W/steps" --step-networks "$W/networks" -o "$W/$variant.json" > "$HERE/fit_$variant.log" 2>&1 || { echo "$variant: fit failed"; continue; }
  echo "$variant: $(grep -h 'warmth realized' "$HERE/fit_$variant.log" | sed 's/ ([^)]*)//' | tr '\n' ' ')"
  "$B" score --hardware "$W/$variant.json" "$HERE/mobilenet_v2_b4_1x1_cold.jsonl" | grep -E '^conv_backward' | awk '{print "  MobileNetV2 b4 1x1 " $1 ", timed cold: bias " $NF "%"}'
  judge "$W/$variant.json"
done
rm -rf "$W"
