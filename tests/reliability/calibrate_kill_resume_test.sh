#!/usr/bin/env bash
# A killed calibration loses at most the record in flight, leaves no step running, never touches
# the profile it was to write, and the same command resumes it: a small calibration
# (tiny_calibration.json, ~1 min here) is stopped at random points by SIGINT, SIGTERM and SIGKILL
# to dnnperf and by SIGKILL to the measuring Python process, each time resumed by the same
# command; then it runs to the end. Checked after every stop: every line of every measurement file
# is whole JSON but a last one cut short, no kernel is measured twice, no step process is left, the
# old profile at -o is byte for byte what it was (or, signalled as it was renamed, the new one whole). At the end: the files hold every line they held
# at each stop (they only grow), still nothing twice, and the profile written prices a network.
# The seed of the random points is printed; DNNPERF_KILL_SEED reruns a failure.
#   tests/reliability/calibrate_kill_resume_test.sh DNNPERF_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
seed=${DNNPERF_KILL_SEED:-$$}
RANDOM=$seed
echo "seed $seed"
work=$(mktemp -d)
trap 'pkill -KILL -f "$work" 2>/dev/null; rm -rf "$work"' EXIT
plan=$src/tests/reliability/tiny_calibration.json
out=$work/profile.json
cp "$src/data/hardware/cpu-generic.json" "$out"
cp "$out" "$work/old_profile.json"
fail=0
calibrate=("$bin" calibrate --plan "$plan" --time-budget 60 -o "$out")

# check_files LABEL: whole lines (a last one may be cut short), no record twice, and each earlier
# snapshot's whole lines a prefix of the file now; then snapshots the files.
check_files() {
  /usr/bin/python3 - "$1" "$work/profile.calibration" "$work/snapshots" <<'PY' || fail=1
import glob, json, os, shutil, sys
label, folder, snapshots = sys.argv[1:]
def whole(path):
    data = open(path, "rb").read()
    return data[:data.rfind(b"\n") + 1]
bad = []
for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
    keys = set()
    for i, line in enumerate(whole(path).split(b"\n")[:-1], 1):
        try:
            r = json.loads(line)
        except ValueError:
            bad.append(f"{path}:{i}: not whole JSON")
            continue
        if r.get("type") != "record":
            continue
        k = (r["op"], r.get("algorithm"), r.get("dtype"), json.dumps(r["params"], sort_keys=True), json.dumps(r.get("layout"), sort_keys=True))
        if k in keys:
            bad.append(f"{path}:{i}: measured twice: {k}")
        keys.add(k)
    for snap in sorted(glob.glob(os.path.join(snapshots, "*", os.path.basename(path)))):
        if not whole(path).startswith(open(snap, "rb").read()):
            bad.append(f"{path}: lost lines it held at {snap}")
os.makedirs(os.path.join(snapshots, label), exist_ok=True)
for path in glob.glob(os.path.join(folder, "*.jsonl")):
    open(os.path.join(snapshots, label, os.path.basename(path)), "wb").write(whole(path))
for b in bad:
    print("  " + b)
print(("FAIL" if bad else "ok  ") + f" files after {label}")
sys.exit(1 if bad else 0)
PY
}

# no_step_left LABEL: within 10 s, no process of this calibration runs.
no_step_left() {
  for _ in $(seq 20); do
    pgrep -f "$work/profile" >/dev/null || { echo "ok   no process left after $1"; return; }
    sleep 0.5
  done
  echo "FAIL processes left after $1:"; pgrep -fa "$work/profile"; fail=1
}

for how in INT TERM KILL step-KILL INT; do
  "${calibrate[@]}" > "$work/log" 2>&1 &
  pid=$!
  delay=$((2 + RANDOM % 30))
  sleep "$delay"
  if [ "$how" = step-KILL ]; then
    pkill -KILL -f "python3.*$work/profile" || kill -KILL "$pid"
  else
    kill -"$how" "$pid"
  fi
  wait "$pid"
  status=$?
  label="$how-after-${delay}s"
  echo "     $label: calibrate exited $status ($(grep -c . "$work/log") lines of log)"
  if [ "$status" = 0 ]; then
    echo "     (it had finished before the signal)"
    cp "$out" "$work/old_profile.json"
  fi
  no_step_left "$label"
  if cmp -s "$out" "$work/old_profile.json"; then
    echo "ok   profile untouched after $label"
  elif "$bin" predict -n resnet18 -b 2 --input 32 --hardware "$out" --summary >/dev/null 2>&1; then
    echo "ok   profile replaced whole after $label (the signal came as it was renamed into place)"
    cp "$out" "$work/old_profile.json"
  else
    echo "FAIL profile changed and not whole after $label"; fail=1
  fi
  check_files "$label"
done

"${calibrate[@]}" > "$work/log" 2>&1
status=$?
[ "$status" = 0 ] && echo "ok   resumed to the end" || { echo "FAIL the resumed calibration exited $status"; tail -5 "$work/log"; fail=1; }
check_files end
"$bin" predict -n resnet18 -b 2 --input 32 --hardware "$out" --summary >/dev/null && echo "ok   the profile written prices a network" \
  || { echo "FAIL the profile written does not price a network"; fail=1; }
[ "$fail" = 0 ] && echo "calibrate kill and resume: all passed" || echo "calibrate kill and resume: FAILED (seed $seed)"
exit "$fail"
