#!/usr/bin/env bash
# Builds with AddressSanitizer and UndefinedBehaviorSanitizer (DNNPERF_SANITIZE) in its own
# folder and runs the fast tests under them: every Catch2 suite and the CLI's output and
# bad-input checks (ctest label "fast"). Any report fails the run. .ci/run calls it after
# scripts/test.sh, which has installed the packages.
#   scripts/test_sanitized.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${DNNPERF_SANITIZED_BUILD_DIR:-build-asan}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDNNPERF_BUILD_TESTS=ON -DDNNPERF_BUILD_BENCHMARKS=OFF -DDNNPERF_SANITIZE=ON "$@"
cmake --build "$build" -j"$(nproc)"
# halt_on_error: the first report fails its test; leaks are reported as errors too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ctest --test-dir "$build" --output-on-failure --no-tests=error -L fast -j"$(nproc)"
