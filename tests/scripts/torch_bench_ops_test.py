#!/usr/bin/python3
"""scripts/torch_bench.py --ops and --max-kernels on real PyTorch kernels: one class of a shape set
timed first, anchors included, then the interleaved run into the same file skipping what it has
(how `dnnperf calibrate` makes sure of its GEMMs on a CPU).

    tests/scripts/torch_bench_ops_test.py build/bin/dnnperf
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "torch_bench.py")
dnnperf = os.path.abspath(sys.argv[1])
# Few repetitions: the records' contents are the point, not their times.
common = ["--dnnperf", dnnperf, "--shapes", "sample:600:1:1", "--anchors", "--device", "cpu", "--threads", "1",
          "--target", "0.001", "--resume"]


def records(path):
    return [json.loads(line) for line in open(path) if '"type": "record"' in line]


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "k.jsonl")
    r = subprocess.run(["/usr/bin/python3", bench, *common, "--ops", "gemm", "--max-kernels", "6", "-o", out], capture_output=True, text=True, timeout=300)
    check("gemms_first_run", r.returncode == 0, r.stderr[-2000:])
    first = records(out) if r.returncode == 0 else []
    check("only_gemms_and_only_six", [x["op"] for x in first] == ["gemm"] * 6, str([x["op"] for x in first]))
    r = subprocess.run(["/usr/bin/python3", bench, *common, "--max-kernels", "12", "-o", out], capture_output=True, text=True, timeout=300)
    check("interleaved_run_resumes", r.returncode == 0, r.stderr[-2000:])
    both = records(out) if r.returncode == 0 else []
    ops = collections.Counter(x["op"] for x in both)
    keys = [json.dumps([x["op"], x["params"]], sort_keys=True) for x in both]
    # The anchors interleave the four classes: the first twelve are three of each, three GEMMs among
    # the six already there.
    check("the_rest_of_the_first_twelve_added", ops == {"gemm": 6, "conv_forward": 3, "conv_backward_data": 3, "conv_backward_filter": 3}, str(ops))
    check("no_kernel_timed_twice", len(set(keys)) == len(keys), str(len(keys)))
    r = subprocess.run(["/usr/bin/python3", bench, *common, "--ops", "gemm,conv_sideways", "-o", os.path.join(tmp, "bad.jsonl")],
                       capture_output=True, text=True, timeout=120)
    check("unknown_op_named", r.returncode != 0 and "--ops: unknown op(s) conv_sideways" in r.stderr, r.stderr[-500:])
    r = subprocess.run(["/usr/bin/python3", bench, *common, "--max-kernels", "-1", "-o", os.path.join(tmp, "bad.jsonl")],
                       capture_output=True, text=True, timeout=120)
    check("negative_count_named", r.returncode != 0 and "--max-kernels must be positive" in r.stderr, r.stderr[-500:])
    # --kernel-names: each GEMM and convolution says what it ran (on a CPU, the ATen ops on its path).
    named = os.path.join(tmp, "named.jsonl")
    r = subprocess.run(["/usr/bin/python3", bench, *common, "--max-kernels", "4", "--kernel-names", "-o", named], capture_output=True, text=True, timeout=300)
    check("kernel_names_run", r.returncode == 0, r.stderr[-2000:])
    got = records(named) if r.returncode == 0 else []
    ran = [x.get("metrics", {}).get("kernels") for x in got]
    check("every_record_names_what_it_ran", len(got) == 4 and all(k and all(e["name"] and e["seconds"] >= 0 for e in k) for k in ran), str(ran)[:800])
    convs = [k for x, k in zip(got, ran) if x["op"].startswith("conv_")]
    check("a_convolution_runs_an_aten_convolution", convs and all(any("conv" in e["name"] for e in k) for k in convs), str(convs)[:800])
finish()
