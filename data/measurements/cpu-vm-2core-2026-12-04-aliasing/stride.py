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
    return statistics.median(ts[1:])
rows = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
for n in [9000, 9104, 9024, 9088, 8960, 9728, 9216, 10240, 8192]:
    b = n*4; p = (b & -b)
    med = t(4, n, rows, 0)
    print(f"tb=0 m=4 rows={rows} n={n:6d} row bytes {b} = {p} x {b//p}: {med*1e3:7.2f} ms, {n*rows*4/med/1e9:.2f} GB/s", flush=True)
