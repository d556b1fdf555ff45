#!/usr/bin/python3
"""Predicted against measured iteration time of a `dnnperf validate --json` result (or the plot
`validate --plot` draws): one point per case, log-log, with the prediction's 95% interval and the
two runs' spread, the line of equality and a band of +-10%.

    /usr/bin/python3 scripts/plot_validation.py validation.json -o validation.png
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", help="JSON written by dnnperf validate --json")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    args = parser.parse_args()
    with open(args.result) as f:
        result = json.load(f)
    cases = [c for c in result.get("cases", []) if c.get("status") == "ok"]
    if not cases:
        sys.exit(f"plot_validation: {args.result}: no case was measured")
    fig, ax = plt.subplots(figsize=(6.5, 6))
    networks = sorted({c["network"] for c in cases})
    colours = plt.get_cmap("tab10")
    for i, network in enumerate(networks):
        mine = [c for c in cases if c["network"] == network]
        x = [1e3 * c["measured_s"] for c in mine]
        y = [1e3 * c["predicted_s"] for c in mine]
        low = [1e3 * (c["predicted_s"] - c.get("predicted_low_s", c["predicted_s"])) for c in mine]
        high = [1e3 * (c.get("predicted_high_s", c["predicted_s"]) - c["predicted_s"]) for c in mine]
        runs = [[1e3 * r for r in c.get("measured_runs_s", [c["measured_s"]])] for c in mine]
        xerr = [[v - min(r) for v, r in zip(x, runs)], [max(r) - v for v, r in zip(x, runs)]]
        ax.errorbar(x, y, yerr=[low, high], xerr=xerr, fmt="o", ms=5, capsize=2, color=colours(i % 10), label=network.split("/")[-1])
    every = [1e3 * c[k] for c in cases for k in ("measured_s", "predicted_s")]
    lo, hi = min(every) / 1.3, max(every) * 1.3
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
    ax.fill_between([lo, hi], [0.9 * lo, 0.9 * hi], [1.1 * lo, 1.1 * hi], color="0.85", zorder=0, label="±10%")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured iteration, ms")
    ax.set_ylabel("predicted iteration, ms")
    mape = result.get("absolute_error_percent", {}).get("mean")
    kind = "inference" if cases[0].get("inference") else "training"
    ax.set_title(f"{result.get('hardware', '')} {kind}: MAPE {mape:.1f}% over {len(cases)} cases" if mape is not None else kind)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, which="both", lw=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot_validation: wrote {args.output}")


if __name__ == "__main__":
    main()
