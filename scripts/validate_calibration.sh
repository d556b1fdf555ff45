#!/usr/bin/env bash
# One CPU validation round, run from an empty folder for its results (~21 min on the 2-core VM,
# nothing else running): a fresh `dnnperf calibrate --procs 2`, the 2-process DDP line (four
# networks at batch 4, 1 and 2 processes), then scripts/validate_grid.sh on the profile it wrote.
# Every part saves its runs (ground_truth*/) and resumes; times.log says how long each took.
#   mkdir run && cd run && /path/to/dnnperf/scripts/validate_calibration.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=${DNNPERF:-$here/../build/bin/dnnperf}
[ -x "$B" ] || { echo "validate_calibration: $B: not built (scripts/demo.sh builds it)" >&2; exit 1; }
s=$(date +%s); date -u +%FT%TZ > times.log
"$B" calibrate --backend torch --device cpu --procs 2 -o calibrate_profile.json > calibrate.log 2>&1
echo "calibrate rc $? $(( $(date +%s) - s )) s" >> times.log
[ -f calibrate_profile.json ] || { echo "validate_calibration: calibrate failed (calibrate.log)" >&2; exit 1; }
s=$(date +%s)
"$B" validate --hardware calibrate_profile.json --networks resnet18,mobilenet_v2,transformer_encoder,alexnet \
  --batch 4 --input 64 --procs 1,2 --iterations 5 --save-measured ground_truth_ddp --resume --json > validation_ddp.json 2> validation_ddp.log
echo "ddp rc $? $(( $(date +%s) - s )) s" >> times.log
s=$(date +%s)
DNNPERF="$B" bash "$here/validate_grid.sh" calibrate_profile.json > grid.log 2>&1
echo "grid rc $? $(( $(date +%s) - s )) s" >> times.log
date -u +%FT%TZ >> times.log
