import sys, os, time, statistics
sys.path.insert(0, "/work/main/scripts")
import torch_train  # allocator policy
import torch, torchvision
torch.set_num_threads(1)
net = sys.argv[1]; b = int(sys.argv[2])
m = getattr(torchvision.models, net)(num_classes=1000)
x = torch.randn(b, 3, 64, 64); y = torch.randint(0, 1000, (b,))
lf = torch.nn.CrossEntropyLoss()
opt = torch.optim.SGD(m.parameters(), lr=0.01)
def t(mode):
    ts = []
    for i in range(8):
        if mode == "train_grad":
            m.train(); opt.zero_grad(set_to_none=True)
            s = time.perf_counter(); out = m(x); loss = lf(out, y); e = time.perf_counter()
            loss.backward(); opt.step()
        elif mode == "train_grad_nobwd":
            m.train(); s = time.perf_counter(); out = m(x); loss = lf(out, y); e = time.perf_counter(); del out, loss
        elif mode == "train_nograd":
            m.train()
            with torch.no_grad():
                s = time.perf_counter(); out = m(x); e = time.perf_counter()
        elif mode == "eval_nograd":
            m.eval()
            with torch.no_grad():
                s = time.perf_counter(); out = m(x); e = time.perf_counter()
        ts.append(e - s)
    return statistics.median(ts[2:])
for mode in ["eval_nograd", "train_nograd", "train_grad_nobwd"]:
    print(f"{net} b{b} {mode:18s} {t(mode)*1e3:7.1f} ms", flush=True)
