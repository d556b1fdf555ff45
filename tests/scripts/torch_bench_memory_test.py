#!/usr/bin/python3
"""The PyTorch backend's memory: its allocator policy puts even a 300 MB tensor on the heap (where a
freed block is reused, not mapped afresh), glibc's defaults do not; and --large-memory-sizes times
the passes over a parameter set at the sizes given, after the others."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_check import check, finish  # noqa: E402

scripts = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")

# keep_freed_memory re-executes its script, so the probe is a file, not `python3 -c`.
PROBE = """
import sys
sys.path.insert(0, %r)
from dnnperf_py import allocator
allocator.keep_freed_memory()
import torch
t = torch.empty(300 << 18).fill_(1.0)  # 300 MiB
heap = []
for line in open("/proc/self/maps"):
    if line.rstrip().endswith("[heap]"):
        lo, hi = (int(v, 16) for v in line.split()[0].split("-"))
        heap.append((lo, hi))
print(any(lo <= t.data_ptr() < hi for lo, hi in heap), allocator.describe())
"""

with tempfile.TemporaryDirectory() as tmp:
    probe = os.path.join(tmp, "probe.py")
    with open(probe, "w") as f:
        f.write(PROBE % scripts)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "DNNPERF_SYSTEM_MALLOC"}
    r = subprocess.run(["/usr/bin/python3", probe], capture_output=True, text=True, timeout=120, env=env)
    check("policy_puts_large_blocks_on_the_heap", r.returncode == 0 and r.stdout.startswith("True glibc, every block from the heap"), r.stdout + r.stderr)
    r = subprocess.run(["/usr/bin/python3", probe], capture_output=True, text=True, timeout=120, env=dict(env, DNNPERF_SYSTEM_MALLOC="1"))
    check("glibc_defaults_map_them", r.returncode == 0 and r.stdout.startswith("False glibc defaults"), r.stdout + r.stderr)

    out = os.path.join(tmp, "mem.jsonl")
    bench = os.path.join(scripts, "torch_bench.py")
    r = subprocess.run(["/usr/bin/python3", bench, "--memory-sizes", "8192", "--large-memory-sizes", "16384", "--device", "cpu", "--threads", "1",
                        "--target", "0.01", "-o", out], capture_output=True, text=True, timeout=300)
    check("large_sizes_run", r.returncode == 0, r.stderr[-2000:])
    if r.returncode == 0:
        records = [json.loads(line) for line in open(out)]
        records = [x for x in records if x.get("type") == "record"]
        small = [x["op"] for x in records if x["params"] == {"bytes": 8192}]
        large = [x["op"] for x in records if x["params"] == {"bytes": 16384}]
        check("every_pass_at_the_plain_sizes", len(small) == 17 and "memory_dropout" in small and "memory_batch_norm_inference" in small
              and "memory_max_pool_stride1" in small and "memory_avg_pool_stride1" in small, str(small))
        check("parameter_passes_at_the_large_ones",
              large == ["memory_copy", "memory_elementwise", "memory_sgd", "memory_momentum", "memory_adam"], str(large))
        check("large_ones_last", [x["params"]["bytes"] for x in records][-len(large):] == [16384] * len(large))
    r = subprocess.run(["/usr/bin/python3", bench, "--large-memory-sizes", "4097", "-o", os.path.join(tmp, "bad.jsonl")],
                       capture_output=True, text=True, timeout=120)
    check("bad_large_size_named", r.returncode != 0 and "memory size 4097 must be a positive multiple of 4096" in r.stderr, r.stderr[-500:])
finish()
