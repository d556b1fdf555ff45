#!/usr/bin/python3
"""How much do a calibration's network predictions depend on which kernels it happened to time?

A calibration times a sample of the shape space and fits models with tens of parameters to it.
Held-out kernel errors say how well the models price kernels like the sampled ones; they do not
say how far a network's predicted step would move had the sample been a little different. This
refits the calibration's own measurements several times, each time without a seeded tenth of its
GEMMs and convolutions (anchors kept), predicts the given networks with every refit, and reports
per network the spread of those predictions beside the full profile's: the part of a
validation's error that is the fit's variance, not the machine's noise or the model's bias.

    /usr/bin/python3 scripts/fit_stability.py my-cpu.calibration --networks resnet18,mobilenet_v2 \\
        --batch 4 --input 64 --fits 5 -o stability/

CALIBRATION is the folder `dnnperf calibrate` leaves beside its profile (PROFILE.calibration/), or
any folder of measurement files (JSON Lines) that `dnnperf fit` takes; every *.jsonl in it is fitted.
Each refit is kept under OUTPUT/fit_N/ and reused when the command is run again (resumable);
OUTPUT/stability.json holds the predictions and the summary.
"""
import argparse
import glob
import json
import math
import os
import random
import statistics
import subprocess
import sys

SUBSAMPLED_OPS = ("gemm", "conv_forward", "conv_backward_data", "conv_backward_filter")


def subsample(source, target, drop, rng):
    """Copies a measurement file without a share `drop` of its GEMM and convolution records
    (anchors, which put files on one speed, are kept); returns (kept, dropped)."""
    kept = dropped = 0
    with open(source) as src, open(target + ".part", "w") as dst:
        for number, line in enumerate(src, 1):
            try:
                record = json.loads(line)
            except ValueError:
                raise SystemExit(f"fit_stability: {source}:{number}: not a JSON line")
            if isinstance(record, dict) and record.get("op") in SUBSAMPLED_OPS and not record.get("anchor"):
                if rng.random() < drop:
                    dropped += 1
                    continue
                kept += 1
            dst.write(line)
    os.replace(target + ".part", target)
    return kept, dropped


def run(command, what):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"fit_stability: {what} failed (exit {done.returncode}):\n{done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def predict(args, profile, network, inference):
    command = [args.dnnperf, "predict", "-n", network, "-b", str(args.batch), "--hardware", profile, "--gpus-per-node", "1", "--json"]
    if args.input:
        command += ["--input", str(args.input)]
    if inference:
        command.append("--inference")
    return json.loads(run(command, f"predict {network} with {profile}"))["iteration_s"]


def summary(values):
    logs = [math.log(v) for v in values]
    median = statistics.median(values)
    return {"median_s": median, "min_s": min(values), "max_s": max(values),
            "range_percent": 100 * (max(values) - min(values)) / median,
            "log_sigma_percent": 100 * statistics.stdev(logs) if len(logs) > 1 else 0.0}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("calibration", help="folder of measurement files (PROFILE.calibration/ of dnnperf calibrate)")
    parser.add_argument("--networks", required=True, help="comma-separated zoo names or network files")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--input", type=int, default=0, help="image size of zoo CNNs")
    parser.add_argument("--fits", type=int, default=5, help="refits, each without its own tenth of the kernels")
    parser.add_argument("--drop", type=float, default=0.1, help="share of GEMM and convolution records each refit leaves out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hardware", default="cpu", help="base profile the calibration was fitted on (dnnperf fit --hardware)")
    parser.add_argument("--profile", help="the full calibration's profile, to print beside the refits")
    parser.add_argument("--inference", action="store_true", help="predict inference instead of a training step")
    parser.add_argument("--dnnperf", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "dnnperf"))
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    if not os.path.isdir(args.calibration):
        raise SystemExit(f"fit_stability: {args.calibration}: no such folder of measurements")
    files = sorted(glob.glob(os.path.join(args.calibration, "*.jsonl")))
    if not files:
        raise SystemExit(f"fit_stability: {args.calibration}: no measurement files (*.jsonl) in it")
    if args.fits < 2:
        raise SystemExit("fit_stability: --fits must be at least 2 (a spread needs two fits)")
    if not 0 < args.drop < 1:
        raise SystemExit(f"fit_stability: --drop must be between 0 and 1, is {args.drop}")
    if args.batch < 1:
        raise SystemExit(f"fit_stability: --batch must be positive, is {args.batch}")
    networks = [n for n in args.networks.split(",") if n]
    if not os.access(args.dnnperf, os.X_OK):
        raise SystemExit(f"fit_stability: {args.dnnperf}: no dnnperf executable (build it, or give --dnnperf)")
    for network in networks:  # a bad name fails here, before any minute of fitting
        run([args.dnnperf, "predict", "-n", network, "-b", "1", "--hardware", args.hardware, "--gpus-per-node", "1", "--summary"]
            + (["--input", str(args.input)] if args.input else []), f"network '{network}'")
    os.makedirs(args.output, exist_ok=True)

    profiles = []
    for fit in range(args.fits):
        folder = os.path.join(args.output, f"fit_{fit}")
        profile = os.path.join(folder, "profile.json")
        if os.path.exists(profile):
            print(f"fit_stability: refit {fit + 1} of {args.fits}: kept from an earlier run ({profile})", flush=True)
            profiles.append(profile)
            continue
        os.makedirs(folder, exist_ok=True)
        rng = random.Random(args.seed * 1000003 + fit)
        kept = dropped = 0
        copies = []
        for f in files:
            copy = os.path.join(folder, os.path.basename(f))
            k, d = subsample(f, copy, args.drop, rng)
            kept, dropped = kept + k, dropped + d
            copies.append(copy)
        print(f"fit_stability: refit {fit + 1} of {args.fits}: {dropped} of {kept + dropped} GEMMs and convolutions left out", flush=True)
        log = run([args.dnnperf, "fit", *copies, "--hardware", args.hardware, "-o", profile + ".part"], f"refit {fit + 1}")
        with open(os.path.join(folder, "fit.log"), "w") as f:
            f.write(log)
        for copy in copies:  # the copies are the calibration's files less a tenth: not worth keeping
            os.remove(copy)
        os.replace(profile + ".part", profile)
        profiles.append(profile)

    result = {"calibration": args.calibration, "batch": args.batch, "input": args.input, "inference": args.inference,
              "fits": args.fits, "drop": args.drop, "seed": args.seed, "networks": {}}
    print(f"\n{'network':24} {'full profile ms':>15} {'refits: median':>15} {'min':>9} {'max':>9} {'range %':>8} {'sigma %':>8}")
    for network in networks:
        values = [predict(args, p, network, args.inference) for p in profiles]
        entry = dict(summary(values), refits_s=values)
        if args.profile:
            entry["full_profile_s"] = predict(args, args.profile, network, args.inference)
        result["networks"][network] = entry
        full = f"{1e3 * entry['full_profile_s']:15.2f}" if args.profile else f"{'-':>15}"
        print(f"{network:24} {full} {1e3 * entry['median_s']:15.2f} {1e3 * entry['min_s']:9.2f} {1e3 * entry['max_s']:9.2f} "
              f"{entry['range_percent']:8.1f} {entry['log_sigma_percent']:8.1f}")
    sigmas = [e["log_sigma_percent"] for e in result["networks"].values()]
    result["mean_log_sigma_percent"] = statistics.mean(sigmas)
    result["max_log_sigma_percent"] = max(sigmas)
    print(f"\nacross networks: the refits' predictions spread {result['mean_log_sigma_percent']:.1f}% (mean log sigma; most "
          f"{result['max_log_sigma_percent']:.1f}%): a validation's error beside it is partly this fit's variance")
    with open(os.path.join(args.output, "stability.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
