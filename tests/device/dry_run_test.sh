#!/usr/bin/env bash
# The GPU lease's script end to end without a GPU: gpu_lease.sh replays the recorded H200 lease,
# after_lease.sh fits, scores and validates what it packed. A lease must be spent measuring, not
# debugging: this fails when either script, or the path between them, breaks.
set -u
dnnperf=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"
fail=0
DRY_RUN=data/measurements/h200 OUT="$tmp/lease" DEADLINE_S=120 scripts/device/gpu_lease.sh > "$tmp/lease.log" 2>&1 \
  || { echo "FAIL gpu_lease.sh dry run:"; tail -20 "$tmp/lease.log"; exit 1; }
tar tzf "$tmp/lease/gpu_lease.tar.gz" | grep -q "validation/measured/resnet50_b32_p1_train_run0.json" \
  || { echo "FAIL the archive lacks the replayed ground truth"; fail=1; }
grep -q "nothing recorded at lease2/torch_cuda_kernels_bf16.jsonl" "$tmp/lease.log" \
  || { echo "FAIL a step with nothing recorded did not say so"; fail=1; }
DNNPERF=$dnnperf scripts/device/after_lease.sh "$tmp/lease/gpu_lease.tar.gz" "$tmp/after" > "$tmp/after.log" 2>&1 \
  || { echo "FAIL after_lease.sh:"; cat "$tmp/after.log"; exit 1; }
for f in torch.json cpp.json score_torch_on_cpp.txt score_cpp_on_torch.txt validate.txt; do
  [ -s "$tmp/after/$f" ] || { echo "FAIL after_lease.sh wrote no $f"; fail=1; }
done
grep -qE "MAPE [0-9.]+%.* over [0-9]+ cases" "$tmp/after/validate.txt" || { echo "FAIL validate.txt has no MAPE line"; fail=1; }
# Bad input: a missing archive is an error that names it.
out=$(DNNPERF=$dnnperf scripts/device/after_lease.sh "$tmp/none.tar.gz" "$tmp/x" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "none.tar.gz: no such archive" <<<"$out" || { echo "FAIL missing archive: rc=$rc $out"; fail=1; }
[ $fail -eq 0 ] && echo "ok   gpu lease dry run, fit, score and validate"
exit $fail
