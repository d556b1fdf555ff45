#!/usr/bin/env bash
# Sets up (Debian packages), builds with every test on and runs them all. The README's second
# command; .ci/run calls it. It builds in its own folder (build-test/, or DNNPERF_BUILD_DIR), so a
# build made by scripts/demo.sh (tests off) never hides the tests, and it fails when no test runs.
#   scripts/test.sh [extra cmake arguments, e.g. -DDNNPERF_SANITIZE=ON]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${DNNPERF_BUILD_DIR:-build-test}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDNNPERF_BUILD_TESTS=ON "$@"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$(nproc)"
