#!/usr/bin/python3
"""Batch-4 classifier GEMMs with B stored [k, n] (NN: an input gradient) and [n, k] (NT: a
forward), a copy of B into a fresh tensor, and plain reads and copies of 1-256 MB, under dnnperf's
allocator policy, one thread: whether a GEMM's slowness is the memory's or the BLAS's packing."""
import statistics
import sys
import time

sys.path.insert(0, "/work/main/scripts")
from dnnperf_py.allocator import keep_freed_memory  # noqa: E402
keep_freed_memory()
import torch  # noqa: E402
torch.set_num_threads(1)


def t(f, n=7):
    f()
    v = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        v.append(time.perf_counter() - t0)
    return statistics.median(v) * 1e3


for (m, n, k) in [(4, 4096, 4096), (4, 9216, 4096), (4, 4096, 1000)]:
    a, bnn, bnt = torch.randn(m, k), torch.randn(k, n), torch.randn(n, k)
    print(m, n, k, "NN %.1f ms" % t(lambda: torch.mm(a, bnn)), "NT %.1f ms" % t(lambda: torch.mm(a, bnt.t())),
          "copy B %.1f ms" % t(lambda: bnn.clone()))
for mb in (1, 4, 16, 64, 256):
    x = torch.randn(mb << 18)
    y = torch.empty_like(x)
    print(mb, "MB: sum %.2f ms, copy into an existing tensor %.2f ms" % (t(lambda: x.sum()), t(lambda: y.copy_(x))))
