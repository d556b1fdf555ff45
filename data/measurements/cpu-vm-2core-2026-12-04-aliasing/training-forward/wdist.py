import sys, time, statistics
sys.path.insert(0, "/work/main/scripts")
import torch_train  # allocator policy
import torch
torch.set_num_threads(1)
MB = 1 << 20
size = 4 * MB
x = torch.ones(size // 4)
for dist_mb in [8, 32, 64, 128, 192, 256, 384, 512, 1024]:
    n = max(1, dist_mb * MB // size)
    pool = [torch.zeros(size // 4) for _ in range(n)]
    for b in pool: b.add_(1)  # touch
    def run(kind):
        ts = []
        for it in range(3):
            for i, b in enumerate(pool if n > 1 else pool * 16):
                s = time.perf_counter()
                if kind == "write": torch.mul(x, 2.0, out=b)
                elif kind == "read": b.sum()
                else: b.add_(1.0)
                ts.append(time.perf_counter() - s)
        ts = ts[len(ts) // 3:]
        return statistics.median(ts)
    r = {k: run(k) for k in ("write", "read", "rmw")}
    print(f"distance {dist_mb:5d} MiB: write {size/r['write']/1e9:5.2f} GB/s  read {size/r['read']/1e9:5.2f} GB/s  read-modify-write {size/r['rmw']/1e9:5.2f} GB/s", flush=True)
    del pool
