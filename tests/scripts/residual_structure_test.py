#!/usr/bin/python3
"""scripts/residual_structure.py tells a model that leaves structure in the shape from one whose
error is noise: the same convolutions, their times once off by a pattern of the channel count and
once by random noise of the same size; and a malformed file is named."""
import csv
import math
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "residual_structure.py")


def write_points(path, residual):
    rng = random.Random(7)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["class", "family", "flops", "bytes", "measured_s", "predicted_s", "shape"])
        for i in range(400):
            n, c, k, hw = rng.choice([1, 2, 4, 8]), rng.randint(3, 512), rng.randint(3, 512), rng.choice([7, 14, 28, 56])
            flops = 2.0 * n * c * k * hw * hw * 9
            predicted = 1e-5 + flops / 5e10
            shape = f"c={c} dilation_h=1 dilation_w=1 groups=1 h={hw} k={k} n={n} pad_h=1 pad_w=1 r=3 s=3 stride_h=1 stride_w=1 w={hw}"
            w.writerow(["conv_forward", "analytic", flops, 4.0 * (n * c + n * k) * hw * hw, predicted * math.exp(residual(rng, c)), predicted, shape])


def run(*args):
    return subprocess.run(["/usr/bin/python3", script, *args], capture_output=True, text=True)



with tempfile.TemporaryDirectory() as tmp:
    # Channel counts off the 16-lane vector run 40% slower than the model says: learnable.
    patterned = os.path.join(tmp, "patterned.csv")
    write_points(patterned, lambda rng, c: (0.34 if c % 16 else 0.0) + rng.gauss(0, 0.03))
    r = run(patterned)
    check("pattern_found", r.returncode == 0 and "structure left" in r.stdout, r.stdout + r.stderr)
    # The same spread as pure noise: nothing to learn.
    noisy = os.path.join(tmp, "noisy.csv")
    write_points(noisy, lambda rng, c: rng.gauss(0, 0.17))
    r = run(noisy)
    check("noise_not_learned", r.returncode == 0 and "no structure the learner finds" in r.stdout, r.stdout + r.stderr)
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("class,family,measured_s\nconv_forward,analytic,1\n")
    r = run(bad)
    check("bad_file_named", r.returncode != 0 and "bad.csv: not a dnnperf fit report's compute_points.csv" in r.stderr, r.stdout + r.stderr)
    r = run(noisy, "--family", "regression")
    check("no_family_points", r.returncode != 0 and "no GEMM or convolution points of family 'regression'" in r.stderr, r.stdout + r.stderr)

finish()
