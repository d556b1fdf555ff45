#!/usr/bin/env bash
# Interrupted runs lose at most the record in flight, and --resume finishes them exactly: real MPI
# bench runs are stopped at random points (SIGINT and SIGTERM to mpirun, SIGTERM and SIGKILL to one
# rank), each file is checked line by line, resumed, and held against an uninterrupted run: the
# same measurements, none twice. A last line cut short (a writer killed mid-line) is dropped by
# --resume. A result written with -o and killed at random points is the old file or the new one,
# whole. The seed of the random points is printed; DNNPERF_KILL_SEED reruns a failure.
#   tests/reliability/kill_resume_test.sh DNNPERF_BINARY
set -u
bin=$1
source "$(dirname "$0")/../mpi_test_env.sh"
seed=${DNNPERF_KILL_SEED:-$$}
RANDOM=$seed
echo "seed $seed"

sizes=4,1K,4K,16K,64K
bench=("$bin" bench allreduce --mode isolated --algorithms mpi,ring,recursive_doubling --sizes "$sizes" --quiet)

# check FILE [REFERENCE]: every line but a last one cut short is whole JSON; records are ok,
# verified and not repeated; with REFERENCE, the same measurements as it.
check_file() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
def read(path, allow_cut_last):
    lines = open(path, "rb").read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    else:
        assert allow_cut_last, f"{path}: the file does not end with a whole line"
        lines.pop()  # cut short by the kill: --resume drops it
    recs = []
    for i, line in enumerate(lines):
        j = json.loads(line)  # raises on a broken line in the middle
        if j["type"] == "record":
            recs.append(j)
    return recs
def key(r):
    return (r["op"], r["algorithm"], r["layout"].get("mode"), json.dumps(r["params"], sort_keys=True))
recs = read(sys.argv[1], len(sys.argv) == 2)
keys = [key(r) for r in recs]
assert len(set(keys)) == len(keys), "a measurement twice"
assert all(r["status"] == "ok" and r.get("verified") for r in recs), "a record not ok"
if len(sys.argv) > 2:
    ref = {key(r) for r in read(sys.argv[2], False)}
    assert set(keys) == ref, f"{len(set(keys) - ref)} extra, {len(ref - set(keys))} missing"
print(len(recs))
PY
}

ref=$dir/reference.jsonl
timeout 300 "$mpirun" -np 2 "${bench[@]}" -o "$ref" 2>/dev/null
total=$(check_file "$ref" "$ref") && [ "$total" = 15 ] && ok "uninterrupted run: $total records" || bad "uninterrupted run ($total)"

# stop HOW FILE: starts the run, waits until it has written a random 1-12 of its 15 records and
# a random 0-400 ms more (into the next measurement), then stops it HOW.
stop() {
  local how=$1 f=$2
  timeout 300 "$mpirun" -np 2 "${bench[@]}" -o "$f" 2>/dev/null &
  local job=$!
  local target=$((1 + RANDOM % 12)) polls=0
  while kill -0 "$job" 2>/dev/null && [ $polls -lt 3000 ]; do
    [ -f "$f" ] && [ "$(grep -c '"type":"record"' "$f")" -ge "$target" ] && break
    sleep 0.05
    polls=$((polls + 1))
  done
  sleep "0.$(printf %03d $((RANDOM % 400)))"
  case $how in
    mpirun-int) pkill -INT -f "^$mpirun -np 2 $bin bench" || pkill -INT -x mpirun ;;
    mpirun-term) pkill -TERM -f "^$mpirun -np 2 $bin bench" || pkill -TERM -x mpirun ;;
    rank-term) pkill -TERM -n -f "^$bin bench allreduce" ;;
    rank-kill) pkill -KILL -n -f "^$bin bench allreduce" ;;
  esac
  local waited=0
  while kill -0 "$job" 2>/dev/null && [ $waited -lt 600 ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "$job" 2>/dev/null; then
    pkill -KILL -f "$bin bench" ; echo "hang"; return
  fi
  wait "$job"
  echo "rc $?"
}

for how in mpirun-int mpirun-term rank-term rank-kill; do
  f=$dir/$how.jsonl
  result=$(stop "$how" "$f")
  if [ "$result" = hang ]; then bad "$how: the job did not end within 60 s"; continue; fi
  kept=$(check_file "$f") || { bad "$how: the file left is broken"; continue; }
  [ "$kept" -lt 15 ] || { bad "$how: the run ended before it was stopped"; continue; }
  timeout 300 "$mpirun" -np 2 "${bench[@]}" -o "$f" --resume 2>/dev/null
  resumed=$(check_file "$f" "$ref") && ok "$how ($result): $kept records kept, resumed to $resumed, as uninterrupted" \
    || bad "$how: after --resume the file is not the uninterrupted run's ($resumed)"
done

# A writer killed in the middle of a line: --resume drops the half line and measures it again.
f=$dir/cut.jsonl
head -n 6 "$ref" > "$f"
sed -n 7p "$ref" | head -c 100 >> "$f"
timeout 300 "$mpirun" -np 2 "${bench[@]}" -o "$f" --resume 2>/dev/null
resumed=$(check_file "$f" "$ref") && ok "a last line cut short: dropped and measured again ($resumed records)" || bad "cut last line ($resumed)"

# A result file written with -o: killed at random points, it is the old file or a new one, whole.
records_file="$(dirname "$0")/../data/mpi-modes/allreduce_np2_modes.jsonl"
profile=$dir/profile.json
cp "$(dirname "$0")/../../data/hardware/cpu-generic.json" "$profile"
started=$(date +%s%N)
"$bin" fit "$records_file" --hardware cpu -o "$dir/fresh.json" >/dev/null 2>&1
fit_ms=$((($(date +%s%N) - started) / 1000000))
whole=0 replaced=0
for _ in 1 2 3 4 5 6 7 8; do
  before=$(md5sum < "$profile")
  "$bin" fit "$records_file" --hardware cpu -o "$profile" >/dev/null 2>&1 &
  job=$!
  ms=$((fit_ms * (30 + RANDOM % 120) / 100))
  sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
  kill -KILL "$job" 2>/dev/null
  wait "$job" 2>/dev/null
  if [ "$(md5sum < "$profile")" = "$before" ]; then
    whole=$((whole + 1))
  elif /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["sources"]["communication"].startswith("fitted by")' "$profile" 2>/dev/null; then
    whole=$((whole + 1)) replaced=$((replaced + 1))
  fi
done
[ $whole = 8 ] && ok "fit -o killed at 8 random points: the old profile or the new one, whole ($replaced replaced)" || bad "fit -o killed: $((8 - whole)) of 8 broken"
exit $fail
