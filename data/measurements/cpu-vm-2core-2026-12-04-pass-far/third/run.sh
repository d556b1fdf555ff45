#!/bin/bash
cd /tmp/v0450
export PATH=/work/main/build/bin:$PATH
s=$(date +%s); date -u +%FT%TZ > times.log
dnnperf calibrate --backend torch --device cpu --procs 2 -o calibrate_profile.json > calibrate.log 2>&1; echo "calibrate rc $? $(( $(date +%s)-s )) s" >> times.log
s=$(date +%s); dnnperf validate --hardware calibrate_profile.json --networks resnet18,mobilenet_v2,transformer_encoder,alexnet --batch 4 --input 64 --procs 1,2 --iterations 5 --save-measured ground_truth_ddp --resume --json > validation_ddp.json 2> validation_ddp.log; echo "ddp rc $? $(( $(date +%s)-s )) s" >> times.log
s=$(date +%s); bash /work/main/scripts/validate_grid.sh calibrate_profile.json > grid.log 2>&1; echo "grid rc $? $(( $(date +%s)-s )) s" >> times.log
date -u +%FT%TZ >> times.log
