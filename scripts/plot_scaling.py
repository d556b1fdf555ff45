#!/usr/bin/python3
"""Plots a `dnnperf scale --csv FILE` sweep: throughput against devices with the linear ideal,
parallel efficiency, and where an iteration's time goes (compute, exposed communication).

    /usr/bin/python3 scripts/plot_scaling.py SCALE.csv [-o SCALE.png] [--title TEXT]
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"{path}: no points")
    need = {"devices", "samples_per_s", "efficiency", "compute_s", "comm_exposed_s", "iteration_s"}
    missing = need - set(rows[0])
    if missing:
        raise SystemExit(f"{path}: not a dnnperf scale CSV (missing columns: {', '.join(sorted(missing))})")
    return {k: [float(r[k]) for r in rows] for k in need}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("-o", "--output")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    d = read(args.csv)
    out = args.output or args.csv.rsplit(".", 1)[0] + ".png"

    devices = d["devices"]
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4.5))
    ideal = [d["samples_per_s"][0] * n / devices[0] for n in devices]
    ax1.loglog(devices, d["samples_per_s"], "o-", label="predicted")
    ax1.loglog(devices, ideal, "--", color="grey", label="linear")
    ax1.set_xlabel("devices")
    ax1.set_ylabel("samples / s")
    ax1.set_title("throughput")
    ax1.legend()
    ax2.semilogx(devices, [100 * e for e in d["efficiency"]], "o-")
    ax2.set_ylim(0, 105)
    ax2.set_xlabel("devices")
    ax2.set_ylabel("parallel efficiency (%)")
    ax2.set_title("efficiency")
    width = [0.6 * n for n in devices]
    ax3.bar(devices, [1e3 * c for c in d["compute_s"]], width=width, label="compute")
    ax3.bar(devices, [1e3 * c for c in d["comm_exposed_s"]], width=width, bottom=[1e3 * c for c in d["compute_s"]],
            label="exposed communication")
    ax3.set_xscale("log")
    ax3.set_xlabel("devices")
    ax3.set_ylabel("ms per iteration")
    ax3.set_title("iteration time")
    ax3.legend()
    for ax in (ax1, ax2, ax3):
        ax.grid(True, which="both", alpha=0.3)
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
