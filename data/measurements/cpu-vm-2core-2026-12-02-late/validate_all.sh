#!/bin/bash
# The grid with the profile calibrate wrote (run from the calibration's folder):
# seven networks at 64x64 and Inception-v3 at 128x128, batches 4, 16, 32, training and inference,
# two runs per case, saved (--save-measured) so that other profiles can be judged on the same runs.
B=${DNNPERF:-/work/main/build/bin/dnnperf}
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
for mode in train inference; do
  flag=""; sfx=""; [ $mode = inference ] && flag="--inference" && sfx="_inference"
  s=$(date +%s)
  $B validate --hardware calibrate_profile.json --networks $NETS --batch 4,16,32 --input 64 --iterations 3 $flag --resume --json \
     --save-measured ground_truth$sfx > validation_$mode.json 2> validation_$mode.log
  echo "$mode seven: rc $? $(( $(date +%s) - s )) s" >> times.log
  s=$(date +%s)
  $B validate --hardware calibrate_profile.json --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 $flag --resume --json \
     --save-measured ground_truth$sfx > validation_${mode}_inception128.json 2> validation_${mode}_inception128.log
  echo "$mode inception: rc $? $(( $(date +%s) - s )) s" >> times.log
done
echo done >> times.log
