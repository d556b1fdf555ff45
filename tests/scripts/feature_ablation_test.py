#!/usr/bin/python3
"""scripts/feature_ablation.py on the kept runs of data/measurements/cpu-vm-2core-intel/ with the
built dnnperf: the profile as fitted prices them as validate does, and switching the step warmth
off prices them worse."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
dnnperf = sys.argv[1]
runs = os.path.join(root, "data", "measurements", "cpu-vm-2core-intel")
with tempfile.TemporaryDirectory() as tmp:
    table = os.path.join(tmp, "table.json")
    out = subprocess.run(["/usr/bin/python3", os.path.join(root, "scripts", "feature_ablation.py"), runs, "--dnnperf", dnnperf, "--json", table],
                         capture_output=True, text=True)
    check("the ablation runs", out.returncode == 0, out.stderr[-500:])
    rows = {r["variant"]: r for r in json.load(open(table))} if out.returncode == 0 else {}
    fitted = rows.get("as fitted", {})
    check("every case of the grid priced", fitted.get("training_cases") == 24 and fitted.get("inference_cases") == 24, str(fitted))
    # The same MAPE validate itself gives on the seven networks and Inception-v3 together.
    cases = []
    for networks, size in (("alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder", "64"), ("inception_v3_noaux", "128")):
        v = subprocess.run([dnnperf, "validate", "--hardware", os.path.join(runs, "calibrate_profile.json"), "--networks", networks, "--batch", "4,16,32",
                            "--input", size, "--measured", os.path.join(runs, "ground_truth"), "--json"], capture_output=True, text=True)
        cases += [abs(c["error_percent"]) for c in json.loads(v.stdout)["cases"]]
    check("as fitted, the training MAPE is validate's", abs(fitted.get("training_mape", -1) - sum(cases) / len(cases)) < 1e-9, str(fitted))
    cold = rows.get("no step warmth at all (cold prices; no far bytes)", {})
    check("without the step warmth the training steps are priced worse", cold.get("training_mape", 0) > fitted.get("training_mape", 1e9), str(cold))
    check("every variant has both kinds", all(r["inference_mape"] > 0 for r in rows.values()), str(rows))
finish()
