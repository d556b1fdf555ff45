#!/usr/bin/env bash
# Sanity of the MPI measurements on this machine: (1) MPI_Allreduce medians of repeated runs agree
# within 10% for messages >= 64 KiB; (2) dnnperf's ring and OpenMPI's forced ring agree within 25%
# at >= 1 MiB. Prints a table and exits non-zero if a check fails.
#   NP=2 RUNS=3 scripts/mpi_sanity.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
np=${NP:-2}
runs=${RUNS:-3}
sizes=64K,256K,1M,4M,16M
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for i in $(seq "$runs"); do
  mpirun --oversubscribe -np "$np" build/bin/dnnperf bench allreduce --algorithms mpi --sizes $sizes -o "$out/default$i.jsonl" --quiet 2>/dev/null
done
mpirun --oversubscribe -np "$np" build/bin/dnnperf bench allreduce --algorithms mpi --mpi-algorithm ring --sizes $sizes -o "$out/ompi_ring.jsonl" --quiet 2>/dev/null
mpirun --oversubscribe -np "$np" build/bin/dnnperf bench allreduce --algorithms ring --sizes $sizes -o "$out/dnnperf_ring.jsonl" --quiet 2>/dev/null
/usr/bin/python3 - "$out" "$runs" "$np" <<'PY'
import json, sys
out, runs, np_ = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def medians(path):
    return {j["params"]["bytes"]: j["seconds"]["median"] for j in map(json.loads, open(path)) if j["type"] == "record" and j["status"] == "ok"}
runs_ = [medians(f"{out}/default{i}.jsonl") for i in range(1, runs + 1)]
ompi, own = medians(f"{out}/ompi_ring.jsonl"), medians(f"{out}/dnnperf_ring.jsonl")
ok = True
print(f"{np_} ranks; MPI_Allreduce medians over {runs} runs, and rings")
print(f"{'bytes':>10} {'min us':>9} {'max us':>9} {'spread %':>9} {'ompi ring us':>13} {'dnnperf ring us':>16} {'diff %':>7}")
for b in sorted(runs_[0]):
    m = [r[b] for r in runs_]
    spread = 100 * (max(m) - min(m)) / min(m)
    diff = 100 * abs(own[b] - ompi[b]) / ompi[b]
    ok &= spread <= 10
    if b >= 1 << 20: ok &= diff <= 25
    print(f"{b:>10} {1e6*min(m):>9.1f} {1e6*max(m):>9.1f} {spread:>9.1f} {1e6*ompi[b]:>13.1f} {1e6*own[b]:>16.1f} {diff:>7.1f}")
print("checks:", "pass" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
