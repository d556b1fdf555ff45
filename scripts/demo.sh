#!/usr/bin/env bash
# Sets up, builds and runs the main job on built-in defaults (the README's first command):
# ResNet-50 training on 8-GPU A100 nodes, batch 256 per GPU in bf16 mixed precision, scaled from 1
# to 64 nodes, with the sweep written to scale-resnet50-a100.csv and plotted when matplotlib is there.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDNNPERF_BUILD_TESTS=OFF -DDNNPERF_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target dnnperf
build/bin/dnnperf scale --network resnet50 --hardware a100 --batch 256 --dtype bf16 --nodes 1..64 \
  --csv scale-resnet50-a100.csv
/usr/bin/python3 scripts/plot_scaling.py scale-resnet50-a100.csv --title "ResNet-50 on A100 nodes (8 GPUs), batch 256/GPU, bf16" || true
