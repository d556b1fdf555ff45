#!/usr/bin/env bash
# Bad input at scale (docs/reliability.md, "Bad input at scale"): a million-layer network, JSON
# nested 10^5 deep, a sweep to 10^7 nodes, a profile with NaN, zero or negative bandwidths, a
# measurement file of 10^6 records, cyclic graphs (JSON and ONNX) and an ONNX file whose external
# data is missing. Each must end with the exit status and message named below, with at most 2 GB
# of memory; the seconds each took are printed (the docs quote them; machines are too noisy to
# assert them, so a 120 s limit only catches a hang).
#   tests/reliability/bad_input_at_scale.sh DNNPERF_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

# expect NAME STATUS PATTERN -- COMMAND...: the status, a line matching PATTERN, under 2 GB.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  local out rc
  out=$(timeout 120 /usr/bin/time -f "%e s %M KB" "$@" 2>&1)
  rc=$?
  local usage kb
  usage=$(tail -1 <<<"$out")
  kb=$(grep -o '[0-9]* KB' <<<"$usage" | grep -o '[0-9]*')
  if [ "$rc" = "$want" ] && grep -qE "$pattern" <<<"$out" && [ "${kb:-0}" -lt 2000000 ]; then
    echo "ok   $name: exit $rc, $usage"
  else
    echo "FAIL $name: exit $rc (want $want), $usage"
    grep -v "^Command exited" <<<"$out" | head -3
    fail=1
  fi
}

/usr/bin/python3 - "$dir" "$src" <<'PY'
import json, os, sys
out = sys.argv[1]
layers, prev = [], "x"
for i in range(10**6):
    layers.append({"name": f"l{i}", "op": "relu", "inputs": [prev]})
    prev = f"l{i}"
head = {"format": "dnnperf.network", "version": 1, "name": "million", "inputs": [{"name": "x", "shape": [1, 16], "dtype": "f32"}]}
json.dump(dict(head, layers=layers, output=prev), open(f"{out}/million.json", "w"))
open(f"{out}/nested.json", "w").write("[" * 100000 + "]" * 100000)
open(f"{out}/nested_field.json", "w").write('{"format": "dnnperf.hardware", "version": 1, "name": "deep", "device": ' + "[" * 100000 + "]" * 100000 + "}")
cycle = [{"name": "a", "op": "relu", "inputs": ["b"]}, {"name": "b", "op": "relu", "inputs": ["a"]}]
json.dump(dict(head, layers=cycle, output="b"), open(f"{out}/cycle.json", "w"))
profile = json.load(open(f"{sys.argv[2]}/data/hardware/a100-sxm4-80gb.json"))
for name, value in (("nan", "NaN"), ("zero", 0), ("negative", -1.0e12)):
    p = json.loads(json.dumps(profile))
    p["device"]["memory_bandwidth"] = value
    json.dump(p, open(f"{out}/bandwidth_{name}.json", "w"))
# A long MPI campaign: 10^6 all-reduce records, a grid of 20 sizes on 4 rank counts measured
# 12,500 times in one file (fit keeps each point's first record and says so in one line).
with open(f"{out}/million_records.jsonl", "w") as f:
    f.write(json.dumps({"type": "context", "schema": "dnnperf.measurements/1", "host": "h", "date": "2026-12-07T00:00:00Z",
                        "tool": "dnnperf", "libraries": {}}) + "\n")
    for i in range(10**6):
        size, ranks = 4 << (i % 20), 2 + (i // 20) % 4
        t = 2e-6 + size * 2.0 * (ranks - 1) / ranks / 5e9 * (1 + 0.01 * (i % 7))
        f.write(json.dumps({"type": "record", "op": "allreduce", "params": {"bytes": size}, "dtype": "f32", "algorithm": "mpi:default",
                            "layout": {"ranks": ranks, "nodes": 1, "ranks_per_node": ranks, "mode": "isolated"}, "library": "OpenMPI",
                            "library_version": "4.1", "host": "h", "date": "2026-12-07T00:00:00Z", "repetitions": 10,
                            "seconds": {"median": t, "min": t * 0.98, "max": t * 1.05, "stddev": t * 0.01}, "status": "ok", "verified": True},
                           separators=(",", ":")) + "\n")
# ONNX: a cycle, and weights in a side file that is not there.
import onnx
from onnx import TensorProto, helper
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="first"), helper.make_node("Relu", ["a"], ["b"], name="second"),
         helper.make_node("Relu", ["b"], ["y"], name="last")]
onnx.save(helper.make_model(helper.make_graph(nodes, "cycle", [x], [y]), opset_imports=[helper.make_opsetid("", 13)]), f"{out}/cycle.onnx")
model = onnx.load(f"{sys.argv[2]}/tests/fuzz/seeds/onnx/cnn_op13.onnx")
onnx.save(model, f"{out}/with_data.onnx")
onnx.save_model(model, f"{out}/external.onnx", save_as_external_data=True, all_tensors_to_one_file=True, location="external.onnx.data", size_threshold=0)
os.remove(f"{out}/external.onnx.data")
PY

expect million_layers 1 "field 'layers': 1000000 ops, more than the 262144 a network may hold" -- "$bin" net show "$dir/million.json"
expect nested_network 1 "nested.json: a network must be a JSON object" -- "$bin" net show "$dir/nested.json"
expect nested_profile 1 "nested_field.json: .*device" -- "$bin" predict -n resnet18 -b 8 --hardware "$dir/nested_field.json"
expect nodes_range 1 "beyond the 16777216 dnnperf prices" -- "$bin" scale -n resnet18 --hardware a100 -b 32 --nodes 1..10000000
expect nodes_points 1 "more than 10000 points" -- "$bin" scale -n resnet18 --hardware a100 -b 32 --nodes 1..10000000:1
expect nodes_predict 1 "nodes" -- "$bin" predict -n resnet18 --hardware a100 -b 32 --nodes 10000000
expect bandwidth_nan 1 "field 'memory_bandwidth' must be a number" -- "$bin" predict -n resnet18 -b 8 --hardware "$dir/bandwidth_nan.json"
expect bandwidth_zero 1 "field 'memory_bandwidth' must be positive, is 0" -- "$bin" predict -n resnet18 -b 8 --hardware "$dir/bandwidth_zero.json"
expect bandwidth_negative 1 "field 'memory_bandwidth' must be positive" -- "$bin" predict -n resnet18 -b 8 --hardware "$dir/bandwidth_negative.json"
expect million_records 0 "and 999919 more: measured again in the same file" -- "$bin" fit "$dir/million_records.jsonl" --hardware cpu --models hockney,dnnperf -o "$dir/fitted.json"
expect cycle_json 1 "cycle.json: the layers form a cycle" -- "$bin" net show "$dir/cycle.json"
expect cycle_onnx 1 "cycle.onnx: .*cycle" -- "$bin" net show "$dir/cycle.onnx"
# Weights in a missing side file: dnnperf needs only their shapes, so the network is the same.
with=$("$bin" net show "$dir/with_data.onnx" 2>&1 | grep -i "parameters")
expect external_data_missing 0 "$with" -- "$bin" net show "$dir/external.onnx"
exit $fail
