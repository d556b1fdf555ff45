#!/usr/bin/python3
"""Plots of the compute part of a `dnnperf fit --report DIR` run: per kernel class, measured
against predicted time for each fitted family (log-log), and relative residuals against the
kernel's size (FLOPs; bytes for memory passes). Points are the fitted models on every
measurement; the held-out errors are in the fit's printed table.

    /usr/bin/python3 scripts/plot_compute_fit.py DIR/compute_points.csv   (writes DIR/compute_fit_*.png)
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
    try:
        rows = list(csv.DictReader(open(path, newline="")))
    except OSError as e:
        print(f"plot_compute_fit: {e}", file=sys.stderr)
        return 1
    if not rows:
        print(f"{path}: no points", file=sys.stderr)
        return 1
    by_class = defaultdict(lambda: defaultdict(list))
    for r in rows:
        by_class[r["class"]][r["family"]].append(r)
    out = os.path.dirname(os.path.abspath(path))
    for cls, families in by_class.items():
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
        size_key = "bytes" if cls == "memory" else "flops"
        lo, hi = float("inf"), 0.0
        for family, pts in sorted(families.items()):
            m = [float(p["measured_s"]) for p in pts]
            q = [float(p["predicted_s"]) for p in pts]
            size = [max(float(p[size_key]), 1.0) for p in pts]
            mape = 100 * sum(abs(b - a) / a for a, b in zip(m, q)) / len(m)
            ax1.scatter(m, q, s=8, alpha=0.6, label=f"{family} (MAPE {mape:.1f}% on all points)")
            ax2.scatter(size, [100 * (b - a) / a for a, b in zip(m, q)], s=8, alpha=0.6, label=family)
            lo, hi = min(lo, min(m), min(q)), max(hi, max(m), max(q))
        ax1.plot([lo, hi], [lo, hi], "k--", linewidth=0.8)
        ax1.set_xscale("log")
        ax1.set_yscale("log")
        ax1.set_xlabel("measured (s)")
        ax1.set_ylabel("predicted (s)")
        ax1.legend(fontsize=8)
        ax1.set_title(f"{cls}: measured vs predicted")
        ax2.axhline(0, color="k", linewidth=0.8)
        ax2.set_xscale("log")
        ax2.set_xlabel(size_key)
        ax2.set_ylabel("residual (%)")
        ax2.set_title(f"{cls}: relative residual against size")
        ax2.legend(fontsize=8)
        fig.tight_layout()
        name = os.path.join(out, f"compute_fit_{cls.replace('/', '_')}.png")
        fig.savefig(name, dpi=110)
        plt.close(fig)
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
