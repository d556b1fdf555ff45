#!/usr/bin/python3
"""scripts/torch_train.py's run modes on real runs: gradient accumulation (the micro-batches
recorded, phases left untimed because they interleave, DDP's no_sync on two processes), bf16
under autocast (recorded), BERT as the zoo builds it (its parameters, BertModel's count), and
the refusals: fp16 or tf32 on a CPU, accumulation with inference."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from script_check import check, finish  # noqa: E402
from dnnperf_py.models import BERT, BertClassifier, trainable_parameters  # noqa: E402

script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "torch_train.py")


def run(*args):
    return subprocess.run(["/usr/bin/python3", script, "--iterations", "2", "--warmup", "1", *args], capture_output=True, text=True, timeout=300)


# networks/zoo/transformers.cc: BertModel 109,482,240 and 335,141,888 parameters, plus the 2-way classifier.
for name, expected in (("bert-base", 109_482_240), ("bert-large", 335_141_888)):
    hidden = BERT[name]["hidden"]
    got = trainable_parameters(BertClassifier(**BERT[name])) - (2 * hidden + 2)
    check(f"{name}_parameters", got == expected, f"{got} != {expected}")

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "acc.json")
    r = run("--network", "resnet18", "--batch", "2", "--input", "32,32", "--procs", "2", "--accumulate", "3", "-o", out)
    check("accumulate_runs", r.returncode == 0 and os.path.exists(out), r.stdout[-300:] + r.stderr[-600:])
    if r.returncode == 0:
        j = json.load(open(out))
        check("accumulate_recorded", j["accumulate"] == 3 and j["phases"] is None and j["procs"] == 2 and j["dtype"] == "fp32", json.dumps(j)[:300])
    out = os.path.join(tmp, "bf16.json")
    r = run("--network", "bert-base", "--batch", "1", "--seq", "8", "--dtype", "bf16", "-o", out)
    check("bert_bf16_runs", r.returncode == 0 and os.path.exists(out), r.stderr[-600:])
    if r.returncode == 0:
        j = json.load(open(out))
        check("bert_bf16_recorded", j["dtype"] == "bf16" and j["input"] == [8] and j["accumulate"] == 1 and j["phases"] is not None, json.dumps(j)[:300])
    for dtype in ("fp16", "tf32"):
        r = run("--network", "resnet18", "--batch", "2", "--input", "32,32", "--dtype", dtype, "-o", os.path.join(tmp, "x.json"))
        check(f"{dtype}_cpu_refused", r.returncode != 0 and f"--dtype {dtype} needs --device cuda" in r.stderr, r.stderr[-300:])
    r = run("--network", "resnet18", "--batch", "2", "--input", "32,32", "--accumulate", "2", "--inference", "-o", os.path.join(tmp, "x.json"))
    check("accumulate_inference_refused", r.returncode != 0 and "--accumulate applies to training, not --inference" in r.stderr, r.stderr[-300:])
    r = run("--network", "bert-base", "--batch", "1", "--seq", "600", "-o", os.path.join(tmp, "x.json"))
    check("bert_seq_refused", r.returncode != 0 and "exceeds its 512 positions" in r.stderr, r.stderr[-300:])
finish()
