#!/usr/bin/python3
"""Interleaved: DDP default buckets vs one bucket at the end vs no_sync (broadcast_buffers on for all)."""
import os, sys, time, statistics, datetime
sys.path.insert(0, '/work/main/scripts')
import torch_train
import torch, torch.distributed as dist, torch.multiprocessing as mp
NET = sys.argv[1]; ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 10

class A: pass
def rank_main(rank, q):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29588", rank=rank, world_size=2, timeout=datetime.timedelta(seconds=120))
    torch.set_num_threads(1); torch.manual_seed(0)
    args = A(); args.network = NET; args.batch = 4; args.input = [64, 64]; args.seq = 64; args.onnx = None
    m1, x, y = torch_train.build(args); torch.manual_seed(0); m2, _, _ = torch_train.build(args)
    d1 = torch.nn.parallel.DistributedDataParallel(m1)
    d2 = torch.nn.parallel.DistributedDataParallel(m2, bucket_cap_mb=10000)
    o1 = torch.optim.SGD(d1.parameters(), lr=0.01); o2 = torch.optim.SGD(d2.parameters(), lr=0.01)
    lf = torch.nn.CrossEntropyLoss()
    def step(d, o, ctx=None):
        dist.barrier(); t0 = time.perf_counter()
        o.zero_grad(set_to_none=True)
        import contextlib
        with (ctx() if ctx else contextlib.nullcontext()):
            l = lf(d(x), y); t1 = time.perf_counter(); l.backward(); t2 = time.perf_counter()
        o.step(); t3 = time.perf_counter()
        return [t1 - t0, t2 - t1, t3 - t2, t3 - t0]
    for _ in range(3): step(d1, o1); step(d2, o2); step(d1, o1, d1.no_sync)
    t = {"default": [], "one_bucket": [], "no_sync": []}
    for r in range(ROUNDS):
        t["default"].append(step(d1, o1)); t["one_bucket"].append(step(d2, o2)); t["no_sync"].append(step(d1, o1, d1.no_sync))
    out = {}
    for k, v in t.items():
        g = [torch.zeros(len(v), 4, dtype=torch.float64) for _ in range(2)]
        dist.all_gather(g, torch.tensor(v, dtype=torch.float64))
        slow = torch.maximum(g[0], g[1])
        out[k] = [statistics.median(slow[:, j].tolist()) for j in range(4)]
    if rank == 0: q.put(out)
    dist.barrier(); dist.destroy_process_group()

if __name__ == "__main__":
    ctx = mp.get_context("spawn"); q = ctx.Queue()
    ps = [ctx.Process(target=rank_main, args=(r, q)) for r in range(2)]
    [p.start() for p in ps]
    out = q.get(timeout=900); [p.join() for p in ps]
    for k, v in out.items():
        print(f"{NET} {k:10s} fwd {v[0]*1e3:6.1f} bwd {v[1]*1e3:6.1f} upd {v[2]*1e3:6.1f} step {v[3]*1e3:6.1f} ms (medians of the slowest rank)")
