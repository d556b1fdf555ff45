import torch, time, statistics, sys
torch.set_num_threads(1)
flush = torch.empty(64*1024*1024//4)
def t(m, n, k, ta, tb, reps=7):
    a = torch.randn(k, m) if ta else torch.randn(m, k)
    b = torch.randn(n, k) if tb else torch.randn(k, n)
    A = a.t() if ta else a; B = b.t() if tb else b
    ts = []
    for _ in range(reps):
        flush.add_(1.0)
        s = time.perf_counter(); A @ B; ts.append(time.perf_counter() - s)
    return statistics.median(ts[1:])
def pair(m, n, k, ta, tb, n2, k2, m2=None, label=""):
    a = t(m, n, k, ta, tb); b = t(m2 or m, n2, k2, ta, tb)
    fl = lambda m,n,k: 2*m*n*k
    ra = a / fl(m,n,k); rb = b / fl(m2 or m,n2,k2)
    print(f"{label:28s} {m}x{n}x{k} ta={ta} tb={tb}: {a*1e3:8.2f} ms; vs {m2 or m}x{n2}x{k2}: {b*1e3:8.2f} ms; per-flop ratio {ra/rb:.2f}", flush=True)
which = sys.argv[1]
if which == "tb1":
    for k, k2 in [(9216, 9200), (8960, 9000), (9728, 9700), (4096, 4100), (2048, 2040), (25088, 25000)]:
        pair(4, 4096, k, 0, 1, 4096, k2, label="B[n,k] row k")
if which == "size":
    for n, k in [(1024, 1024), (2048, 1024), (1024, 4096), (512, 2048), (2048, 2048), (4096, 256)]:
        pair(4, n, k, 0, 0, n - 8, k, label="B[k,n] size")
if which == "m":
    for m in [1, 16, 64, 256, 1024]:
        pair(m, 9216, 4096 if m < 256 else 1024, 0, 0, 9200, 4096 if m < 256 else 1024, label="m")
if which == "ta":
    for m, n, k in [(4096, 9216, 4), (4096, 4096, 16), (1024, 1024, 64), (512, 512, 512)]:
        pair(m, n, k, 1, 0, n - 8, k, m2=m - 8, label="A[k,m], wide")
if which == "square":
    for s in [512, 1024, 2048]:
        pair(s, s, s, 0, 0, s - 8, s - 8, m2=s, label="square nn")
        pair(s, s, s, 0, 1, s - 8, s - 8, m2=s, label="square nt")
