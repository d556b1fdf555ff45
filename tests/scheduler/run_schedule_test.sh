#!/usr/bin/env bash
# Executes a schedule for real (scripts/run_schedule_torch.py) on this machine's CPU, both platform
# devices mapped to it: every method's output must equal a plain CPU run, and the result file must
# hold a measured latency per method. (Predicted and measured latencies are compared only on a
# machine with the platform's GPU: scripts/gpu_schedule_check.sh.)
set -eu
bin=$1
src=$2
onnx=$3/resnet18_eval_op17.onnx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" schedule -n "$onnx" --batch 2 --platform "$src/data/platforms/h200-host.json" --method single,heft,split --time-limit 5 -o "$tmp/s.json" >/dev/null
/usr/bin/python3 "$src/scripts/run_schedule_torch.py" --bundle "$onnx" "$tmp/m.pt" >/dev/null
/usr/bin/python3 "$src/scripts/run_schedule_torch.py" --onnx "$tmp/m.pt" --schedule "$tmp/s.json" --devices cpu=cpu,h200=cpu \
  --methods single,heft,split --repeats 3 --warmup 1 -o "$tmp/r.json"
/usr/bin/python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [x["method"] for x in r["results"]] == ["single", "heft", "split"], r
for x in r["results"]:
    assert "error" not in x, x
    assert x["median_s"] > 0 and x["predicted_s"] > 0 and x["max_relative_output_error"] < 1e-3, x
print("ok: three schedules executed, outputs equal to the CPU reference")
PY
