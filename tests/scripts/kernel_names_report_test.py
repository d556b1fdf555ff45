#!/usr/bin/python3
"""scripts/kernel_names_report.py on records whose kernels are named as NVIDIA's libraries name
them: what it counts per op, and its errors on bad input.

    tests/scripts/kernel_names_report_test.py
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

report = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "kernel_names_report.py")


def record(op, kernels, dtype="f32"):
    return {"type": "record", "op": op, "dtype": dtype, "status": "ok", "params": {},
            "metrics": {"kernels": [{"name": n, "seconds": s} for n, s in kernels]}}


records = [
    # An NCHW convolution on tensor cores between two transposes; one on the FP32 units alone.
    record("conv_forward", [("void cudnn::ops::nchwToNhwcKernel<float>(...)", 10e-6),
                            ("sm90_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x32", 60e-6),
                            ("void cudnn::ops::nhwcToNchwKernel<float>(...)", 10e-6)]),
    record("conv_forward", [("void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1>(...)", 40e-6)]),
    # A GEMM with split-K; another without.
    record("gemm", [("ampere_sgemm_128x64_nn", 30e-6), ("void splitKreduce_kernel<32, 16, int, float>(...)", 3e-6)]),
    record("gemm", [("ampere_sgemm_128x128_nn", 50e-6)]),
    # No kernels named: left out.
    {"type": "record", "op": "gemm", "dtype": "f32", "status": "ok", "params": {}, "metrics": {}},
]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "named.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps({"type": "context"}) + "\n")
        for r in records:
            f.write(json.dumps(r) + "\n")
    r = subprocess.run(["/usr/bin/python3", report, path, "--json"], capture_output=True, text=True, timeout=60)
    check("runs", r.returncode == 0, r.stderr)
    rows = {x["op"]: x for x in json.loads(r.stdout)} if r.returncode == 0 else {}
    conv, gemm = rows.get("conv_forward", {}), rows.get("gemm", {})
    check("calls_counted_unnamed_left_out", conv.get("calls") == 2 and gemm.get("calls") == 2, str(rows)[:500])
    check("kernels_per_call", conv.get("kernels_per_call") == 2 and gemm.get("kernels_per_call") == 1.5, str(rows)[:500])
    check("tensor_cores_and_fp32_units_told_apart", conv.get("tensor_cores") == 0.5 and conv.get("fp32_units") == 0.5, str(conv))
    # The transposes take 20 of 80 us in the one call that has them; none in the other.
    check("transposes_and_their_time", conv.get("transpose") == 0.5 and abs(conv.get("transpose_time_share", 0) - 0.125) < 1e-9, str(conv))
    check("split_k_seen", gemm.get("split_k") == 0.5 and conv.get("split_k") == 0, str(gemm))
    check("main_kernel_is_the_longest", conv.get("main_kernels", [[""]])[0][0].startswith("sm90_xmma_fprop") or
          conv.get("main_kernels", [[""]])[1][0].startswith("sm90_xmma_fprop"), str(conv.get("main_kernels")))
    table = subprocess.run(["/usr/bin/python3", report, path], capture_output=True, text=True, timeout=60)
    check("table", table.returncode == 0 and "| conv_forward | f32 | 2 |" in table.stdout, table.stdout + table.stderr)
    bad = os.path.join(tmp, "bad.jsonl")
    with open(bad, "w") as f:
        f.write('{"type": "record", "op": \n')
    r = subprocess.run(["/usr/bin/python3", report, bad], capture_output=True, text=True, timeout=60)
    check("bad_json_named_with_line", r.returncode != 0 and "bad.jsonl:1: not JSON" in r.stderr, r.stderr)
    r = subprocess.run(["/usr/bin/python3", report, os.path.join(tmp, "missing.jsonl")], capture_output=True, text=True, timeout=60)
    check("missing_file_named", r.returncode != 0 and "missing.jsonl" in r.stderr, r.stderr)
    unnamed = os.path.join(tmp, "unnamed.jsonl")
    with open(unnamed, "w") as f:
        f.write(json.dumps(records[-1]) + "\n")
    r = subprocess.run(["/usr/bin/python3", report, unnamed], capture_output=True, text=True, timeout=60)
    check("nothing_named_says_how", r.returncode != 0 and "--kernel-names" in r.stderr, r.stderr)
finish()
