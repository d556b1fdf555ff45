#!/usr/bin/env bash
# The half of a GPU lease that runs here: unpacks what scripts/device/gpu_lease.sh brought back,
# fits a profile to its PyTorch records and another to its C++ programs' records, scores each on
# the other source's kernels (docs/models/gpu.md: fit on one source, score on the other), and
# validates the PyTorch profile against the lease's ground truth. Everything goes to one folder:
#
#   scripts/device/after_lease.sh ARCHIVE.tar.gz|LEASE_DIR [OUT_DIR]
#     OUT_DIR/lease/            the unpacked lease (copy it under data/measurements/ to keep it)
#     OUT_DIR/torch.json        profile fitted to the PyTorch records (+ fit_torch.log)
#     OUT_DIR/cpp.json          profile fitted to the C++ programs' records (+ fit_cpp.log)
#     OUT_DIR/score_*.txt       each profile scored on the other source, and on the exact kernels
#     OUT_DIR/validate.txt      validate of torch.json on the lease's ground truth
#
# Its dry run: DRY_RUN=data/measurements/h200 OUT=/tmp/l scripts/device/gpu_lease.sh, then this on
# /tmp/l/gpu_lease.tar.gz (tests/device/dry_run_test.sh runs both). A step whose files the lease
# lacks is skipped with a line saying so; a failing step fails the script (exit 1) after the others.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 ARCHIVE.tar.gz|LEASE_DIR [OUT_DIR]" >&2; exit 2; }
src=$1
out=${2:-after-lease}
dnnperf=${DNNPERF:-build/bin/dnnperf}
base=${BASE_PROFILE:-h200}  # the datasheet profile the fits start from
[ -x "$dnnperf" ] || { echo "no $dnnperf: build dnnperf first (or set DNNPERF)" >&2; exit 2; }
mkdir -p "$out/lease"
if [ -f "$src" ]; then
  tar xzf "$src" -C "$out/lease" || { echo "$src: not a readable gzip tar archive" >&2; exit 1; }
  lease=$(find "$out/lease" -mindepth 1 -maxdepth 1 -type d | head -1)
elif [ -d "$src" ]; then
  lease=$src
else
  echo "$src: no such archive or folder" >&2
  exit 1
fi
[ -n "$lease" ] && [ -d "$lease" ] || { echo "$src: holds no lease folder" >&2; exit 1; }
echo "lease: $lease"
failed=0
run() {  # run NAME LOG -- command...: runs it, its output to LOG, and says how it went
  local name=$1 log=$2
  shift 3
  if "$@" > "$log" 2>&1; then echo "ok     $name -> $log"; else echo "FAILED $name (exit $?): see $log"; failed=1; fi
}
present() { local f; for f in "$@"; do [ -s "$f" ] || return 1; done; }

torch=()
for f in torch_cuda_memory.jsonl torch_cuda_kernels.jsonl torch_cuda_kernels_bf16.jsonl torch_cuda_kernels_tf32.jsonl torch_cuda_kernels_f8e4m3.jsonl torch_cuda_op_host.jsonl; do
  present "$lease/$f" && torch+=("$lease/$f")
done
cpp=()
for f in gemm_deepbench gemm_sample gemm_square conv_deepbench conv_sample memory launch; do
  present "$lease/microbench/$f.jsonl" && cpp+=("$lease/microbench/$f.jsonl")
done

if [ ${#torch[@]} -gt 0 ]; then
  run "fit to PyTorch's records" "$out/fit_torch.log" -- "$dnnperf" fit "${torch[@]}" --hardware "$base" -o "$out/torch.json"
else
  echo "skip   fit to PyTorch's records: the lease has none"
fi
if [ ${#cpp[@]} -gt 0 ]; then
  run "fit to the C++ programs' records" "$out/fit_cpp.log" -- "$dnnperf" fit "${cpp[@]}" --hardware "$base" -o "$out/cpp.json"
else
  echo "skip   fit to the C++ programs' records: the lease has none"
fi
if present "$out/torch.json" && [ ${#cpp[@]} -gt 0 ]; then
  run "PyTorch's fit scored on the C++ records" "$out/score_torch_on_cpp.txt" -- "$dnnperf" score --hardware "$out/torch.json" "${cpp[@]}"
fi
if present "$out/cpp.json" && [ ${#torch[@]} -gt 0 ]; then
  run "the C++ fit scored on PyTorch's records" "$out/score_cpp_on_torch.txt" -- "$dnnperf" score --hardware "$out/cpp.json" "${torch[@]}"
fi
if present "$out/torch.json" "$lease/torch_cuda_exact.jsonl"; then
  run "PyTorch's fit scored on the networks' exact kernels" "$out/score_torch_on_exact.txt" -- "$dnnperf" score --hardware "$out/torch.json" "$lease/torch_cuda_exact.jsonl"
fi
# What cuDNN and cuBLAS ran (torch_bench.py --kernel-names): transposes, tensor cores, split-K.
named=()
for f in "$lease"/torch_cuda_kernels*.jsonl "$lease/torch_cuda_exact.jsonl"; do
  [ -f "$f" ] && grep -q '"kernels": \[' "$f" && named+=("$f")
done
if [ ${#named[@]} -gt 0 ]; then
  run "what the libraries ran (kernel names)" "$out/kernel_names.md" -- /usr/bin/python3 scripts/kernel_names_report.py "${named[@]}"
else
  echo "skip   kernel names: no record names its kernels"
fi
if present "$out/torch.json" && [ -d "$lease/validation/measured" ]; then
  # The cases the ground truth holds, by their file names (NETWORK_bB_pP_MODE_runR.json).
  networks=$(ls "$lease/validation/measured" | sed -n 's/_b[0-9]*_p[0-9]*_\(train\|inference\)_run[0-9]*\.json$//p' | grep -v '^inception_v3$' | sort -u | paste -sd, -)
  batches=$(ls "$lease/validation/measured" | sed -n 's/.*_b\([0-9]*\)_p[0-9]*_.*/\1/p' | sort -un | paste -sd, -)
  if [ -n "$networks" ]; then
    run "validate on the lease's ground truth ($networks; batch $batches)" "$out/validate.txt" -- \
      "$dnnperf" validate --hardware "$out/torch.json" --networks "$networks" --batch "$batches" --input 224,224 --seq 128 --measured "$lease/validation/measured"
  fi
  # Inception-v3 runs at its own 299x299 (gpu_validate.sh).
  if ls "$lease/validation/measured"/inception_v3_b*.json > /dev/null 2>&1; then
    run "validate Inception-v3 at 299x299" "$out/validate_inception299.txt" -- \
      "$dnnperf" validate --hardware "$out/torch.json" --networks inception_v3 --batch "$batches" --input 299,299 --measured "$lease/validation/measured"
  fi
  # Other precisions' training cases (gpu_validate.sh DTYPES: NETWORK_bB_pP_DTYPE_train_runR.json).
  for dt in tf32 fp16 bf16; do
    nets=$(ls "$lease/validation/measured" | sed -n "s/_b[0-9]*_p[0-9]*_${dt}_train_run[0-9]*\.json\$//p" | sort -u | paste -sd, -)
    [ -n "$nets" ] || continue
    bs=$(ls "$lease/validation/measured" | sed -n "s/.*_b\([0-9]*\)_p[0-9]*_${dt}_train_run.*/\1/p" | sort -un | paste -sd, -)
    run "validate $dt training ($nets; batch $bs)" "$out/validate_$dt.txt" -- \
      "$dnnperf" validate --hardware "$out/torch.json" --networks "$nets" --batch "$bs" --input 224,224 --seq 128 --dtype "$dt" --measured "$lease/validation/measured"
  done
else
  echo "skip   validate: no fitted PyTorch profile or no ground truth in the lease"
fi
[ -f "$out/validate.txt" ] && grep -E "MAPE|mean|median" "$out/validate.txt" | head -6
exit $failed
