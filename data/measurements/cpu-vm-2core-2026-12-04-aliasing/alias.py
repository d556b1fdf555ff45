import torch, time, statistics, sys
torch.set_num_threads(1)
flush = torch.empty(64*1024*1024//4)
def t(m, n, k, tb, reps=7):
    a = torch.randn(m, k)
    b = torch.randn(n, k) if tb else torch.randn(k, n)
    ts = []
    for _ in range(reps):
        flush.add_(1.0)
        s = time.perf_counter()
        (a @ b.t()) if tb else (a @ b)
        ts.append(time.perf_counter() - s)
    return statistics.median(ts[1:]), min(ts[1:])
for (m, n, k, tb) in [(4,9216,4096,0),(4,9200,4096,0),(4,9216,4080,0),(4,9240,4100,0),(4,9176,4056,0),
                      (4,4096,4096,0),(4,4080,4096,0),(4,4096,4080,0),(4,4104,4104,0),
                      (4,4096,9216,1),(4,4096,9200,1),(4,4080,9200,1),(4,4104,9240,1),
                      (4,4096,1000,0),(4,4080,1000,0),(4,4104,1000,0)]:
    med, mn = t(m, n, k, tb)
    print(f"{m:3d} {n:6d} {k:6d} tb={tb} med {med*1e3:7.2f} ms min {mn*1e3:7.2f}  GB/s {n*k*4/med/1e9:.2f}", flush=True)
