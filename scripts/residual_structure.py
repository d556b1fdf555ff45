#!/usr/bin/python3
"""Is a fitted compute model's error left in shapes, or beyond them?

Reads the points `dnnperf fit --report DIR` writes (DIR/compute_points.csv: every GEMM and
convolution with its measured time and each family's prediction) and asks, per kernel class,
whether a flexible learner — gradient-boosted trees over the kernel's dimensions, their
logarithms, their remainders modulo vector and tile widths and the model's own prediction — can
predict the analytic family's log residuals on shapes it did not see (5 folds over shapes).

If the learner's corrected predictions are clearly better than the model's, the model leaves
structure a better model could capture, and says where to look. If they are not, what is left
is not a function of the shape that this many measurements can teach: measurement noise, the
machine's drift, or effects too irregular in the shape to learn (a persistent per-shape residual
with no pattern). Residuals are in-sample for the model (fitted on all points), which favours
the model, and out-of-sample for the learner.

    /usr/bin/python3 scripts/residual_structure.py DIR/compute_points.csv [--family analytic]

Needs scikit-learn (Debian: python3-sklearn, which scripts/setup.sh installs).
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dnnperf_py.conv_shape import CONV_PARAMS, conv_output  # noqa: E402


def shape_features(cls, shape):
    """Numbers the learner may split on, from a compute_points.csv shape label."""
    p = {}
    for item in shape.split():
        key, _, value = item.partition("=")
        try:
            p[key] = int(value)
        except ValueError:
            return None
    lg = lambda v: math.log2(v) if v > 0 else 0.0
    if cls == "gemm" or cls == "per_image_gemm":
        if not all(k in p for k in ("m", "n", "k")):
            return None
        m, n, k = p["m"], p["n"], p["k"]
        return [lg(m), lg(n), lg(k), lg(p.get("batch", 1)), p.get("trans_a", 0), p.get("trans_b", 0),
                m % 16, n % 16, k % 16, k % 4, m % 48, n % 48, lg(min(m, n, k))]
    if not all(k in p for k in CONV_PARAMS):
        return None
    stride, pad, groups = p["stride_h"], p["pad_h"], p["groups"]
    out_h, out_w = conv_output(p)
    return [lg(p["n"]), lg(p["c"]), lg(p["k"]), lg(p["h"]), lg(p["w"]), p["r"], p["s"], stride, pad, lg(groups),
            lg(max(out_h, 1)), lg(max(out_w, 1)), p["c"] % 16, p["k"] % 16, (p["c"] // groups) % 16, (p["k"] // groups) % 16,
            out_w % 16, lg(p["h"] * p["w"])]


def read_points(path, family):
    """Per class: (features, log measured, log predicted) of the family's points."""
    by_class = defaultdict(list)
    with open(path, newline="") as f:
        rows = csv.DictReader(f)
        missing = {"class", "family", "flops", "bytes", "measured_s", "predicted_s", "shape"} - set(rows.fieldnames or [])
        if missing:
            sys.exit(f"{path}: not a dnnperf fit report's compute_points.csv (no column {', '.join(sorted(missing))})")
        for line, r in enumerate(rows, start=2):
            if r["family"] != family:
                continue
            try:
                measured, predicted = float(r["measured_s"]), float(r["predicted_s"])
                flops, moved = float(r["flops"]), float(r["bytes"])
            except ValueError:
                sys.exit(f"{path}:{line}: a time, flops or bytes that is not a number")
            if not (measured > 0 and predicted > 0):
                continue
            x = shape_features(r["class"], r["shape"])
            if x is None:
                continue
            by_class[r["class"]].append((x + [math.log(flops + 1), math.log(moved + 1), math.log(predicted)],
                                         math.log(measured), math.log(predicted)))
    return by_class


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("points", help="compute_points.csv of `dnnperf fit --report DIR`")
    ap.add_argument("--family", default="analytic", help="the family whose residuals are examined (analytic or regression)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    try:
        import numpy as np
        from sklearn.ensemble import HistGradientBoostingRegressor
        from sklearn.model_selection import KFold
    except ImportError as e:
        sys.exit(f"residual_structure: needs numpy and scikit-learn ({e}); on Debian: apt-get install python3-sklearn")
    by_class = read_points(a.points, a.family)
    if not by_class:
        sys.exit(f"{a.points}: no GEMM or convolution points of family '{a.family}'")
    print(f"{'class':22s} {'shapes':>6s} {a.family + ' MAPE':>15s} {'+ learner (held out)':>21s}  verdict")
    for cls in sorted(by_class):
        rows = by_class[cls]
        if len(rows) < 10 * a.folds:
            print(f"{cls:22s} {len(rows):6d} {'':>15s} {'':>21s}  too few shapes to learn from")
            continue
        x = np.array([r[0] for r in rows])
        measured = np.array([r[1] for r in rows])
        predicted = np.array([r[2] for r in rows])
        residual = measured - predicted
        corrected = np.empty_like(predicted)
        for train, test in KFold(a.folds, shuffle=True, random_state=a.seed).split(x):
            # Shallow, regularised trees on absolute error: a learner that finds no structure
            # predicts ~0 and changes nothing, rather than fitting the noise.
            learner = HistGradientBoostingRegressor(loss="absolute_error", max_iter=150, learning_rate=0.03, max_leaf_nodes=8,
                                                    min_samples_leaf=20, l2_regularization=5.0, random_state=a.seed)
            learner.fit(x[train], residual[train])
            corrected[test] = predicted[test] + learner.predict(x[test])
        mape = 100 * np.mean(np.abs(np.exp(predicted - measured) - 1))
        learned = 100 * np.mean(np.abs(np.exp(corrected - measured) - 1))
        verdict = ("structure left: the shape explains part of the error" if learned < 0.9 * mape
                   else "no structure the learner finds in the shape")
        print(f"{cls:22s} {len(rows):6d} {mape:14.1f}% {learned:20.1f}%  {verdict}")


if __name__ == "__main__":
    main()
