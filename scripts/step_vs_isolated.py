#!/usr/bin/python3
"""How much faster a network's convolutions run inside its training step than timed alone.

Calibration times every convolution from evicted caches (`torch_bench.py --cold`), and with
`--hot-pairs` once more back to back; inside a step a kernel sits somewhere between the two,
depending on what the step left in the caches. dnnperf's step warmth (docs/models/fitting-notes.md) predicts
where. This script measures where, for one network in one session:

    /usr/bin/python3 scripts/torch_profile_step.py --network resnet18 --batch 4 --input 64 --steps 5 --threads 1 -o r18
    build/bin/dnnperf calibrate --device cpu --networks resnet18 --batch 4 --input 64 ...   # or:
    /usr/bin/python3 scripts/torch_bench.py --kernels r18_kernels.json --cold --hot-pairs --threads 1 -o r18_pairs.jsonl
    /usr/bin/python3 scripts/step_vs_isolated.py r18 r18_pairs.jsonl [--json summary.json]

For each convolution shape of the step (torch.profiler's `mkldnn_convolution` /
`_slow_conv2d_forward` and `convolution_backward` / `_slow_conv2d_backward`, per input shape) it
prints the in-step time per call, the same kernel's cold time (for the backward, the sum of its
data and filter directions, which the step computes in one call) and hot time, their ratio and the
share of the hot saving the step got: (cold - in step) / (cold - hot). Then the same summed per
direction and kind (1x1, depthwise, other), weighted by calls per step.

Both files should come from one session: a shared machine's speed moves by 10-100% between
sessions, more than the effect measured. The profiler records shapes, not strides or padding, so
a step shape that several timed kernels match is reported and left out.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dnnperf_py.step_convs import conv_key  # noqa: E402
from dnnperf_py.records import ok_records  # noqa: E402

FORWARD_OPS = ("aten::mkldnn_convolution", "aten::_slow_conv2d_forward")
BACKWARD_OPS = ("aten::convolution_backward", "aten::_slow_conv2d_backward")


def fail(message):
    raise SystemExit(f"step_vs_isolated: {message}")


def read_step(directory):
    """In-step convolutions: {(direction, shape key): [calls per step, seconds per call]}."""
    path = os.path.join(directory, "ops_by_shape.json")
    try:
        with open(path) as f:
            ops = json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror} (the -o folder of scripts/torch_profile_step.py)")
    except json.JSONDecodeError as e:
        fail(f"{path}: not valid JSON ({e})")
    if not isinstance(ops, list):
        fail(f"{path}: expected a list of ops")
    step = {}
    for i, op in enumerate(ops):
        try:
            name = op["op"]
            if name not in FORWARD_OPS + BACKWARD_OPS:
                continue
            shapes = [s for s in op["input_shapes"] if s]
            backward = name in BACKWARD_OPS
            # backward: grad_output, input, weight; forward: input, weight
            x, w = (shapes[1], shapes[2]) if backward else (shapes[0], shapes[1])
            out_hw = tuple(shapes[0][2:4]) if backward else None
            calls, seconds = float(op["calls_per_step"]), float(op["self_cpu_s_per_call"])
        except (KeyError, IndexError, TypeError, ValueError) as e:
            fail(f"{path}: op {i} ({op.get('op', '?') if isinstance(op, dict) else op!r}): malformed ({e!r})")
        key = (tuple(x), tuple(w), out_hw)
        direction = "backward" if backward else "forward"
        # The same shape may run through two ops (a wrapper's and the kernel's); times add.
        entry = step.setdefault((direction, key), [calls, 0.0])
        entry[1] += seconds
    if not step:
        fail(f"{path}: no convolution in the step (ops {', '.join(FORWARD_OPS + BACKWARD_OPS)})")
    return step


def read_isolated(path):
    """Cold and hot medians: {op: {(x, w, out): [(params, cold_s, hot_s or None)]}}."""
    cold, hot = {}, {}
    for line_no, r in ok_records(path, "step_vs_isolated"):
        if not str(r.get("op", "")).startswith("conv_"):
            continue
        try:
            params, seconds = r["params"], float(r["seconds"]["median"])
            ident = (r["op"], json.dumps(params, sort_keys=True))
            layout = r.get("layout", {})
        except (KeyError, TypeError, ValueError) as e:
            fail(f"{path}:{line_no}: record without params or seconds.median ({e!r})")
        if layout.get("caches") == "hot":
            hot[ident] = seconds
        elif layout.get("caches") == "cold":
            cold[ident] = (params, seconds)
    if not cold:
        fail(f"{path}: no convolution timed with cold caches (torch_bench.py --cold)")
    table = defaultdict(lambda: defaultdict(list))
    for (op, text), (params, seconds) in cold.items():
        try:
            key = conv_key(params)
        except (KeyError, TypeError, ZeroDivisionError) as e:
            fail(f"{path}: {op} {text}: incomplete convolution parameters ({e!r})")
        table[op][key].append((params, seconds, hot.get((op, text))))
    return table


def kind(w):
    if w[2] == 1 and w[3] == 1:
        return "1x1"
    return "depthwise" if w[1] == 1 else "other"


def match(table, direction, key):
    """The isolated cold and hot seconds of a step shape; None if missing, 'ambiguous' if several."""
    x, w, out_hw = key
    ops = ("conv_forward",) if direction == "forward" else ("conv_backward_data", "conv_backward_filter")
    cold = hot = 0.0
    found = 0
    for op in ops:
        candidates = [c for k, cs in table.get(op, {}).items()
                      if k[0] == x and k[1] == w and (out_hw is None or k[2] == out_hw) for c in cs]
        if len(candidates) > 1:
            return "ambiguous"
        if not candidates:
            continue
        found += 1
        _, c, h = candidates[0]
        cold += c
        hot = None if hot is None or h is None else hot + h
    # found == 1 for a backward: the network's first layer, whose input needs no gradient.
    return (cold, hot) if found else None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("step", help="scripts/torch_profile_step.py's output folder")
    p.add_argument("isolated", help="torch_bench.py --cold [--hot-pairs] records of the same kernels")
    p.add_argument("--json", help="also write the table and the sums here")
    args = p.parse_args()

    step = read_step(args.step)
    table = read_isolated(args.isolated)
    rows, missing, ambiguous = [], [], []
    sums = defaultdict(lambda: {"in_step_s": 0.0, "cold_s": 0.0, "hot_s": 0.0, "hot_known": True})
    for (direction, key), (calls, seconds) in sorted(step.items(), key=lambda e: (e[0][0] != "forward", e[0][1])):
        m = match(table, direction, key)
        shape = f"in {list(key[0])} w {list(key[1])}"
        if m is None:
            missing.append(f"{direction} {shape}")
            continue
        if m == "ambiguous":
            ambiguous.append(f"{direction} {shape}")
            continue
        cold, hot = m
        row = {"direction": direction, "kind": kind(key[1]), "input": list(key[0]), "weight": list(key[1]),
               "calls_per_step": calls, "in_step_s": seconds, "cold_s": cold, "hot_s": hot}
        rows.append(row)
        for group in (f"{direction} {row['kind']}", f"{direction} all"):
            s = sums[group]
            s["in_step_s"] += calls * seconds
            s["cold_s"] += calls * cold
            if hot is None:
                s["hot_known"] = False
            else:
                s["hot_s"] += calls * hot
    if not rows:
        fail(f"no convolution of {args.step} was timed in {args.isolated} (shapes: {', '.join(missing[:3])} ...)")

    def share(in_step, cold, hot):
        return (cold - in_step) / (cold - hot) if hot is not None and cold > hot else None

    print(f"{'direction':9} {'input':>18} {'weight':>20} {'calls':>5} {'in step ms':>10} {'cold ms':>8} {'hot ms':>8}"
          f" {'step/cold':>9} {'share of hot saving':>19}")
    for r in rows:
        s = share(r["in_step_s"], r["cold_s"], r["hot_s"])
        r["share_of_hot_saving"] = s
        hot = "-" if r["hot_s"] is None else f"{r['hot_s'] * 1e3:.3f}"
        print(f"{r['direction']:9} {str(r['input']):>18} {str(r['weight']):>20} {r['calls_per_step']:5.0f}"
              f" {r['in_step_s'] * 1e3:10.3f} {r['cold_s'] * 1e3:8.3f} {hot:>8} {r['in_step_s'] / r['cold_s']:9.2f}"
              f" {'-' if s is None else f'{s:.2f}':>19}")
    print("\nper step (calls per step times each):")
    summary = {}
    for group in sorted(sums, key=lambda g: (g.split()[0] != "forward", g.endswith("all"), g)):
        s = sums[group]
        hot = s["hot_s"] if s["hot_known"] else None
        sh = share(s["in_step_s"], s["cold_s"], hot)
        summary[group] = {"in_step_s": s["in_step_s"], "cold_s": s["cold_s"], "hot_s": hot,
                          "step_over_cold": s["in_step_s"] / s["cold_s"], "share_of_hot_saving": sh}
        print(f"  {group:18} in step {s['in_step_s'] * 1e3:8.2f} ms  cold {s['cold_s'] * 1e3:8.2f} ms  "
              f"hot {'-' if hot is None else f'{hot * 1e3:8.2f} ms'}  step/cold {s['in_step_s'] / s['cold_s']:.2f}"
              f"  share of hot saving {'-' if sh is None else f'{sh:.2f}'}")
    for label, names in (("not timed alone", missing), ("matched by several timed kernels (strides?)", ambiguous)):
        if names:
            print(f"left out, {label}: {'; '.join(names)}", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"step": args.step, "isolated": args.isolated, "kernels": rows,
                       "sums": summary, "not_timed": missing, "ambiguous": ambiguous}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
