#!/usr/bin/env bash
# Sets up (Debian packages), builds and runs every test. The README's second command; .ci/run calls it.
#   scripts/test.sh [extra cmake arguments, e.g. -DDNNPERF_SANITIZE=ON]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${DNNPERF_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
