#!/usr/bin/python3
"""scripts/step_vs_isolated.py places a step's convolutions between their cold and hot times: a
step profile and isolated timings written here, with the shares worked out by hand; a shape that
several timed kernels match (strides the profiler does not record) and one never timed are left
out and named; files that are missing or hold no cold convolution are named."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "step_vs_isolated.py")


def conv_params(c, k, h, r, stride=1):
    return {"n": 4, "c": c, "h": h, "w": h, "k": k, "r": r, "s": r, "pad_h": r // 2, "pad_w": r // 2,
            "stride_h": stride, "stride_w": stride, "dilation_h": 1, "dilation_w": 1, "groups": 1}


def record(op, params, seconds, caches):
    return {"type": "record", "op": op, "params": params, "status": "ok", "seconds": {"median": seconds},
            "layout": {"device": "cpu", "caches": caches, "hot_pair": True}}


def profiled(op, shapes, calls, seconds):
    return {"op": op, "input_shapes": shapes + [[], []], "calls_per_step": calls, "self_cpu_s_per_call": seconds}


def run(*args):
    return subprocess.run(["/usr/bin/python3", script, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    step = os.path.join(tmp, "step")
    os.mkdir(step)
    x, w = [4, 64, 16, 16], [64, 64, 3, 3]
    with open(os.path.join(step, "ops_by_shape.json"), "w") as f:
        json.dump([
            profiled("aten::mkldnn_convolution", [x, w], 2, 0.8e-3),
            profiled("aten::convolution_backward", [x, x, w], 2, 1.4e-3),
            # stride 1 and 2 were both timed: the profiler's shapes cannot tell them apart
            profiled("aten::mkldnn_convolution", [x, [32, 64, 3, 3]], 1, 0.5e-3),
            # never timed alone
            profiled("aten::mkldnn_convolution", [x, [16, 64, 5, 5]], 1, 0.5e-3),
            profiled("aten::relu_", [x], 4, 1e-5),
        ], f)
    p, wide = conv_params(64, 64, 16, 3), conv_params(64, 32, 16, 3)
    isolated = os.path.join(tmp, "isolated.jsonl")
    with open(isolated, "w") as f:
        for r in (record("conv_forward", p, 1.0e-3, "cold"), record("conv_forward", p, 0.6e-3, "hot"),
                  record("conv_backward_data", p, 0.9e-3, "cold"), record("conv_backward_data", p, 0.5e-3, "hot"),
                  record("conv_backward_filter", p, 0.8e-3, "cold"), record("conv_backward_filter", p, 0.5e-3, "hot"),
                  record("conv_forward", wide, 0.4e-3, "cold"), record("conv_forward", conv_params(64, 32, 16, 3, 2), 0.2e-3, "cold")):
            f.write(json.dumps(r) + "\n")
    out = os.path.join(tmp, "summary.json")
    r = run(step, isolated, "--json", out)
    check("runs", r.returncode == 0, r.stdout + r.stderr)
    summary = json.load(open(out)) if r.returncode == 0 else {"kernels": [], "sums": {}, "ambiguous": [], "not_timed": []}
    rows = {k["direction"]: k for k in summary["kernels"]}
    check("two_rows", sorted(rows) == ["backward", "forward"], str(summary["kernels"]))
    fwd, bwd = rows.get("forward", {}), rows.get("backward", {})
    # forward: (1.0 - 0.8) / (1.0 - 0.6); backward: both directions of one call, (1.7 - 1.4) / (1.7 - 1.0)
    check("forward_share", abs(fwd.get("share_of_hot_saving", 0) - 0.5) < 1e-9, str(fwd))
    check("backward_sums_directions", abs(bwd.get("cold_s", 0) - 1.7e-3) < 1e-12 and abs(bwd.get("hot_s", 0) - 1.0e-3) < 1e-12, str(bwd))
    check("backward_share", abs(bwd.get("share_of_hot_saving", 0) - 0.3 / 0.7) < 1e-9, str(bwd))
    total = summary["sums"].get("forward all", {})
    check("sums_weighted_by_calls", abs(total.get("in_step_s", 0) - 1.6e-3) < 1e-12 and abs(total.get("step_over_cold", 0) - 0.8) < 1e-9, str(total))
    check("ambiguous_named", len(summary["ambiguous"]) == 1 and "[32, 64, 3, 3]" in summary["ambiguous"][0], str(summary["ambiguous"]))
    check("untimed_named", len(summary["not_timed"]) == 1 and "[16, 64, 5, 5]" in summary["not_timed"][0]
          and "not timed alone" in r.stderr, str(summary["not_timed"]) + r.stderr)

    r = run(os.path.join(tmp, "nowhere"), isolated)
    check("missing_step_named", r.returncode != 0 and "nowhere/ops_by_shape.json" in r.stderr and "torch_profile_step" in r.stderr, r.stderr)
    r = run(step, os.path.join(tmp, "absent.jsonl"))
    check("missing_isolated_named", r.returncode != 0 and "absent.jsonl: no such file" in r.stderr, r.stderr)
    warm_only = os.path.join(tmp, "warm.jsonl")
    with open(warm_only, "w") as f:
        f.write(json.dumps(dict(record("conv_forward", p, 1e-3, "cold"), layout={"device": "cpu"})) + "\n")
    r = run(step, warm_only)
    check("no_cold_named", r.returncode != 0 and "warm.jsonl: no convolution timed with cold caches" in r.stderr, r.stderr)
    other = os.path.join(tmp, "other.jsonl")
    with open(other, "w") as f:
        f.write(json.dumps(record("conv_forward", conv_params(3, 8, 32, 3), 1e-3, "cold")) + "\n")
    r = run(step, other)
    check("nothing_matched_named", r.returncode != 0 and "no convolution of" in r.stderr, r.stderr)
    broken = os.path.join(tmp, "broken.jsonl")
    with open(broken, "w") as f:
        f.write("{not json\n")
    r = run(step, broken)
    check("bad_line_named", r.returncode != 0 and "broken.jsonl:1: not valid JSON" in r.stderr, r.stderr)

finish()
