#!/bin/bash
# The seven networks' own GEMMs and convolutions at batch 4, 64x64, timed cold as calibrate --networks does.
cd /tmp/s25 && mkdir -p exact
for n in alexnet vgg11 resnet18 resnet50 mobilenet_v2 densenet121 transformer_encoder; do
  s=$(date +%s)
  /usr/bin/python3 /work/main/scripts/torch_bench.py --shapes "zoo:$n@64" --batch 4 --max-flops 2e9 --cold --anchors --device cpu --threads 1 --resume \
     --dnnperf /work/main/build/bin/dnnperf -o exact/torch_cpu_exact_$n.jsonl > exact/$n.log 2>&1
  echo "$n rc $? $(( $(date +%s) - s )) s" >> exact/times.log
done
echo done >> exact/times.log
