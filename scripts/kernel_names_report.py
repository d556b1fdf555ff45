#!/usr/bin/python3
"""What the GPU libraries ran for each measured GEMM and convolution, read from the kernel names
that `torch_bench.py --kernel-names` records (metrics.kernels), per op and element type:

  * how many kernels one call runs (a convolution may be a layout transpose, the GEMM, a split-K
    reduction, a transpose back);
  * the share of calls on tensor cores, and on the plain FP32 units;
  * the share that transposes NCHW to NHWC or back, and the share of the call's time those take;
  * the share with a split-K reduction, an FFT or a Winograd transform;
  * the commonest main kernels (the longest of each call).

The patterns follow the names NVIDIA's libraries give their kernels (cuDNN's nchwToNhwcKernel,
cuBLAS's splitKreduce_kernel, xmma/hmma/gmma tensor-core kernels, sgemm on the FP32 units, ...).
docs/models/gpu.md says which of the model's open questions each figure decides.

    scripts/kernel_names_report.py lease/torch_cuda_kernels.jsonl lease/torch_cuda_exact.jsonl [--json]
"""
import argparse
import collections
import json
import re
import statistics
import sys

# Each feature: a name matching any of its patterns (case-insensitive) has it.
FEATURES = {
    "tensor_cores": [r"xmma", r"hmma", r"gmma", r"wgmma", r"tensorop", r"s1688", r"s16816", r"h1688", r"h16816", r"s884", r"h884",
                     r"tf32", r"bf16", r"f16f16", r"i8816"],
    "fp32_units": [r"sgemm", r"convolve_sgemm", r"cutlass_simt", r"_simt_"],
    "transpose": [r"nchwtonhwc", r"nhwctonchw", r"nchw2nhwc", r"nhwc2nchw", r"transpose"],
    "split_k": [r"splitk", r"split_k", r"reduce_1block", r"splitkreduce"],
    "fft": [r"fft", r"flip_filter"],
    "winograd": [r"winograd"],
}
PATTERNS = {f: re.compile("|".join(p), re.IGNORECASE) for f, p in FEATURES.items()}


def features(name):
    return {f for f, p in PATTERNS.items() if p.search(name)}


def stem(name):
    """A kernel's name without its template arguments and numeric suffixes: one line per family."""
    return re.sub(r"<.*", "", name).split("(")[0][:90]


def summarize(records):
    groups = collections.defaultdict(list)
    for r in records:
        ran = r.get("metrics", {}).get("kernels")
        if r.get("status") != "ok" or not isinstance(ran, list) or not ran:
            continue
        groups[(r["op"], r.get("dtype", "?"))].append(ran)
    out = []
    for (op, dtype), calls in sorted(groups.items()):
        row = {"op": op, "dtype": dtype, "calls": len(calls), "kernels_per_call": statistics.median(len(c) for c in calls)}
        for f in FEATURES:
            row[f] = sum(any(f in features(k["name"]) for k in c) for c in calls) / len(calls)
        shares = []
        for c in calls:
            total = sum(k["seconds"] for k in c)
            if total > 0:
                shares.append(sum(k["seconds"] for k in c if "transpose" in features(k["name"])) / total)
        row["transpose_time_share"] = statistics.median(shares) if shares else 0.0
        main = collections.Counter(stem(max(c, key=lambda k: k["seconds"])["name"]) for c in calls)
        row["main_kernels"] = main.most_common(3)
        out.append(row)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="measurement files with metrics.kernels (torch_bench.py --kernel-names)")
    parser.add_argument("--json", action="store_true", help="print the rows as one JSON list")
    args = parser.parse_args()
    records = []
    for path in args.files:
        try:
            with open(path) as f:
                for n, line in enumerate(f, 1):
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        r = json.loads(line)
                    except json.JSONDecodeError as e:
                        raise SystemExit(f"kernel_names_report: {path}:{n}: not JSON ({e.msg})")
                    if r.get("type") == "record":
                        records.append(r)
        except OSError as e:
            raise SystemExit(f"kernel_names_report: {path}: {e.strerror}")
    rows = summarize(records)
    if not rows:
        raise SystemExit("kernel_names_report: no record names its kernels (time them with torch_bench.py --kernel-names)")
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print("| op | dtype | calls | kernels/call | tensor cores | FP32 units | transposes (time share) | split-K | FFT | Winograd | main kernels |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    pct = lambda x: f"{100 * x:.0f}%"
    for r in rows:
        mains = "; ".join(f"{name} ({n})" for name, n in r["main_kernels"])
        print(f"| {r['op']} | {r['dtype']} | {r['calls']} | {r['kernels_per_call']:g} | {pct(r['tensor_cores'])} | {pct(r['fp32_units'])} | "
              f"{pct(r['transpose'])} ({pct(r['transpose_time_share'])}) | {pct(r['split_k'])} | {pct(r['fft'])} | {pct(r['winograd'])} | {mains} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
