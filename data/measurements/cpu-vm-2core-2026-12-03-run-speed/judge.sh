#!/bin/bash
# The kept runs judged again (no runs; a second): PROFILE defaults to the night's calibration.
set -u
cd "$(dirname "$0")"
B="$(git rev-parse --show-toplevel)/build/bin/dnnperf"
P=${1:-night_profile.json}
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
"$B" validate --hardware "$P" --networks $NETS --batch 4,16,32 --input 64 --measured ground_truth
"$B" validate --hardware "$P" --networks $NETS --batch 4,16,32 --input 64 --inference --measured ground_truth_inference
"$B" validate --hardware "$P" --networks inception_v3_noaux --batch 4,16,32 --input 128 --measured ground_truth
"$B" validate --hardware "$P" --networks inception_v3_noaux --batch 4,16,32 --input 128 --inference --measured ground_truth_inference
"$B" validate --hardware "$P" --networks resnet18,mobilenet_v2,transformer_encoder,alexnet --batch 4 --input 64 --procs 1,2 --measured ground_truth_ddp
