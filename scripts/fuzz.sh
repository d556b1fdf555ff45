#!/usr/bin/env bash
# Fuzzes every reader with libFuzzer (tests/fuzz/): builds the targets with clang, ASan and UBSan
# in build-fuzz/, seeds each corpus from data/ and the tests' fixtures, runs each target for
# SECONDS, and fails on any crash, leak, timeout (> 1 s an input) or out-of-memory (> 2 GB).
#   scripts/fuzz.sh SECONDS [TARGET ...]      (default: every target; FUZZ_JOBS at once, default nproc)
# Corpora persist in build-fuzz/corpus/TARGET, so a second run goes on from the first. A finding is
# left in build-fuzz/artifacts/TARGET/; copy it to tests/fuzz/regressions/TARGET/ once fixed, where
# ctest's fuzz/TARGET replays it. The summary (executions, coverage) is build-fuzz/fuzz-report.tsv.
# Timeouts are judged again in an uninstrumented build (build-test/, or DNNPERF_REPLAY_BUILD_DIR), by
# the input's own time there (DNNPERF_REPLAY_LIMIT_S: the program's start, slow on a loaded machine,
# is not counted).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [TARGET ...]}
shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(network_json network_spec onnx hardware_profile platform records pipeline_layout cli_arguments)
build=${DNNPERF_FUZZ_BUILD_DIR:-build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}

scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDNNPERF_FUZZ=ON \
  -DDNNPERF_BUILD_TESTS=OFF -DDNNPERF_BUILD_BENCHMARKS=OFF -DDNNPERF_WITH_CUDA=OFF -DDNNPERF_WITH_MPI=OFF >/dev/null
cmake --build "$build" --target fuzz_targets -j"$(nproc)"

# Seeds: the hand-written ones, every regression input, and the shipped files each reader reads.
seed() {  # target, files...
  local target=$1; shift
  mkdir -p "$build/corpus/$target"
  for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$build/corpus/$target/" 2>/dev/null || true; done
}
for t in "${targets[@]}"; do
  seed "$t" tests/fuzz/seeds/"$t"/* tests/fuzz/regressions/"$t"/*
done
seed network_json data/networks/*.json
seed hardware_profile data/hardware/*.json data/hardware/calibrated/*.json
seed platform data/platforms/*.json
# Measurement files are megabytes; their first lines carry every record kind and keep mutations fast.
mkdir -p "$build/corpus/records"
find data tests/data -name '*.jsonl' | while read -r f; do
  head -n 12 "$f" > "$build/corpus/records/$(echo "$f" | tr '/' '_')"
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# A timeout is judged in an uninstrumented build: ASan, UBSan and coverage make a large but legal
# network (a 9,000-layer transformer) take 2 s that a release build reads in 0.2 s. Such an
# input is noted (build-fuzz/slow/TARGET/) and fuzzing goes on; one over 1 s there too fails.
release=${DNNPERF_REPLAY_BUILD_DIR:-build-test}
[ -f "$release/CMakeCache.txt" ] || cmake -S . -B "$release" >/dev/null
replays=()
for t in "${targets[@]}"; do replays+=("replay-$t"); done
cmake --build "$release" --target "${replays[@]}" -j"$(nproc)" >/dev/null
# The judges are copied aside: a rebuild of the release folder during a long run must not take them away.
mkdir -p "$build/judges"
for t in "${targets[@]}"; do cp "$release/bin/replay-$t" "$build/judges/"; done
run_one() {
  local t=$1 log="$build/logs/$1.log" left=$seconds status=0 segment=0
  # Findings of earlier runs (each fixed and kept under tests/fuzz/regressions/) are moved aside,
  # so that what this run reports is its own.
  if [ -n "$(ls -A "$build/artifacts/$t" 2>/dev/null)" ]; then
    mkdir -p "$build/artifacts-earlier/$t"
    mv "$build/artifacts/$t"/* "$build/artifacts-earlier/$t/"
  fi
  mkdir -p "$build/artifacts/$t" "$build/logs" "$build/slow/$t"
  : > "$log"
  while [ "$left" -gt 0 ]; do
    local start=$SECONDS
    status=0
    "$build/bin/fuzz-$t" "$build/corpus/$t" -dict="tests/fuzz/dict/$t.dict" -max_total_time="$left" \
      -timeout=1 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t/" >>"$log" 2>&1 || status=$?
    left=$((left - (SECONDS - start)))
    segment=$((segment + 1))
    local finding
    finding=$(ls -t "$build/artifacts/$t" | head -1)
    [ "$status" = 0 ] && break
    case "$finding" in
      timeout-*)
        if DNNPERF_REPLAY_LIMIT_S=1 timeout 60 "$build/judges/replay-$t" "$build/artifacts/$t/$finding" >/dev/null 2>&1; then
          mv "$build/artifacts/$t/$finding" "$build/slow/$t/"
          # Its copy in the corpus (named by the same hash) would stop every restart again.
          rm -f "$build/corpus/$t/${finding#timeout-}"
          status=0
          continue
        fi ;;
    esac
    break
  done
  # libFuzzer keeps inputs it found slow (slow-unit-*) without stopping: judged the same way.
  for unit in "$build/artifacts/$t"/slow-unit-*; do
    [ -e "$unit" ] || continue
    DNNPERF_REPLAY_LIMIT_S=1 timeout 60 "$build/judges/replay-$t" "$unit" >/dev/null 2>&1 && mv "$unit" "$build/slow/$t/"
  done
  echo "$t $status $segment"
}
export -f run_one
export build seconds release
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}' > "$build/status.txt"

# One line per target: executions, coverage (edges, features), corpus, findings.
failed=0
printf 'target\tseconds\texecutions\texec_per_s\tedges\tfeatures\tcorpus\tslow_instrumented\tfindings\tstatus\n' > "$build/fuzz-report.tsv"
for t in "${targets[@]}"; do
  log="$build/logs/$t.log"
  status=$(awk -v t="$t" '$1 == t {print $2}' "$build/status.txt")
  execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | awk '{s += $1} END {print s + 0}')
  rate=$(awk -v e="$execs" -v s="$seconds" 'BEGIN {printf "%d", e / s}')
  slow=$(ls "$build/slow/$t" | wc -l)
  last=$(grep -aE '^#[0-9]+' "$log" | grep -a 'cov:' | tail -1)
  edges=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || echo 0)
  features=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || echo 0)
  corpus=$(ls "$build/corpus/$t" | wc -l)
  findings=$(ls "$build/artifacts/$t" | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$seconds" "${execs:-0}" "${rate:-0}" "${edges:-0}" "${features:-0}" "$corpus" "$slow" "$findings" "$status" >> "$build/fuzz-report.tsv"
  if [ "$status" != 0 ] || [ "$findings" != 0 ]; then
    failed=1
    echo "fuzz: $t found a problem (exit $status); see $log and $build/artifacts/$t/" >&2
    grep -aE 'ERROR|runtime error|terminate|what\(\)|internal' "$log" | tail -5 >&2 || true
  fi
done
column -t -s $'\t' "$build/fuzz-report.tsv"
exit $failed
