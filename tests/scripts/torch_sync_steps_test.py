#!/usr/bin/python3
"""scripts/torch_sync_steps.py on real processes: a record per network whose figures follow from
the steps it kept, a resumed run that skips what was measured, and bad arguments named."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "torch_sync_steps.py")

def run(*args, timeout=300):
    return subprocess.run(["/usr/bin/python3", script, *args], capture_output=True, text=True, timeout=timeout)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "sync.jsonl")
    small = ["--procs", "2", "--networks", "squeezenet1_1", "--batch", "2", "--input", "32", "--steps", "4", "--warmup", "1"]
    r = run(*small, "-o", out)
    check("runs", r.returncode == 0 and "squeezenet1_1: alone" in r.stdout, r.stdout + r.stderr)
    if r.returncode == 0:
        lines = [json.loads(line) for line in open(out)]
        records = [x for x in lines if x["type"] == "record"]
        check("one_record", lines[0]["type"] == "context" and len(records) == 1, str(lines)[:400])
        rec = records[0]
        m = rec["metrics"]
        ranks = m["per_rank_s"]
        slowest = [max(a, b) for a, b in zip(*ranks)]
        med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
        check("layout", rec["op"] == "sync_step" and rec["layout"]["co_running"] == 2 and rec["layout"]["threads"] == 1
              and rec["params"] == {"network": "squeezenet1_1", "batch": 2, "input": 32}, json.dumps(rec)[:400])
        # Each rank's 4 steps together, rank 0's 4 alone; a step's time is its slowest rank's.
        check("steps_kept", len(ranks) == 2 and all(len(x) == 4 for x in ranks) and len(m["lone_s"]) == 4, json.dumps(m)[:400])
        check("figures", abs(m["slowest_median_s"] - med(slowest)) < 1e-12 and abs(rec["seconds"]["median"] - med(slowest)) < 1e-12
              and abs(m["own_median_s"] - med([med(x) for x in ranks])) < 1e-12 and abs(m["lone_median_s"] - med(m["lone_s"])) < 1e-12
              and m["slowest_median_s"] >= m["own_median_s"], json.dumps(m)[:400])
        # The same ranks under DDP: 4 steps each, the slowest's median, and every parameter's
        # gradient in some bucket (squeezenet has no buffers to broadcast).
        import torchvision
        parameter_bytes = sum(4 * p.numel() for p in torchvision.models.squeezenet1_1().parameters())
        ddp_slowest = [max(a, b) for a, b in zip(*m["ddp_per_rank_s"])]
        check("ddp_steps", len(m["ddp_per_rank_s"]) == 2 and all(len(x) == 4 for x in m["ddp_per_rank_s"])
              and abs(m["ddp_slowest_median_s"] - med(ddp_slowest)) < 1e-12, json.dumps(m)[:600])
        check("ddp_buckets", sum(m["ddp_bucket_bytes"]) == parameter_bytes and len(m["ddp_bucket_bytes"]) >= 2
              and m["ddp_buffers"] == 0 and m["ddp_buffer_bytes"] == 0, json.dumps(m)[:600])
        r = run(*small, "--resume", "-o", out)
        check("resume_skips", r.returncode == 0 and "alone" not in r.stdout
              and sum(1 for line in open(out) if json.loads(line)["type"] == "record") == 1, r.stdout + r.stderr)
        r = run(*small, "-o", out)
        check("no_overwrite", r.returncode != 0 and "exists already" in r.stderr, r.stdout + r.stderr)
    r = run("--procs", "1", "-o", os.path.join(tmp, "x.jsonl"))
    check("one_rank_refused", r.returncode != 0 and "--procs must be at least 2" in r.stderr, r.stderr)
    r = run("--procs", "2", "--networks", "resnet18", "-o", os.path.join(tmp, "x.jsonl"))
    check("validated_network_refused", r.returncode != 0 and "unknown network(s) resnet18" in r.stderr and "squeezenet1_1" in r.stderr, r.stderr)
    # A network that cannot train at the size asked: the rank's error is named, recorded as failed.
    bad = os.path.join(tmp, "bad.jsonl")
    r = run("--procs", "2", "--networks", "squeezenet1_1", "--batch", "2", "--input", "32", "--steps", "3", "--warmup", "0", "--threads", "1", "-o", bad,
            "--input", "8")
    check("bad_size_refused", r.returncode != 0 and "--input at least 32" in r.stderr, r.stderr)

# A rank that fails (here: a network no rank can build) is named, and no rank is left waiting.
probe = ("import sys\nsys.path.insert(0, sys.argv[1])\nimport torch_sync_steps as t\n"
         "if __name__ == '__main__':\n    try:\n        t.run_ranks(2, 'no_such_net', 2, 32, 1, 3, 0)\n"
         "    except RuntimeError as e:\n        print(e)\n")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "probe.py")
    with open(path, "w") as f:
        f.write(probe)
    r = subprocess.run(["/usr/bin/python3", path, os.path.dirname(os.path.abspath(script))], capture_output=True, text=True, timeout=300)
check("failing_rank_named", r.returncode == 0 and "no_such_net: rank" in r.stdout and "failed: KeyError" in r.stdout, r.stdout + r.stderr)

finish()
