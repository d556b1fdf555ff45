#!/usr/bin/python3
"""scripts/ddp_breakdown.py on two real gloo processes: every part of the step is timed and
written, the derived figures follow from them, and a network PyTorch cannot build is named."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "ddp_breakdown.py")


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "r18.json")
    r = subprocess.run(["/usr/bin/python3", script, "--network", "resnet18", "--batch", "2", "--input", "32,32", "--procs", "2",
                        "--rounds", "2", "--warmup", "1", "--port", "29547", "-o", out], capture_output=True, text=True, timeout=300)
    check("runs", r.returncode == 0 and "DDP minus no_sync" in r.stdout, r.stdout + r.stderr)
    if r.returncode == 0:
        d = json.load(open(out))
        parts = ("one_process", "ddp", "no_sync", "allreduce_alone")
        check("parts_timed", all(len(d[k]["samples_s"]) == 2 and d[k]["median_s"] > 0 for k in parts), json.dumps(d)[:400])
        # ResNet-18's 11.7 million parameters: 44.6 MiB of fp32 gradients, three 25 MiB-capped buckets.
        check("gradients", d["gradient_bytes"] == 4 * 11689512 and d["buckets"] == 3, f"{d['gradient_bytes']} bytes in {d['buckets']}")
        check("derived", abs(d["communication_in_step_s"] - (d["ddp"]["median_s"] - d["no_sync"]["median_s"])) < 1e-12
              and abs(d["step_co_run_slowdown"] * d["one_process"]["median_s"] - d["no_sync"]["median_s"]) < 1e-9, json.dumps(d)[:400])
        # Every rank's own times are kept; a round's time is its slowest rank's, so never below a rank's own.
        ranks = d["per_rank_s"]["no_sync"]
        check("per_rank", len(ranks) == 2 and all(len(r) == 2 for r in ranks)
              and d["no_sync"]["samples_s"] == [max(a, b) for a, b in zip(*ranks)]
              and d["rank_co_run_slowdown"] <= d["step_co_run_slowdown"] + 1e-12, json.dumps(d)[:600])
    r = subprocess.run(["/usr/bin/python3", script, "--network", "resnet18", "--batch", "1", "--input", "32,32", "-o", os.path.join(tmp, "x.json")],
                       capture_output=True, text=True, timeout=120)
    check("untrainable_size_named", r.returncode != 0 and "resnet18 does not train at batch 1, input [32, 32]: Expected more than 1 value" in r.stderr,
          r.stdout + r.stderr)
    r = subprocess.run(["/usr/bin/python3", script, "--network", "resnet999", "--batch", "1", "--procs", "2", "-o", os.path.join(tmp, "x.json")],
                       capture_output=True, text=True, timeout=120)
    check("unknown_network", r.returncode != 0 and "unknown network 'resnet999'" in r.stderr, r.stdout + r.stderr)
    r = subprocess.run(["/usr/bin/python3", script, "--network", "resnet18", "--batch", "1", "--procs", "1", "-o", os.path.join(tmp, "x.json")],
                       capture_output=True, text=True, timeout=120)
    check("one_process_refused", r.returncode != 0 and "--procs at least 2" in r.stderr, r.stdout + r.stderr)

finish()
