#!/usr/bin/python3
"""DenseNet-121's forward convolutions at batch 4, 64x64, four ways, summed per kernel size:
predict's per-layer time (warmth and the framework's per-op time included), the same kernels priced
cold (`dnnperf score --points`), timed alone cold (torch_bench.py --cold) and inside a real inference
(torch_profile_step.py --inference). Run from the repository root:

    D=data/measurements/cpu-vm-2core-2026-12-02-realized-warmth/densenet121_b4_inference
    P=data/measurements/cpu-vm-2core-2026-12-02-bn-inference/refit_with.json
    build/bin/dnnperf score --hardware $P $D/torch_cpu_exact_densenet121.jsonl --points $D/exact_priced.csv
    /usr/bin/python3 $D/instep_vs_priced.py $D $P
"""
import csv
import json
import subprocess
import sys
from collections import defaultdict

folder, profile = sys.argv[1], sys.argv[2]
priced, alone = {}, {}
for r in csv.DictReader(open(f"{folder}/exact_priced.csv")):
    if r["class"] == "conv_forward":
        p = json.loads(r["params"])
        key = (p["n"], p["c"], p["h"], p["k"], p["r"], p["stride_h"], p["groups"])
        priced[key], alone[key] = float(r["predicted_s"]), float(r["measured_s"])
in_step = defaultdict(float)
for r in json.load(open(f"{folder}/ops_by_shape.json")):
    if r["op"] in ("aten::_slow_conv2d_forward", "aten::mkldnn_convolution"):
        x, w = r["input_shapes"][0], r["input_shapes"][1]
        in_step[(x[0], x[1], x[2], w[0], w[2])] += r["self_cpu_s_per_call"]
run = lambda *a: json.loads(subprocess.check_output(["build/bin/dnnperf", *a]))
layers = run("predict", "--hardware", profile, "-n", "densenet121", "-b", "4", "--input", "64", "--gpus-per-node", "1", "--json", "--inference")["layers"]
shapes = {l["name"]: l for l in run("net", "show", "densenet121", "--input", "64", "-b", "4", "--json")["layers"]}
host = json.load(open(profile))["device"].get("host_op_s", {}).get("conv2d", {}).get("forward", 0.0)
total = defaultdict(lambda: [0.0] * 5)
for l in layers:
    if l["op"] != "conv2d":
        continue
    n, k, p, _ = shapes[l["name"]]["output_shape"]
    crs = shapes[l["name"]]["params"] // k
    match = [s for s in priced if s[0] == n and s[3] == k and (s[1] // s[6]) * s[4] * s[4] == crs and (s[2] + 2 * (s[4] // 2) - s[4]) // s[5] + 1 == p]
    if len(match) != 1:
        continue
    s = match[0]
    t = total["%dx%d" % (s[4], s[4])]
    t[0] += l["forward_s"] - host
    t[1] += priced[s]
    t[2] += alone[s]
    t[3] += in_step.get(s[:5], float("nan"))
    t[4] += 1
print("per kernel size: predict's warm price (less the framework's per-op time) / priced cold; in the step / timed alone cold")
for size, (warm, cold, measured_cold, measured_step, count) in sorted(total.items()):
    print(f"{size}: {int(count):3d} layers  priced {1e3 * warm:6.2f} of {1e3 * cold:6.2f} ms cold ({warm / cold:.2f})   "
          f"ran {1e3 * measured_step:6.2f} in the step of {1e3 * measured_cold:6.2f} ms alone ({measured_step / measured_cold:.2f})")
