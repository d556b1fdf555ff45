#!/usr/bin/python3
"""Why a training step's forward convolutions run slower than the same convolutions in an
inference: a network's forward passes profiled (torch.profiler, self time of
aten::mkldnn_convolution and aten::native_batch_norm per forward, five forwards after three) four
ways, twice over: under no_grad with each output freed as the next is made (an inference), under
no_grad with every Conv2d/BatchNorm2d/ReLU/ReLU6 output kept in a list until the next forward (as
a training step keeps them for its backward), and with autograd on, outputs kept or not (eval-mode
batch norm throughout, so that only the outputs' fate differs). One thread, 64x64 inputs.

    /usr/bin/python3 keep_outputs.py mobilenet_v2 32     # NETWORK BATCH; ~20 s
"""
import os, sys, types
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts"))
import torch_train  # noqa: E402  (its allocator policy applies before torch allocates)
import torch
from torch.profiler import profile, ProfilerActivity
torch.set_num_threads(1)
net=sys.argv[1]; b=int(sys.argv[2])
model, x, y = torch_train.build(types.SimpleNamespace(network=net, batch=b, input=(64, 64), seq=128))
model.eval()
kept=[]
def hook(m, i, o): kept.append(o)
def run(keep, grad):
    hs=[]
    if keep:
        for m in model.modules():
            if isinstance(m,(torch.nn.Conv2d,torch.nn.BatchNorm2d,torch.nn.ReLU6,torch.nn.ReLU)): hs.append(m.register_forward_hook(hook))
    for i in range(3):
        kept.clear()
        with torch.set_grad_enabled(grad): model(x)
    with profile(activities=[ProfilerActivity.CPU]) as p:
        for i in range(5):
            kept.clear()
            with torch.set_grad_enabled(grad): model(x)
    for h in hs: h.remove()
    ev={e.key:e.self_cpu_time_total/5e3 for e in p.key_averages()}
    return ev.get("aten::mkldnn_convolution",0), ev.get("aten::native_batch_norm",0)
for r in range(2):
    for keep,grad in [(False,False),(True,False),(False,True),(True,True)]:
        print(net,b,"keep",keep,"grad",grad,"conv ms %.1f bn ms %.1f"%run(keep,grad),flush=True)
