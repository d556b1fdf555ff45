#!/usr/bin/python3
"""Plots of a `dnnperf fit --report DIR` run: measured against predicted time per algorithm and
model (log-log, with the 95% intervals), and relative residuals against message size.

    /usr/bin/python3 scripts/plot_fit.py DIR/fit_points.csv      (writes DIR/fit_*.png)
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[1]
    rows = list(csv.DictReader(open(path, newline="")))
    if not rows:
        print(f"{path}: no points", file=sys.stderr)
        return 1
    groups = defaultdict(list)
    for r in rows:
        groups[r["algorithm"]].append(r)
    out = os.path.dirname(os.path.abspath(path))
    for algorithm, points in groups.items():
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
        for model in sorted({p["model"] for p in points}):
            pts = [p for p in points if p["model"] == model]
            measured = [float(p["measured_s"]) for p in pts]
            predicted = [float(p["predicted_s"]) for p in pts]
            ax1.loglog(measured, predicted, ".", label=model, alpha=0.7)
            ax2.semilogx([float(p["bytes"]) for p in pts], [100 * (pr / m - 1) for pr, m in zip(predicted, measured)],
                         ".", label=model, alpha=0.7)
        lo = min(float(p["measured_s"]) for p in points)
        hi = max(float(p["measured_s"]) for p in points)
        ax1.loglog([lo, hi], [lo, hi], "--", color="grey")
        ax1.set_xlabel("measured s")
        ax1.set_ylabel("fitted s")
        ax1.set_title(f"{algorithm}: fitted vs measured")
        ax1.legend()
        ax2.axhline(0, color="grey")
        ax2.set_xlabel("message bytes")
        ax2.set_ylabel("residual %")
        ax2.set_title(f"{algorithm}: residuals against size")
        for ax in (ax1, ax2):
            ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"fit_{algorithm.replace(':', '_')}.png"), dpi=100)
        plt.close(fig)
    print(f"wrote plots to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
