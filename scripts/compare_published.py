#!/usr/bin/python3
"""Holds `dnnperf predict` on the datasheet GPU profiles against published per-GPU throughputs
(data/published/gpu_throughput.json: NVIDIA's DeepLearningExamples, Megatron-LM's paper) and
prints one Markdown table row per case, with the error and the median and largest |error|.

A case with "bound" ran a workload the prediction can only bound (sequences binned by length and
padded to each batch's longest, where the prediction pads every one to the case's --seq): it is
shown, checked as a bound (the published throughput at least the predicted one), and not counted
in the error figures.

  scripts/compare_published.py [--dnnperf build/bin/dnnperf] [--cases FILE] [--hardware-dir DIR]

--hardware-dir DIR prices each case with DIR/<profile file> instead of the shipped profile of its
short name (to compare another derivation of the profiles).
"""
import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from dnnperf_py.published import dnnperf_json, load_rows, run_flags  # noqa: E402
SHORT_NAMES = {"v100": "v100-sxm2-32gb.json", "a100": "a100-sxm4-80gb.json", "h100": "h100-sxm5-80gb.json", "h200": "h200-sxm-141gb.json"}


def predict(dnnperf, case, hardware):
    gpus = case.get("gpus", 1)
    per_node = min(gpus, 8)
    cmd = [dnnperf, "predict", "-n", case["network"], "--hardware", hardware, "-b", str(case["batch"]),
           "--dtype", case["dtype"], "--gpus-per-node", str(per_node), "--nodes", str(gpus // per_node), "--json"]
    # A case with "accumulate": throughput over a whole optimizer step of that many micro-batches.
    cmd += run_flags(case, case.get("accumulate", 1))
    if case.get("inference"):
        cmd += ["--inference"]
    p = dnnperf_json(cmd)
    return p["samples_per_s"] / p["devices"], p["fits_in_memory"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dnnperf", default=str(ROOT / "build" / "bin" / "dnnperf"))
    parser.add_argument("--cases", default=str(ROOT / "data" / "published" / "gpu_throughput.json"))
    parser.add_argument("--hardware-dir", default=None)
    args = parser.parse_args()
    table, cases = load_rows(args.cases, "cases", ("network", "hardware", "dtype", "batch", "samples_per_s", "source"))
    print("| network | GPU | dtype | batch | GPUs | mode | published /s | predicted /s | error | source |")
    print("| --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- |")
    errors, bounds = [], []
    for case in cases:
        hardware = case["hardware"]
        if args.hardware_dir:
            hardware = str(Path(args.hardware_dir) / SHORT_NAMES.get(hardware, hardware))
        predicted, fits = predict(args.dnnperf, case, hardware)
        error = predicted / case["samples_per_s"] - 1
        if case.get("bound"):
            bounds.append((case, predicted <= case["samples_per_s"]))
        else:
            errors.append(error)
        name = case["network"] if len(case["network"]) < 24 else case["network"].split(",")[0] + ",..."
        if case.get("seq"):
            name += f" s{case['seq']}"
        mode = "inference" if case.get("inference") else "training"
        note = case.get("note", "") + ("" if fits else "; does not fit in memory without recomputation")
        shown = f"{100 * error:+.1f}%" if not case.get("bound") else "bound: " + ("holds" if predicted <= case["samples_per_s"] else "BROKEN")
        print(f"| {name} | {case['hardware']} | {case['dtype']} | {case['batch']} | {case.get('gpus', 1)} | {mode} | "
              f"{case['samples_per_s']:g} | {predicted:.1f} | {shown} | {case['source']}{': ' + note if note else ''} |")
    absolute = [abs(e) for e in errors]
    print(f"\n{len(errors)} cases: median |error| {100 * statistics.median(absolute):.1f}%, "
          f"mean {100 * statistics.mean(absolute):.1f}%, largest {100 * max(absolute):.1f}%; "
          f"median signed {100 * statistics.median(errors):+.1f}%")
    if bounds:
        held = sum(1 for _, ok in bounds if ok)
        print(f"{len(bounds)} cases priced as a bound, not counted: it holds in {held}; "
              + "; ".join(sorted({c["bound"] for c, _ in bounds})))
    return 0 if all(ok for _, ok in bounds) else 1


if __name__ == "__main__":
    sys.exit(main())
