import sys, time
sys.path.insert(0, "/work/main/scripts")
import torch_train  # allocator policy
import torch, torchvision
from torch.profiler import profile, ProfilerActivity
torch.set_num_threads(1)
net = sys.argv[1]; b = int(sys.argv[2])
m = getattr(torchvision.models, net)(num_classes=1000); m.train()
x = torch.randn(b, 3, 64, 64); y = torch.randint(0, 1000, (b,))
lf = torch.nn.CrossEntropyLoss()
def once(grad):
    with torch.set_grad_enabled(grad):
        out = m(x); loss = lf(out, y)
    del out, loss
res = {}
for grad in (False, True):
    for _ in range(3): once(grad)
    with profile(activities=[ProfilerActivity.CPU]) as p:
        for _ in range(4): once(grad)
    res[grad] = {e.key: e.self_cpu_time_total / 4 / 1e3 for e in p.key_averages()}
keys = sorted(set(res[False]) | set(res[True]), key=lambda k: -(res[True].get(k, 0)))
print(f"{net} b{b}: ms per forward, train mode, no autograd / autograd")
for k in keys[:14]:
    print(f"  {k:40s} {res[False].get(k, 0):7.2f} {res[True].get(k, 0):7.2f}")
print(f"  {'all':40s} {sum(res[False].values()):7.2f} {sum(res[True].values()):7.2f}")
