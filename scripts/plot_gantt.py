#!/usr/bin/python3
"""Draws the schedules of `dnnperf schedule -o FILE.json` as Gantt charts, one panel per method.

usage: plot_gantt.py SCHEDULE.json -o OUT.png [--methods heft,split]
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("schedule")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--methods", help="comma list of methods to draw (default: all found)")
    args = ap.parse_args()
    try:
        with open(args.schedule) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"plot_gantt: cannot read {args.schedule}: {e}")
    wanted = set(args.methods.split(",")) if args.methods else None
    methods = [m for m in doc.get("methods", []) if m.get("found") and (wanted is None or m["method"] in wanted)]
    if not methods:
        sys.exit("plot_gantt: no schedule to draw")
    devices = [d["name"] for d in doc["devices"]] if "devices" in doc else sorted({p["device"] for m in methods for p in m["placements"]})
    index = {name: i for i, name in enumerate(devices)}
    tasks = doc.get("tasks", [])
    fig, axes = plt.subplots(len(methods), 1, figsize=(11, 1.2 + 0.45 * len(devices) * len(methods)), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, m in zip(axes[:, 0], methods):
        for p in m["placements"]:
            y = index.get(p["device"], 0)
            start, length = p["start_s"] * 1e3, (p["finish_s"] - p["start_s"]) * 1e3
            grouped = "with" in p
            ax.barh(y, length, left=start, height=0.35 if grouped else 0.7, align="edge" if grouped and p["task"] > p["with"] else "center",
                    color=colours[y % len(colours)], edgecolor="black", linewidth=0.3)
            if tasks and length > 0.04 * m["makespan_s"] * 1e3:
                ax.text(start + length / 2, y, tasks[p["task"]]["name"].split(" .. ")[0][:14], ha="center", va="center", fontsize=6)
        value = m.get("period_s", m["makespan_s"])
        label = "period" if "period_s" in m else "latency"
        ax.set_title(f'{m["method"]}: {label} {value * 1e3:.3f} ms ({m["ratio_to_bound"]:.2f}x lower bound)', fontsize=9)
        ax.set_yticks(range(len(devices)))
        ax.set_yticklabels(devices, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("time (ms)", fontsize=8)
    fig.suptitle(f'{doc["network"]} on {doc["platform"]}', fontsize=10)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
