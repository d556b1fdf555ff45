#!/usr/bin/env bash
# Sets up, builds and runs the main job on built-in defaults. The README's first command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDNNPERF_BUILD_TESTS=OFF -DDNNPERF_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target dnnperf
build/bin/dnnperf net show resnet50
