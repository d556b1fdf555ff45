#!/usr/bin/python3
"""scripts/fit_stability.py refits a calibration on seeded nine tenths of its kernels: records are
left out (anchors never), each refit differs, the summary is that of the predictions, a second
run reuses the refits, and bad input is named. Fits a real calibration's GEMMs and convolutions
(tests/data/warmth-late/) with the built dnnperf."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
script = os.path.join(root, "scripts", "fit_stability.py")
dnnperf = sys.argv[1]
data = os.path.join(root, "tests", "data", "warmth-late")

spec = importlib.util.spec_from_file_location("fit_stability", script)
fit_stability = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit_stability)


def run(*args):
    return subprocess.run(["/usr/bin/python3", script, "--dnnperf", dnnperf, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    # The subsample: a tenth of the GEMMs and convolutions, never an anchor nor another record.
    source = os.path.join(tmp, "records.jsonl")
    with open(source, "w") as f:
        f.write(json.dumps({"meta": "header"}) + "\n")
        for i in range(2000):
            f.write(json.dumps({"op": "conv_forward" if i % 2 else "gemm", "params": {"i": i}, "anchor": i < 100}) + "\n")
        for i in range(50):
            f.write(json.dumps({"op": "memory_copy", "params": {"bytes": i}}) + "\n")
    import random
    kept, dropped = fit_stability.subsample(source, os.path.join(tmp, "copy.jsonl"), 0.1, random.Random(3))
    with open(os.path.join(tmp, "copy.jsonl")) as f:
        copy = [json.loads(line) for line in f]
    check(f"the 1,900 records that are no anchors are counted ({kept} + {dropped})", kept + dropped == 1900)
    check(f"about a tenth left out ({dropped} of 1,900)", 140 <= dropped <= 260)
    check("every anchor kept", sum(1 for r in copy if r.get("anchor")) == 100)
    check("other records kept, in order", sum(1 for r in copy if r.get("op") == "memory_copy") == 50 and copy[0] == {"meta": "header"})

    # Two refits of a real calibration's kernel file, and the summary of their predictions.
    calibration = os.path.join(tmp, "calibration")
    os.makedirs(calibration)
    shutil.copy(os.path.join(data, "torch_cpu_kernels.jsonl"), calibration)
    out = os.path.join(tmp, "stability")
    done = run(calibration, "--networks", "resnet18,mobilenet_v2", "--batch", "4", "--input", "64", "--fits", "2", "-o", out)
    check("two refits run", done.returncode == 0, done.stderr[-800:])
    if done.returncode == 0:
        result = json.load(open(os.path.join(out, "stability.json")))
        for network in ("resnet18", "mobilenet_v2"):
            e = result["networks"][network]
            values = e["refits_s"]
            check(f"{network}: one prediction per refit ({values})", len(values) == 2 and all(v > 0 for v in values))
            check(f"{network}: min and max are the refits'", e["min_s"] == min(values) and e["max_s"] == max(values))
            check(f"{network}: range from the refits", abs(e["range_percent"] - 100 * (max(values) - min(values)) / e["median_s"]) < 1e-9)
        profiles = [open(os.path.join(out, f"fit_{i}", "profile.json")).read() for i in range(2)]
        check("each refit leaves out its own tenth: the two profiles differ", profiles[0] != profiles[1])
        check("each refit says how many kernels it left out", "left out" in done.stdout)
        check("the subsampled copies are not kept", not any(name.endswith(".jsonl") for name in os.listdir(os.path.join(out, "fit_0"))))
        start = time.time()
        again = run(calibration, "--networks", "resnet18", "--batch", "4", "--input", "64", "--fits", "2", "-o", out)
        check("a second run reuses both refits", again.returncode == 0 and again.stdout.count("kept from an earlier run") == 2, again.stdout[-400:])
        check("and predicts from them the same",
              json.load(open(os.path.join(out, "stability.json")))["networks"]["resnet18"]["refits_s"] == result["networks"]["resnet18"]["refits_s"])

    # Bad input: named, non-zero, before any fitting.
    missing = run(os.path.join(tmp, "nowhere"), "--networks", "resnet18", "-o", out)
    check("a missing folder is named", missing.returncode != 0 and "no such folder" in missing.stderr, missing.stderr[-300:])
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    nothing = run(empty, "--networks", "resnet18", "-o", out)
    check("a folder without measurements is named", nothing.returncode != 0 and "no measurement files" in nothing.stderr)
    bad_net = run(calibration, "--networks", "resnet18,no_such_net", "-o", os.path.join(tmp, "bad"))
    check("an unknown network is named before any refit",
          bad_net.returncode != 0 and "no_such_net" in bad_net.stderr and not os.path.exists(os.path.join(tmp, "bad", "fit_0")), bad_net.stderr[-300:])
    one = run(calibration, "--networks", "resnet18", "--fits", "1", "-o", out)
    check("one refit is no spread", one.returncode != 0 and "--fits must be at least 2" in one.stderr)
    broken = os.path.join(tmp, "broken")
    os.makedirs(broken)
    with open(os.path.join(broken, "bad.jsonl"), "w") as f:
        f.write('{"op": "gemm"}\nnot json\n')
    torn = run(broken, "--networks", "resnet18", "-o", os.path.join(tmp, "torn"))
    check("a malformed line is named by file and line", torn.returncode != 0 and "bad.jsonl:2" in torn.stderr, torn.stderr[-300:])

finish()
