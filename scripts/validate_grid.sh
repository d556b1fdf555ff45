#!/bin/bash
# The issue's validation grid for one profile, run from the folder the results go to:
# seven networks at 64x64 and Inception-v3 at 128x128, batches 4, 16, 32, training and inference,
# two runs per case, saved (--save-measured ground_truth[_inference]/) so that other profiles can be
# judged on the same runs (validate --measured). Resumable (--resume); times.log says how long each part took.
#
#   cd my-run/ && /path/to/dnnperf/scripts/validate_grid.sh my-cpu.json      # ~13 min on the 2-core VM
set -u
PROFILE=${1:?usage: validate_grid.sh PROFILE.json (run from the folder for the results)}
[ -f "$PROFILE" ] || { echo "validate_grid: $PROFILE: no such profile" >&2; exit 1; }
B=${DNNPERF:-$(cd "$(dirname "$0")/.." && pwd)/build/bin/dnnperf}
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
for mode in train inference; do
  flag=""; sfx=""; [ $mode = inference ] && flag="--inference" && sfx="_inference"
  s=$(date +%s)
  "$B" validate --hardware "$PROFILE" --networks $NETS --batch 4,16,32 --input 64 --iterations 3 $flag --resume --json \
     --save-measured ground_truth$sfx > validation_$mode.json 2> validation_$mode.log
  echo "$mode seven: rc $? $(( $(date +%s) - s )) s" >> times.log
  s=$(date +%s)
  "$B" validate --hardware "$PROFILE" --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 $flag --resume --json \
     --save-measured ground_truth$sfx > validation_${mode}_inception128.json 2> validation_${mode}_inception128.log
  echo "$mode inception: rc $? $(( $(date +%s) - s )) s" >> times.log
done
echo done >> times.log
