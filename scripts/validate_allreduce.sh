#!/usr/bin/env bash
# Judges the fitted AllReduce models on measurements they never saw, made by a program other than
# `dnnperf bench`: bench times every algorithm in both modes (isolated calls, streams of calls) on
# its grid of sizes at the --fit-ranks counts; `dnnperf fit` fits dnnperf's model and, for
# comparison, Hockney's alone; then dnnperf-allreduce-loop (validation/mpi/allreduce_loop.cc)
# times the library's own AllReduce in both modes at sizes off that grid, twice (the truth's own
# run-to-run noise), at the --judge-ranks counts, and `dnnperf score` prices those records with
# each profile (docs/validation.md, "Collectives over MPI").
#
#   scripts/validate_allreduce.sh OUT [--fit-ranks 2,4] [--judge-ranks 2,3,4] [--max-bytes 16777216]
#
# Resumable: bench's files are resumed, the loop's runs and the fits are redone only when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/validate_allreduce.sh OUT [--fit-ranks 2,4] [--judge-ranks 2,3,4] [--max-bytes B]}
shift
fit_ranks=2,4
judge_ranks=2,3,4
max_bytes=$((16 << 20))
while [ $# -gt 0 ]; do
  case $1 in
    --fit-ranks) fit_ranks=$2; shift 2 ;;
    --judge-ranks) judge_ranks=$2; shift 2 ;;
    --max-bytes) max_bytes=$2; shift 2 ;;
    *) echo "validate_allreduce: unknown option $1" >&2; exit 2 ;;
  esac
done
bin=${DNNPERF_BIN:-$root/build/bin}
for exe in dnnperf dnnperf-allreduce-loop; do
  [ -x "$bin/$exe" ] || { echo "validate_allreduce: $bin/$exe not found (build first, or set DNNPERF_BIN)" >&2; exit 1; }
done
mkdir -p "$out"
mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# bench's grid: powers of two and the points halfway (x1.5), 4 B to max_bytes.
grid=$(awk -v max="$max_bytes" 'BEGIN { for (s = 4; s <= max; s *= 2) { printf "%s%d", (s > 4 ? "," : ""), s; if (s >= 8 && s * 1.5 < max) printf ",%d", s * 1.5 } }')
# Off the grid: neither a power of two nor halfway between two.
off=$(awk -v max="$max_bytes" 'BEGIN { n = split("12 100 700 3000 10000 50000 200000 700000 3000000 12000000", s, " ");
  for (i = 1; i <= n; ++i) if (s[i] <= max) printf "%s%d", (i > 1 ? "," : ""), s[i] }')

fit_files=()
for np in ${fit_ranks//,/ }; do
  echo "bench: $np ranks, every algorithm, isolated and stream, $(tr ',' '\n' <<<"$grid" | wc -l) sizes"
  "${mpi[@]}" -np "$np" "$bin/dnnperf" bench allreduce --algorithms all --mode isolated,stream --sizes "$grid" \
    -o "$out/bench_np$np.jsonl" --resume --quiet
  fit_files+=("$out/bench_np$np.jsonl")
done
for np in ${judge_ranks//,/ }; do
  for mode in isolated stream; do
    for run in 1 2; do
      f=$out/loop_${mode}_np${np}_run$run.jsonl
      [ -s "$f" ] && continue
      echo "loop: $np ranks, $mode, run $run"
      "${mpi[@]}" -np "$np" "$bin/dnnperf-allreduce-loop" --sizes "$off" --mode "$mode" >"$f.partial"
      mv "$f.partial" "$f"
    done
  done
done
[ -s "$out/dnnperf.json" ] || "$bin/dnnperf" fit "${fit_files[@]}" --hardware cpu -o "$out/dnnperf.json" >"$out/fit_dnnperf.log"
[ -s "$out/hockney.json" ] || "$bin/dnnperf" fit "${fit_files[@]}" --hardware cpu --models hockney -o "$out/hockney.json" >"$out/fit_hockney.log"
for profile in dnnperf hockney; do
  "$bin/dnnperf" score --hardware "$out/$profile.json" "$out"/loop_*.jsonl --json >"$out/score_$profile.json"
  "$bin/dnnperf" score --hardware "$out/$profile.json" "$out"/loop_*.jsonl >"$out/score_$profile.txt"
done
/usr/bin/python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
rows = {}
for profile in ("dnnperf", "hockney"):
    for m in json.load(open(f"{out}/score_{profile}.json"))["communication"]["models"]:
        rows.setdefault((m["mode"], m["ranks"]), {})[profile] = m
print("library default, priced on the independent loop's off-grid sizes (MAPE %)")
print(f"{'mode':10}{'ranks':>6}{'dnnperf':>9}{'hockney':>9}{'noise':>8}{'target':>8}  met")
for (mode, ranks), r in sorted(rows.items()):
    d, h = r.get("dnnperf"), r.get("hockney")
    noise = (d or h).get("run_to_run_noise")
    target = max(5.0, 1.5 * noise) if noise is not None else 5.0
    met = d is not None and h is not None and d["mape"] <= target and d["mape"] <= 0.5 * h["mape"]
    fmt = lambda m: f"{m['mape']:9.1f}" if m else f"{'-':>9}"
    print(f"{mode:10}{ranks:>6}{fmt(d)}{fmt(h)}{(noise if noise is not None else float('nan')):8.1f}{target:8.1f}  {'yes' if met else 'no'}")
EOF
