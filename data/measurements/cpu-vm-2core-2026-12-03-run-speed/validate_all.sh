#!/bin/bash
# What ran here (2026-12-03 00:57-01:13 UTC): the issue's grid with the night's calibration, every
# run timing its own references, then the two-process cases.
set -u
cd "$(dirname "$0")"
root="$(git rev-parse --show-toplevel)"
bash "$root/scripts/validate_grid.sh" night_profile.json
"$root/build/bin/dnnperf" validate --hardware night_profile.json --networks resnet18,mobilenet_v2,transformer_encoder,alexnet --batch 4 --input 64 \
  --procs 1,2 --iterations 5 --save-measured ground_truth_ddp --resume --json > validation_ddp.json 2> validation_ddp.log
