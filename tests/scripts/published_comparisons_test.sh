#!/usr/bin/env bash
# The comparisons with published runs (docs/validation.md) run end to end on today's command line:
# every case priced, the summary printed, compare_published's bounds holding (it exits 1 if one
# breaks). Their figures are quoted in the docs, not asserted here.
set -u
bin=$1
src=$2
fail=0
run() {  # run SCRIPT SUMMARY_PATTERN
  local out rc
  out=$(/usr/bin/python3 "$src/scripts/$1" --dnnperf "$bin" 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ] || ! grep -qE -- "$2" <<<"$out"; then
    echo "FAIL $1: rc=$rc, no /$2/:"
    echo "$out" | tail -20
    fail=1
  else
    echo "ok   $1: $(grep -E -- "$2" <<<"$out" | head -1)"
  fi
}
run compare_published.py '^[0-9]+ cases: median \|error\|'
run compare_scaling.py '^[0-9]+ cases: median \|error\|'
run compare_megatron.py '^10 runs: median \|error\|'
run compare_nemo.py '^2 runs: median \|error\|'
exit $fail
