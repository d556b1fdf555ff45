#!/usr/bin/python3
"""scripts/torch_train.py --reference on a real run: every listed kernel timed before and after
the iterations, in the list's order, by the first rank of a data-parallel run too; a bad list
named by file and entry before anything runs."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "torch_train.py")
KERNELS = [{"op": "gemm", "params": {"m": 64, "n": 48, "k": 32, "batch": 1, "trans_a": False, "trans_b": True}},
           {"op": "conv_backward_filter", "params": {"n": 2, "c": 4, "h": 8, "w": 8, "k": 8, "r": 3, "s": 3, "stride_h": 1, "stride_w": 1,
                                                     "pad_h": 1, "pad_w": 1, "dilation_h": 1, "dilation_w": 1, "groups": 1}},
           {"op": "memory_copy", "params": {"bytes": 1 << 16}}]


def run(*args):
    return subprocess.run(["/usr/bin/python3", script, "--network", "resnet18", "--batch", "2", "--input", "32,32", "--iterations", "2", "--warmup", "1", *args],
                          capture_output=True, text=True, timeout=300)


with tempfile.TemporaryDirectory() as tmp:
    listed = os.path.join(tmp, "ref.json")
    with open(listed, "w") as f:
        json.dump(KERNELS, f)
    for procs in (1, 2):
        out = os.path.join(tmp, f"p{procs}.json")
        r = run("--procs", str(procs), "--reference", listed, "-o", out)
        check(f"runs_p{procs}", r.returncode == 0 and os.path.exists(out), r.stdout + r.stderr)
        if r.returncode == 0:
            got = json.load(open(out)).get("reference", [])
            check(f"every_kernel_p{procs}", [(g["op"], g["params"]) for g in got] == [(k["op"], k["params"]) for k in KERNELS]
                  and all(g["dtype"] == "f32" and g["before_s"] > 0 and g["after_s"] > 0 for g in got), json.dumps(got)[:400])
    out = os.path.join(tmp, "none.json")
    r = run("-o", out)
    check("none_without_flag", r.returncode == 0 and "reference" not in json.load(open(out)), r.stderr[-300:])
    with open(listed, "w") as f:
        json.dump(KERNELS[:1] + [{"op": "gemm_typo", "params": {}}], f)
    r = run("--reference", listed, "-o", os.path.join(tmp, "bad.json"))
    check("bad_entry_named", r.returncode != 0 and "ref.json: entry 1: not a kernel torch_bench.py times" in r.stderr
          and not os.path.exists(os.path.join(tmp, "bad.json")), r.stderr[-300:])
    with open(listed, "w") as f:
        f.write("{not json")
    r = run("--reference", listed, "-o", os.path.join(tmp, "bad.json"))
    check("not_json_named", r.returncode != 0 and "ref.json: not JSON" in r.stderr, r.stderr[-300:])
    r = run("--reference", os.path.join(tmp, "missing.json"), "-o", os.path.join(tmp, "bad.json"))
    check("missing_named", r.returncode != 0 and "missing.json: No such file or directory" in r.stderr, r.stderr[-300:])
finish()
