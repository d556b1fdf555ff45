#!/usr/bin/python3
"""Does a model feature earn its keep? A calibrated profile priced on the runs a validation kept
(`validate --save-measured`, as scripts/validate_calibration.sh keeps them), once as fitted and
once with each CPU-library feature switched off in the profile (its other parameters as fitted),
without running anything. Prints, per variant, the MAPE of training and inference over the
validation grid (seven networks at 64x64, batches 4, 16, 32; Inception-v3 at 128x128) and the
change against the profile as fitted.

    /usr/bin/python3 scripts/feature_ablation.py RUNS_FOLDER [RUNS_FOLDER ...] [--dnnperf build/bin/dnnperf] [--json out.json]

Each RUNS_FOLDER holds calibrate_profile.json, ground_truth/ and ground_truth_inference/.
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile

NETWORKS = "alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder"


def without_warmth(p):
    return p["device"].pop("step_warmth", None) is not None


def zeroed(section, keys, value=0.0):
    """An edit that sets `keys` of the device section `section` ("step_warmth", "efficiency/blocked_gemm")
    to `value`; False where the profile has none of them set to anything else."""
    def edit(p):
        s = p["device"]
        for part in section.split("/"):
            s = s.get(part) if isinstance(s, dict) else None
        if not s or all(s.get(k, value) == value for k in keys):
            return False
        for k in keys:
            s[k] = value
        return True
    return edit


# Each: a name and an edit that returns False where the profile has no such feature to switch off.
VARIANTS = [
    ("as fitted", lambda p: True),
    ("no step warmth at all (cold prices; no far bytes)", without_warmth),
    ("no warmth savings (shares 0)", zeroed("step_warmth", ["realized_share", "realized_share_inference"])),
    ("no far bytes of convolutions", zeroed("step_warmth", ["far_s_per_byte", "far_s_per_byte_inference"])),
    ("no far bytes of memory passes", zeroed("step_warmth", ["pass_far_read_s_per_byte", "pass_far_written_s_per_byte"])),
    ("no in-step excess", zeroed("step_warmth", ["in_step_excess", "in_step_excess_inference"])),
]


def mape(dnnperf, profile, runs, inference):
    flag = ["--inference"] if inference else []
    folder = os.path.join(runs, "ground_truth_inference" if inference else "ground_truth")
    errors = []
    for networks, size in ((NETWORKS, "64"), ("inception_v3_noaux", "128")):
        out = subprocess.run([dnnperf, "validate", "--hardware", profile, "--networks", networks, "--batch", "4,16,32", "--input", size, *flag,
                              "--measured", folder, "--json"], capture_output=True, text=True)
        if not out.stdout.strip():
            raise SystemExit(f"feature_ablation: validate failed on {runs}: {out.stderr.strip()[-400:]}")
        errors += [abs(c["error_percent"]) for c in json.loads(out.stdout)["cases"] if c.get("status") == "ok"]
    return sum(errors) / len(errors), len(errors)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="folders with calibrate_profile.json and the kept runs")
    parser.add_argument("--dnnperf", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "dnnperf"))
    parser.add_argument("--json", help="also write the table as JSON")
    args = parser.parse_args()
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        for runs in args.runs:
            base = json.load(open(os.path.join(runs, "calibrate_profile.json")))
            fitted = None
            print(f"{runs}:")
            print(f"  {'variant':52s} {'training':>9s} {'change':>7s} {'inference':>10s} {'change':>7s}")
            for name, edit in VARIANTS:
                profile = copy.deepcopy(base)
                if not edit(profile):
                    print(f"  {name:52s}   (not in this profile)")
                    continue
                path = os.path.join(tmp, "variant.json")
                json.dump(profile, open(path, "w"))
                train, n_train = mape(args.dnnperf, path, runs, False)
                infer, n_infer = mape(args.dnnperf, path, runs, True)
                if fitted is None:
                    fitted = (train, infer)
                print(f"  {name:52s} {train:8.1f}% {train - fitted[0]:+6.1f} {infer:9.1f}% {infer - fitted[1]:+6.1f}")
                table.append({"runs": runs, "variant": name, "training_mape": train, "inference_mape": infer, "training_cases": n_train,
                              "inference_cases": n_infer})
            sys.stdout.flush()
    if args.json:
        json.dump(table, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
