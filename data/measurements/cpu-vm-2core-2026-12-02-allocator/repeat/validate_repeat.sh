#!/bin/bash
# A second, independent set of runs judged by the refitted profile (refit/profile.json).
cd /tmp/s25
B=/work/main/build/bin/dnnperf
P=/work/main/data/measurements/cpu-vm-2core-2026-12-02-allocator/refit/profile.json
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
for mode in train inference; do
  flag=""; sfx=""; [ $mode = inference ] && flag="--inference" && sfx="_inference"
  s=$(date +%s)
  $B validate --hardware $P --networks $NETS --batch 4,16,32 --input 64 --iterations 3 $flag --resume --json \
     --save-measured repeat/ground_truth$sfx > repeat/validation_$mode.json 2> repeat/validation_$mode.log
  echo "$mode seven: rc $? $(( $(date +%s) - s )) s" >> repeat/times.log
  s=$(date +%s)
  $B validate --hardware $P --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 $flag --resume --json \
     --save-measured repeat/ground_truth$sfx > repeat/validation_${mode}_inception128.json 2> repeat/validation_${mode}_inception128.log
  echo "$mode inception: rc $? $(( $(date +%s) - s )) s" >> repeat/times.log
done
echo done >> repeat/times.log
