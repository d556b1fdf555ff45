#!/usr/bin/python3
import os, sys, time, statistics, datetime
sys.path.insert(0, '/work/main/scripts')
from dnnperf_py.allocator import keep_freed_memory
keep_freed_memory()
import torch, torch.distributed as dist, torch.multiprocessing as mp

SIZES = [int(float(s) * 2**20) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else [1 << 20, 13 << 20, 25 << 20]
MODES = ["warm", "evict64", "written"]

def rank_main(rank, q):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29577", rank=rank, world_size=2, timeout=datetime.timedelta(seconds=120))
    torch.set_num_threads(1)
    big = torch.ones(64 << 18)  # 64 MiB
    res = {}
    for size in SIZES:
        buf = torch.ones(size // 4); src = torch.ones(size // 4)
        for _ in range(3): dist.all_reduce(buf)
        t = {m: [] for m in MODES}
        for r in range(12):
            for m in MODES:
                if m == "evict64": big.add_(1.0)
                if m == "written": buf.copy_(src)
                dist.barrier()
                t0 = time.perf_counter(); dist.all_reduce(buf); dt = time.perf_counter() - t0
                t[m].append(dt)
        res[size] = t
    out = {}
    for size, t in res.items():
        for m, v in t.items():
            g = [torch.zeros(len(v), dtype=torch.float64) for _ in range(2)]
            dist.all_gather(g, torch.tensor(v, dtype=torch.float64))
            slow = [max(a, b) for a, b in zip(g[0].tolist(), g[1].tolist())]
            out[(size, m)] = (statistics.median(slow), min(slow))
    if rank == 0: q.put(out)
    dist.barrier(); dist.destroy_process_group()

if __name__ == "__main__":
    ctx = mp.get_context("spawn"); q = ctx.Queue()
    ps = [ctx.Process(target=rank_main, args=(r, q)) for r in range(2)]
    [p.start() for p in ps]
    out = q.get(timeout=600); [p.join() for p in ps]
    for (size, m), (med, mn) in sorted(out.items()):
        print(f"{size/2**20:6.1f} MiB {m:8s} median {med*1e3:7.2f} ms  min {mn*1e3:7.2f} ms")
