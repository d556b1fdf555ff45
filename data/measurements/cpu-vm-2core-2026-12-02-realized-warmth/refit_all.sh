#!/bin/bash
# refit_all.sh: refits each calibration of 2026-12-02 that kept composition steps and validation
# runs, from its own files with this build (the realized warmth share fitted on its steps), and
# prices its saved runs at that share and at 1 (the pairs' full savings): no runs, ~1 min each.
# Run from the repository root after building. Writes CALIBRATION/fit.log, fitted.json and
# summary.txt here.
set -uo pipefail
HERE=data/measurements/cpu-vm-2core-2026-12-02-realized-warmth
B=${DNNPERF:-build/bin/dnnperf}
W=$(mktemp -d)
/usr/bin/python3 scripts/export_onnx.py --skip-existing "$W/networks" composition > /dev/null  # the composition steps' networks
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
: > $HERE/summary.txt
for name in late allocator calibrate-grid family25 calibrate-busy; do
  F=data/measurements/cpu-vm-2core-2026-12-02-$name; O=$HERE/$name; mkdir -p $O $W/$name
  if ! $B fit $F/*.jsonl --hardware cpu --steps $F/steps --step-networks $W/networks -o $O/fitted.json > $O/fit.log 2>&1; then
    echo "$name: fit failed (see $O/fit.log)" | tee -a $HERE/summary.txt; continue
  fi
  /usr/bin/python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); d['device']['step_warmth']['realized_share'] = 1.0; json.dump(d, open(sys.argv[2], 'w'))" $O/fitted.json $W/$name/share1.json
  for P in $W/$name/share1.json $O/fitted.json; do
    v=$(basename $P .json)
    for set in $F $F/repeat; do
      [ -d $set/ground_truth ] || continue; s=$(basename $set); [ $s = repeat ] || s=first
      $B validate --hardware $P --networks $NETS --batch 4,16,32 --input 64 --iterations 3 --json --measured $set/ground_truth > $W/$name/${v}_train_$s.json 2>/dev/null
      $B validate --hardware $P --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 --json --measured $set/ground_truth > $W/$name/${v}_inception-train_$s.json 2>/dev/null
      if [ -d $set/ground_truth_inference ]; then
        $B validate --hardware $P --networks $NETS --batch 4,16,32 --input 64 --iterations 3 --inference --json --measured $set/ground_truth_inference > $W/$name/${v}_inference_$s.json 2>/dev/null
        $B validate --hardware $P --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 --inference --json --measured $set/ground_truth_inference > $W/$name/${v}_inception-inference_$s.json 2>/dev/null
      fi
    done
  done
  { echo "$name: $(grep 'warmth realized' $O/fit.log | sed 's/ (data[^)]*)//')"
    /usr/bin/python3 - $W/$name <<'PY'
import glob, json, os, sys
W = sys.argv[1]
def stats(path):
    try:
        cases = [c for c in json.load(open(path))["cases"] if c.get("status") == "ok"]
    except (OSError, ValueError, KeyError):
        return None
    return (sum(abs(c["error_percent"]) for c in cases) / len(cases), sum(bool(c["inside_interval"]) for c in cases), len(cases)) if cases else None
for path in sorted(glob.glob(W + "/share1_*.json")):
    case = os.path.basename(path)[len("share1_"):-5]
    a, b = stats(path), stats(f"{W}/fitted_{case}.json")
    if a and b:
        print("  %-32s MAPE %5.1f -> %5.1f%%   inside 95%%: %2d -> %2d of %d" % (case, a[0], b[0], a[1], b[1], a[2]))
PY
  } | tee -a $HERE/summary.txt
done
rm -rf "$W"
