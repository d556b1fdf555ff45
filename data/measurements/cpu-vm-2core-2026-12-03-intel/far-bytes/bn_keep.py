#!/usr/bin/python3
"""Batch norm (training) and ReLU6 over MobileNetV2-like activations: output freed each call (as
calibration / inference) vs every output kept (as a training forward keeps them)."""
import sys, time, statistics
sys.path.insert(0, '/work/main/scripts')
from dnnperf_py.allocator import keep_freed_memory
keep_freed_memory()
import torch
torch.set_num_threads(1)
shapes = [(32, 96, 32, 32), (32, 144, 16, 16), (32, 32, 32, 32), (32, 192, 8, 8)]
def bn(x, w, b): return torch.nn.functional.batch_norm(x, None, None, w, b, training=True)
def relu6(x, w, b): return torch.nn.functional.relu6(x)
res = {}
for rnd in range(5):
    for name, f in (("bn", bn), ("relu6", relu6)):
        for mode in ("freed", "kept"):
            xs = [torch.randn(*s) for s in shapes] * 12  # 48 calls per round
            ws = {s[1]: (torch.ones(s[1]), torch.zeros(s[1])) for s in shapes}
            keep = []
            t = {s: 0.0 for s in shapes}
            for x in xs:
                t0 = time.perf_counter()
                y = f(x, *ws[x.shape[1]])
                t[tuple(x.shape)] += time.perf_counter() - t0
                if mode == "kept": keep.append(y)
                del y
            for s in shapes: res.setdefault((name, mode, s), []).append(t[s] / 12)
            del keep
for s in shapes:
    for name in ("bn", "relu6"):
        fr = statistics.median(res[(name, "freed", s)]); kp = statistics.median(res[(name, "kept", s)])
        mb = 4 * s[0] * s[1] * s[2] * s[3] / 2**20
        print(f"{name:5s} {str(s):20s} {mb:5.1f} MiB freed {fr*1e3:6.3f} ms kept {kp*1e3:6.3f} ms  x{kp/fr:.2f}")
