#!/usr/bin/python3
"""The PyTorch backend's memory: its allocator policy puts even a 300 MB tensor on the heap (where a
freed block is reused, not mapped afresh), glibc's defaults do not; --large-memory-sizes times
the passes over a parameter set at the sizes given, after the others; optimizer steps rotate
through parameters (each met cold) and say how many; ReLU6 is timed as a training step runs it; --pass-distances times the distance curve."""
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

# Optimizer rotation and ReLU6 through torch_bench's own functions (a file: keep_freed_memory
# re-executes its script). Prints one JSON object of what the checks below assert.
ROTATION = """
import json, sys
sys.path.insert(0, %r)
import torch, torch_bench
torch_bench.rotation_bytes = lambda device: 1 << 20  # 1 MiB: 8 parameters of 64 KiB with their gradients
n = 16384
count = torch_bench.rotated_parameters("sgd", n, "cpu")
created = []
real_parameter = torch.nn.Parameter
torch.nn.Parameter = lambda data: created.append(real_parameter(data)) or created[-1]
step = torch_bench.make_call("memory_sgd", {"bytes": 4 * n}, "cpu")
torch.nn.Parameter = real_parameter
before = [p.detach().clone() for p in created]
for _ in range(count + 1):
    step()
moved = [int(round(float(((b - p.detach()) / (0.01 * 1e-3)).mean()))) for b, p in zip(before, created)]
relu6 = torch_bench.make_call("memory_relu6", {"bytes": 4096}, "cpu")
relu6.prepare()
relu6()
print(json.dumps({"count": count, "adam": torch_bench.rotated_parameters("adam", n, "cpu"), "large": torch_bench.rotated_parameters("sgd", 1 << 28, "cpu"),
                  "parameters": len(created), "moved": moved, "has_prepare": hasattr(relu6, "prepare")}))
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

    rotation = os.path.join(tmp, "rotation.py")
    with open(rotation, "w") as f:
        f.write(ROTATION % scripts)
    r = subprocess.run(["/usr/bin/python3", rotation], capture_output=True, text=True, timeout=120)
    check("rotation_runs", r.returncode == 0, r.stderr[-2000:])
    if r.returncode == 0:
        got = json.loads(r.stdout.strip().splitlines()[-1])
        # 1 MiB over SGD's two tensors of 64 KiB: 8 parameters; Adam's four: 4; never fewer than one.
        check("rotation_spans_the_bytes", got["count"] == 8 and got["adam"] == 4 and got["large"] == 1, str(got))
        check("one_optimizer_per_parameter", got["parameters"] == 8, str(got))
        # Taken after make_call stepped each once (its state); count + 1 steps move the first twice.
        check("each_call_steps_the_next_parameter", got["moved"] == [2] + [1] * 7, str(got["moved"]))
        check("relu6_input_made_before_each_repetition", got["has_prepare"], str(got))

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
        check("every_pass_at_the_plain_sizes", len(small) == 18 and "memory_dropout" in small and "memory_relu6" in small and "memory_batch_norm_inference" in small
              and "memory_max_pool_stride1" in small and "memory_avg_pool_stride1" in small, str(small))
        check("parameter_passes_at_the_large_ones",
              large == ["memory_copy", "memory_elementwise", "memory_sgd", "memory_momentum", "memory_adam"], str(large))
        check("large_ones_last", [x["params"]["bytes"] for x in records][-len(large):] == [16384] * len(large))
        rotated = {x["op"]: x["layout"].get("rotated_parameters") for x in records if x["params"] == {"bytes": 16384}}
        check("optimizer_records_say_their_rotation", all(isinstance(rotated[op], int) and rotated[op] >= 1 for op in ("memory_sgd", "memory_momentum", "memory_adam"))
              and rotated["memory_copy"] is None, str(rotated))
    # The distance curve: a read and a write per distance, each beside its hot time, the distance as
    # the step replay counts it (a pool of n buffers read in turn: n - 1 back; written from one
    # source: n back), and resumable.
    out = os.path.join(tmp, "distance.jsonl")
    distances = ["/usr/bin/python3", bench, "--pass-distances", "8,16", "--threads", "1", "--resume", "-o", out]
    r = subprocess.run(distances, capture_output=True, text=True, timeout=120)
    check("distances_run", r.returncode == 0, r.stderr[-2000:])
    if r.returncode == 0:
        records = [json.loads(line) for line in open(out) if '"record"' in line]
        got = sorted((x["params"]["direction"], x["params"]["distance_mib"], x["metrics"]["distance_bytes"] >> 20) for x in records)
        check("a_read_and_a_write_per_distance", got == [("read", 8, 4), ("read", 16, 12), ("write", 8, 8), ("write", 16, 16)], str(got))
        check("beside_their_hot_times", all(x["op"] == "pass_distance" and x["metrics"]["hot_median_s"] > 0 and x["seconds"]["median"] > 0 for x in records))
        r = subprocess.run(distances, capture_output=True, text=True, timeout=120)
        check("distances_resume", r.returncode == 0 and sum('"record"' in line for line in open(out)) == 4, r.stderr[-500:])
    for spec, said in (("2", "below one 4 MiB buffer"), ("far", "invalid literal")):
        r = subprocess.run(["/usr/bin/python3", bench, "--pass-distances", spec, "-o", os.path.join(tmp, "bad.jsonl")], capture_output=True, text=True, timeout=120)
        check("bad_distance_named_" + spec, r.returncode != 0 and f"--pass-distances {spec}" in r.stderr and said in r.stderr, r.stderr[-500:])
    r = subprocess.run(["/usr/bin/python3", bench, "--large-memory-sizes", "4097", "-o", os.path.join(tmp, "bad.jsonl")],
                       capture_output=True, text=True, timeout=120)
    check("bad_large_size_named", r.returncode != 0 and "memory size 4097 must be a positive multiple of 4096" in r.stderr, r.stderr[-500:])
finish()
