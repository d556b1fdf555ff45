#!/usr/bin/python3
"""Scheduling benchmark: every method of `dnnperf schedule` on a set of networks and one platform.

Writes one JSON line per case to OUT.jsonl (resuming: cases already there are skipped) and prints
a Markdown table with the figures the scheduler's targets are judged by.

usage: benchmarks/schedule_report.py [--platform FILE] [--time-limit S] [--out FILE] [--quick]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DNNPERF = os.path.join(ROOT, "build", "bin", "dnnperf")

# Randomly wired networks of 32-64 tasks after chain fusion (two random stages), and Inception-v3.
# Randomly wired networks of 12 and 16 nodes per stage, and of 32 — RandWire's own size (Xie et
# al., ICCV 2019: N = 32; WS K = 4, P = 0.75; ER P = 0.2; BA M = 5) — fused to 64 tasks.
CASES = [(f"randwire-{kind}:nodes={nodes},stages=2,seed={seed}", 64) for kind in ("ws", "er", "ba") for nodes, seed in ((12, 1), (16, 2))] + [
    ("inception_v3", 100)
] + [(f"randwire-{kind}:nodes=32,stages=2,seed=1", 64) for kind in ("ws", "er", "ba")]
BIG = ("randwire-er:nodes=330,stages=3,seed=3", 1000)  # about 1,000 tasks after chain fusion


def run(network, coarsen, args, methods, time_limit):
    cmd = [DNNPERF, "schedule", "-n", network, "--platform", args.platform, "--batch", str(args.batch), "--method", methods,
           "--time-limit", str(time_limit), "--json"]
    if coarsen:
        cmd += ["--coarsen", str(coarsen)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return {"network": network, "error": out.stderr.strip()}
    doc = json.loads(out.stdout)
    result = {"network": network, "tasks": len(doc["tasks"]), "ops": doc["ops"], "lower_bound_s": doc["lower_bound"]["value_s"], "methods": {}}
    for m in doc["methods"]:
        result["methods"][m["method"]] = {k: m.get(k) for k in ("makespan_s", "solve_s", "status", "solver_bound_s", "valid", "found")}
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--platform", default=os.path.join(ROOT, "data", "platforms", "cpu-v100-a100.json"))
    ap.add_argument("--time-limit", type=float, default=60, help="seconds for the MILP and for split")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--out", default="schedule_report.jsonl")
    ap.add_argument("--quick", action="store_true", help="two cases and a 5 s limit (a smoke test)")
    args = ap.parse_args()
    cases = CASES[:2] if args.quick else CASES
    limit = 5 if args.quick else args.time_limit
    done = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                try:
                    r = json.loads(line)
                    done[r["network"]] = r
                except (json.JSONDecodeError, KeyError):
                    pass  # a torn last line from an interrupted run
    with open(args.out, "a") as out:
        for network, coarsen in cases + ([] if args.quick else [BIG]):
            if network in done:
                continue
            methods = "split,heft,greedy,cpop,single" if (network, coarsen) == BIG else "all"
            print(f"schedule_report: {network}", file=sys.stderr, flush=True)
            r = run(network, coarsen, args, methods, limit)
            out.write(json.dumps(r) + "\n")
            out.flush()
            done[network] = r

    print(f"| network | tasks | single | HEFT | split | MILP (status) | split / MILP | MILP s / split s | single / split | HEFT / split |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios, speedups, gains, heft_gains = [], [], {}, []
    for network, _ in cases + ([] if args.quick else [BIG]):
        r = done.get(network)
        if not r or "error" in r:
            print(f"| {network} | error: {r.get('error') if r else 'not run'} |")
            continue
        m = r["methods"]
        ms = lambda k: m[k]["makespan_s"] * 1e3 if k in m and m[k]["found"] else float("nan")
        split, heft, single = ms("split"), ms("heft"), ms("single")
        milp = ms("milp")
        line = f"| {network} | {r['tasks']} | {single:.3f} | {heft:.3f} | {split:.3f} ({m['split']['solve_s']:.2f} s) |"
        if "milp" in m:
            ratio = split / milp
            speed = m["milp"]["solve_s"] / m["split"]["solve_s"]
            ratios.append(ratio)
            speedups.append(speed)
            status = m["milp"]["status"].split(" ")[0]
            line += f" {milp:.3f} ({status}) | {ratio:.3f} | {speed:.0f}x |"
        else:
            line += " - | - | - |"
        if network.startswith("randwire") and "330" not in network:
            gains.setdefault("randwire", []).append(single / split)
            gains.setdefault("randwire nodes=32" if "nodes=32" in network else "randwire nodes=12-16", []).append(single / split)
        heft_gains.append(heft / split)
        line += f" {single / split:.2f}x | {heft / split:.3f} |"
        print(line)
    if ratios:
        print(f"\nsplit / MILP: mean {statistics.mean(ratios):.3f}, max {max(ratios):.3f}; MILP time / split time: min {min(speedups):.0f}x")
    for key in ("randwire", "randwire nodes=12-16", "randwire nodes=32"):
        if key in gains:
            g = gains[key]
            print(f"{key.replace('randwire', 'randomly wired networks')}, single device / split: mean {statistics.mean(g):.2f}x, min {min(g):.2f}x")
    print(f"HEFT / split: mean {statistics.mean(heft_gains):.3f}")


if __name__ == "__main__":
    main()
