#!/usr/bin/env bash
# The MPI benchmarks for real: 2-4 local ranks (oversubscribed), every result verified, forced
# OpenMPI algorithms, resume, refusal to overwrite, bad input, and a rank killed mid-run.
set -u
bin=$1
source "$(dirname "$0")/../mpi_test_env.sh"
# all_ok FILE COUNT: COUNT records, all ok and verified, keys unique
all_ok() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
recs = [j for j in map(json.loads, open(sys.argv[1])) if j["type"] == "record"]
keys = {(r["op"], r["algorithm"], r["layout"].get("mode"), json.dumps(r["params"], sort_keys=True)) for r in recs}
bad = [r for r in recs if r["status"] != "ok" or not r.get("verified")]
assert len(recs) == int(sys.argv[2]), f"{len(recs)} records, expected {sys.argv[2]}"
assert not bad, bad
assert len(keys) == len(recs), "duplicate records"
assert all(r["seconds"]["min"] <= r["seconds"]["median"] <= r["seconds"]["max"] for r in recs)
PY
}

for np in 2 3 4; do
  f=$dir/allreduce$np.jsonl
  timeout 300 "$mpirun" -np $np "$bin" bench allreduce --mode isolated --sizes 4,100,4K,64K,1M -o "$f" --quiet 2>/dev/null \
    && all_ok "$f" 30 && ok "allreduce, all algorithms, $np ranks" || bad "allreduce $np ranks"
done
# The run names its CPU, and the C++ reader (records/machine.cc) and the PyTorch
# backend's (scripts/dnnperf_py/machine.py) describe it alike: fit compares the two.
/usr/bin/python3 - "$dir/allreduce2.jsonl" "$(dirname "$0")/../../scripts" <<'PY' && ok "the context names the CPU as the PyTorch backend does" || bad "context cpu"
import json, sys
sys.path.insert(0, sys.argv[2])
from dnnperf_py import machine
context = json.loads(open(sys.argv[1]).readline())
cpu, here = context["cpu"], machine.cpu()
cpu.pop("logical_cpus"); here.pop("logical_cpus")  # mpirun may bind a rank to fewer
assert cpu == here, (cpu, here)
assert "family" in cpu and "isa" in cpu, cpu
PY
for op in allgather reduce-scatter alltoall bcast p2p; do
  f=$dir/$op.jsonl
  # Collectives in both modes by default; a ping-pong is isolated only.
  count=6; [ $op = p2p ] && count=3
  timeout 120 "$mpirun" -np 2 "$bin" bench $op --sizes 8,4K,1M -o "$f" --quiet 2>/dev/null && all_ok "$f" $count && ok "$op" || bad "$op"
done

# Both modes by default: each point once isolated (one call a span) and once in a stream (a burst).
f=$dir/modes.jsonl
timeout 120 "$mpirun" -np 2 "$bin" bench allreduce --algorithms mpi,ring --sizes 4,64K -o "$f" --quiet 2>/dev/null && all_ok "$f" 8 &&
  /usr/bin/python3 - "$f" <<'PY' && ok "isolated and stream records, each naming its mode" || bad "modes"
import json, sys
recs = [j for j in map(json.loads, open(sys.argv[1])) if j["type"] == "record"]
by_mode = {m: [r for r in recs if r["layout"]["mode"] == m] for m in ("isolated", "stream")}
assert len(by_mode["isolated"]) == 4 and len(by_mode["stream"]) == 4, {m: len(v) for m, v in by_mode.items()}
assert all(r["metrics"]["calls_per_span"] == 1 for r in by_mode["isolated"])
assert all(4 <= r["metrics"]["calls_per_span"] <= 1000 for r in by_mode["stream"])
PY
out=$(timeout 60 "$mpirun" -np 2 "$bin" bench allreduce --mode burst -o "$dir/m.jsonl" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "'burst' is neither isolated nor stream" <<<"$out" && ok "unknown mode" || bad "unknown mode (rc=$rc)"
out=$(timeout 60 "$mpirun" -np 2 "$bin" bench p2p --mode stream -o "$dir/p.jsonl" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "ping-pong only" <<<"$out" && ok "p2p has no stream mode" || bad "p2p stream (rc=$rc)"

# The independent loop (validation/mpi/allreduce_loop.cc): records in the format, both modes.
loop_bin=$(dirname "$bin")/dnnperf-allreduce-loop
for mode in isolated stream; do
  timeout 60 "$mpirun" -np 2 "$loop_bin" --sizes 12,4000,300000 --mode $mode --target-s 0.02 >"$dir/loop_$mode.jsonl" 2>/dev/null &&
    /usr/bin/python3 - "$dir/loop_$mode.jsonl" "$mode" <<'PY' && ok "allreduce loop, $mode" || bad "allreduce loop $mode"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["type"] == "context", lines[0]
recs = lines[1:]
assert [r["params"]["bytes"] for r in recs] == [12, 4000, 300000], recs
assert all(r["layout"]["mode"] == sys.argv[2] and r["layout"]["ranks"] == 2 and r["layout"]["mpi_threads"] == "single" for r in recs)
assert all(0 < r["seconds"]["min"] <= r["seconds"]["median"] <= r["seconds"]["max"] for r in recs)
assert all((r["metrics"]["calls_per_span"] >= 4) == (sys.argv[2] == "stream") for r in recs)
PY
done
out=$(timeout 60 "$mpirun" -np 2 "$loop_bin" --sizes 10 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "multiple of 4" <<<"$out" && ok "loop refuses a size that is not whole floats" || bad "loop bad size (rc=$rc)"
# bench at another MPI thread level says so in its records.
f=$dir/threads.jsonl
timeout 60 "$mpirun" -np 2 "$bin" bench allreduce --algorithms mpi --mode isolated --mpi-threads funneled --sizes 64 -o "$f" --quiet 2>/dev/null &&
  grep -q '"mpi_threads":"funneled"' "$f" && ok "the MPI thread level is recorded" || bad "thread level"

f=$dir/forced.jsonl
timeout 120 "$mpirun" -np 2 "$bin" bench allreduce --mpi-algorithm ring --algorithms mpi --sizes 64K -o "$f" --quiet 2>/dev/null \
  && grep -q '"algorithm":"mpi:ring"' "$f" && ok "forced OpenMPI algorithm is recorded" || bad "forced algorithm"

# A budget stops the run cleanly; --resume finishes it without measuring anything twice.
f=$dir/resume.jsonl
timeout 120 "$mpirun" -np 2 "$bin" bench allreduce --mode isolated --sizes 4,1K,4K,16K,64K,256K,1M,4M --time-budget 0.3 -o "$f" --quiet 2>/dev/null
first=$(grep -c '"type":"record"' "$f")
timeout 300 "$mpirun" -np 2 "$bin" bench allreduce --mode isolated --sizes 4,1K,4K,16K,64K,256K,1M,4M --resume -o "$f" --quiet 2>/dev/null
[ "$first" -lt 48 ] && all_ok "$f" 48 && ok "budget then resume ($first records, then all 48)" || bad "resume ($first first)"

before=$(md5sum < "$f")
out=$(timeout 60 "$mpirun" -np 2 "$bin" bench allreduce --sizes 4 -o "$f" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "exists already" <<<"$out" && [ "$(md5sum < "$f")" = "$before" ] && ok "refuses to overwrite" || bad "overwrite (rc=$rc)"

out=$(timeout 60 "$mpirun" -np 2 "$bin" bench allreduce --algorithms bruck -o "$dir/x.jsonl" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "'bruck' is not an algorithm of allreduce" <<<"$out" && ok "unknown algorithm" || bad "unknown algorithm (rc=$rc)"
out=$(timeout 60 "$mpirun" -np 2 "$bin" bench allreduce --mpi-algorithm fastest -o "$dir/y.jsonl" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "OpenMPI has no allreduce algorithm 'fastest'" <<<"$out" && ok "unknown OpenMPI algorithm" || bad "unknown OpenMPI algorithm (rc=$rc)"
out=$(timeout 60 "$mpirun" -np 2 "$bin" bench allreduce --sizes 0 -o "$dir/z.jsonl" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "not a positive size" <<<"$out" && ok "bad size" || bad "bad size (rc=$rc)"
out=$(timeout 60 "$mpirun" -np 2 "$bin" bench allreduce --sizes 1TiB -o "$dir/t.jsonl" 2>&1); rc=$?
[ $rc -ne 0 ] && ok "unknown size suffix" || bad "size suffix (rc=$rc)"

# A rank killed in the middle: the job ends (no hang) and the file keeps its complete records.
f=$dir/killed.jsonl
timeout 120 "$mpirun" -np 2 "$bin" bench allreduce --sizes 4,1K,4K,16K,64K,256K,1M,4M,16M,64M -o "$f" --quiet 2>/dev/null &
job=$!
for _ in $(seq 100); do
  [ -f "$f" ] && [ "$(grep -c '"type":"record"' "$f")" -ge 3 ] && break
  sleep 0.1
done
pkill -9 -n -f "dnnperf bench allreduce --sizes 4,1K,4K,16K,64K,256K,1M,4M,16M,64M" || true
wait $job; rc=$?
kept=$(grep -c '"type":"record"' "$f")
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$kept" -ge 3 ] && all_ok "$f" "$kept"; then ok "killed rank: job stopped, $kept records kept"; else bad "killed rank (rc=$rc, kept=$kept)"; fi
exit $fail
