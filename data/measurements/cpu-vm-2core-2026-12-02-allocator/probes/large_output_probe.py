import os, sys, time, torch
torch.set_num_threads(1)
def t(f, n=5):
    f(); ts=[]
    for _ in range(n):
        s=time.perf_counter(); f(); ts.append(time.perf_counter()-s)
    ts.sort(); return ts[len(ts)//2]
g = torch.randn(4, 4096)       # grad_out^T ... weight grad = g^T @ x
x = torch.randn(4, 25088)
W = torch.randn(4096, 25088)
x2 = torch.randn(4, 9216)
print(os.environ.get("MALLOC_MMAP_MAX_"), "wgrad 4096x25088x4 TN: %.1f ms" % (1e3*t(lambda: torch.mm(g.t(), x))))
print("wgrad 4096x9216x4 TN: %.1f ms" % (1e3*t(lambda: torch.mm(g.t(), x2))))
print("dgrad 4x25088x4096 NN: %.1f ms" % (1e3*t(lambda: torch.mm(g, W))))
print("fwd   4x4096x25088 NT: %.1f ms" % (1e3*t(lambda: torch.mm(x, W.t()))))
out = torch.empty(4096, 25088)
print("wgrad into kept out: %.1f ms" % (1e3*t(lambda: torch.mm(g.t(), x, out=out))))
print("fill 411MB fresh: %.1f ms" % (1e3*t(lambda: torch.empty(4096,25088).fill_(1.0))))
print("fill 411MB kept: %.1f ms" % (1e3*t(lambda: out.fill_(1.0))))
