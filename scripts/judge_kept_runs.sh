#!/bin/bash
# A profile priced on runs kept by scripts/validate_grid.sh (RUNS/ground_truth and
# RUNS/ground_truth_inference): the grid's MAPE and median for the seven networks at 64x64 and
# Inception-v3's three cases at 128x128, training and inference. No runs.
#
#   scripts/judge_kept_runs.sh my-cpu.json data/measurements/cpu-vm-2core-intel
set -uo pipefail
PROFILE=${1:?usage: judge_kept_runs.sh PROFILE.json RUNS_FOLDER}
RUNS=${2:?usage: judge_kept_runs.sh PROFILE.json RUNS_FOLDER}
B=${DNNPERF:-$(cd "$(dirname "$0")/.." && pwd)/build/bin/dnnperf}
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
for mode in train inference; do
  d=$RUNS/ground_truth; f=""; [ $mode = inference ] && d=$RUNS/ground_truth_inference && f=--inference
  [ -d "$d" ] || { echo "judge_kept_runs: $d: no kept runs" >&2; exit 1; }
  a=$("$B" validate --hardware "$PROFILE" --networks $NETS --batch 4,16,32 --input 64 $f --measured "$d" --json 2>/dev/null |
      /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print('%.1f%% (median %.1f%%)' % (d['absolute_error_percent']['mean'], d['absolute_error_percent']['median']))")
  i=$("$B" validate --hardware "$PROFILE" --networks inception_v3_noaux --batch 4,16,32 --input 128 $f --measured "$d" --json 2>/dev/null |
      /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print('%.1f%% (%s)' % (d['absolute_error_percent']['mean'], ', '.join('%+.1f' % c['error_percent'] for c in d['cases'])))")
  echo "  $mode: seven networks ${a:-failed}, Inception-v3 ${i:-failed}"
done
