#!/usr/bin/python3
"""How cold is "cold": every fifth of ResNet-50's own batch-16 kernels at 64x64 (../exact/) timed
warm (no eviction) and after evicting 16 MiB to 2 GiB before each repetition (scripts/torch_bench.py
times them after 64 MiB), the smallest of two medians per size, against the 64 MiB time. No
arguments; ~6 min on the 2-core VM. Output: eviction_curve.txt.

    /usr/bin/python3 data/measurements/cpu-vm-2core-2026-12-03-intel/cold-state/eviction_curve.py
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts"))
import torch_bench  # noqa: E402  (its allocator policy applies before torch allocates)
import torch  # noqa: E402

torch.set_num_threads(1)
kernels = [json.loads(line) for line in open(os.path.join(HERE, "..", "exact", "resnet50_b16.jsonl"))]
kernels = [k for k in kernels if k.get("op") and k.get("status") == "ok"][::5]


class Evict:
    def __init__(self, mib):
        self.buffer = torch.empty(mib * (1 << 20) // 4)

    def __call__(self):
        self.buffer.fill_(1.0)


sizes = [16, 64, 128, 256, 512, 1024, 2048]
evict = {m: Evict(m) for m in sizes}
total = {m: 0.0 for m in ["warm"] + sizes}
for k in kernels:
    call = torch_bench.make_call(k["op"], k["params"], "cpu")
    runs = {}
    for _ in range(2):
        samples, _ = torch_bench.measure(call, "cpu", 0.05, None)
        runs.setdefault("warm", []).append(statistics.median(samples))
        for m in sizes:
            samples, _ = torch_bench.measure(call, "cpu", 0.03, evict[m])
            runs.setdefault(m, []).append(statistics.median(samples))
    base = min(runs[64])
    for m, v in runs.items():
        total[m] += min(v)
    print("%-22s 64 MiB %.3f ms  " % (k["op"], base * 1e3) + " ".join("%s:%.2f" % (m, min(v) / base) for m, v in runs.items()), flush=True)
print("sum against 64 MiB: " + ", ".join("%s %.3f" % (m, v / total[64]) for m, v in total.items()))
