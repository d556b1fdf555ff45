#!/usr/bin/python3
"""Writes the GPU kernel family's section (device.efficiency.gpu) of each datasheet GPU profile
from the parameters fitted on an H200, by the rules of docs/models/gpu.md ("How the parameters
transfer"):

  * device-level parameters come from the target's datasheet (data/transfer/gpu_datasheets.json):
    the generation (which tiles its libraries run) and the L2's size; SMs, peaks and DRAM
    bandwidth are already the profile's own;
  * a math no source timed starts as the like math's (math_like: FP8 as the 16-bit math, on the
    same tensor cores), its ceiling capped as below;
  * a math's GEMM k-loop comes from the source that timed GEMMs in it (math_from), and a
    convolutions' own k-loop (conv_loop: fitted where a source timed convolutions but no GEMM in
    that math) carries with the convolutions;
  * fractions (a k-loop's share of peak, what misalignment costs, a convolution direction's rate
    against a GEMM's, DRAM efficiency, the pass families' rates) carry unchanged;
  * fixed times (a tile's fill, a k-step's floor, a kernel's least time) are cycles of the SM's
    clock, so they scale by source clock / target clock;
  * an operand rate from L2 is bytes per cycle per SM, so it scales by SMs x clock;
  * a ceiling the source's records did not identify (a math's max_efficiency fitted at its bound
    1.0 because operand rates bound the source's k-loop first) is capped by the target's
    published maximum achievable matmul rate where the rules give one: otherwise a GPU with less
    arithmetic per operand byte than the source (an A100 against an H200) inherits a ceiling of
    100% of its peak, above anything measured on it.

The held-out spreads (residual_sigma, shared_sigma) are not carried: nothing measured the
transfer's own error, and a datasheet profile claims no interval.

  scripts/derive_gpu_datasheets.py           # rewrite the profiles' sections
  scripts/derive_gpu_datasheets.py --check   # exit 1 if a profile differs from its derivation
"""
import argparse
import copy
import json
import sys
from pathlib import Path

HARDWARE = Path(__file__).resolve().parent.parent / "data" / "hardware"
TIME_KEYS_MATH = ("tile_fixed_s", "k_step_min_s")
TIME_KEYS_CONV = ("tile_fixed_s", "fixed_s")
TIME_KEYS_TOP = ("kernel_min_s", "pass_min_s")


def load(path):
    with open(path) as f:
        return json.load(f)


def fitted_gpu(profile_path):
    gpu = load(profile_path).get("device", {}).get("efficiency", {}).get("gpu")
    if not gpu:
        sys.exit(f"{profile_path}: no device.efficiency.gpu section to transfer")
    return gpu


def derive(rules, target_profile, target):
    src = rules["source"]
    gpu = copy.deepcopy(fitted_gpu(HARDWARE / src["profile"]))
    for math, where in rules.get("math_from", {}).items():
        gpu["math"][math] = copy.deepcopy(fitted_gpu(HARDWARE / where["profile"])["math"][math])
    for math, rule in rules.get("math_like", {}).items():
        if math not in gpu["math"]:
            gpu["math"][math] = copy.deepcopy(gpu["math"][rule["math"]])
    gpu.pop("residual_sigma", None)
    gpu.pop("shared_sigma", None)
    cycles = src["clock_mhz"] / target["clock_mhz"]  # seconds there per second here, for a count of cycles
    sms = target_profile["device"]["multiprocessors"]
    throughput = (sms * target["clock_mhz"]) / (src["multiprocessors"] * src["clock_mhz"])
    for key in TIME_KEYS_TOP:
        gpu[key] *= cycles
    for math in list(gpu["math"].values()) + list(gpu.get("conv_loop", {}).values()):
        for key in TIME_KEYS_MATH:
            math[key] *= cycles
        math["operand_bandwidth"] *= throughput
    for direction in gpu["conv"].values():
        for key in TIME_KEYS_CONV:
            direction[key] *= cycles
    for math, ceiling in target.get("max_achievable_matmul", {}).items():
        if math in gpu["math"]:
            gpu["math"][math]["max_efficiency"] = min(gpu["math"][math]["max_efficiency"], ceiling)
    gpu["generation"] = target["generation"]
    gpu["l2_bytes"] = float(target["l2_bytes"])
    return gpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    rules = load(HARDWARE.parent / "transfer" / "gpu_datasheets.json")
    stale = []
    for name, target in rules["devices"].items():
        path = HARDWARE / name
        profile = load(path)
        gpu = derive(rules, profile, target)
        note = ("GPU family (device.efficiency.gpu) transferred by scripts/derive_gpu_datasheets.py from "
                f"{rules['source']['profile']}" +
                "".join(f", math.{m} from {w['profile']}" for m, w in rules.get("math_from", {}).items()) +
                "".join(f", math.{m} as math.{w['math']}" for m, w in rules.get("math_like", {}).items()) +
                f": fractions carried, fixed times scaled by clock ({rules['source']['clock_mhz']} -> {target['clock_mhz']} MHz), "
                f"operand rates by SMs x clock" +
                "".join(f", {m} ceiling capped at the published maximum achievable matmul {c:.1%}"
                        for m, c in target.get("max_achievable_matmul", {}).items()) +
                f"; {target['sources']}")
        current = profile["device"].get("efficiency", {}).get("gpu")
        if args.check:
            same = current is not None and json.dumps(current, sort_keys=True) == json.dumps(gpu, sort_keys=True)
            if not same or profile.get("sources", {}).get("device.efficiency.gpu") != note:
                stale.append(name)
            continue
        profile["device"].setdefault("efficiency", {})["gpu"] = gpu
        profile.setdefault("sources", {})["device.efficiency.gpu"] = note
        with open(path, "w") as f:
            json.dump(profile, f, indent=2)
            f.write("\n")
        print(f"wrote {path.relative_to(HARDWARE.parent.parent)}")
    if stale:
        print("stale GPU sections (run scripts/derive_gpu_datasheets.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
