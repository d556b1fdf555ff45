#!/usr/bin/python3
"""ddp_broadcast_buffers.py's forwards in one process alone (no DDP, one thread): the slowest
rank's forward against the lone one's. ~15 s."""
import os, sys, time, statistics, types
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts"))
import torch_train  # noqa: E402  (its allocator policy applies before torch allocates)
import torch
torch.set_num_threads(1)
for net in ["resnet18", "mobilenet_v2"]:
  for rep in range(2):
    model, x, y = torch_train.build(types.SimpleNamespace(network=net, batch=4, input=(64, 64), seq=128))
    opt = torch.optim.SGD(model.parameters(), lr=0.01); lf = torch.nn.CrossEntropyLoss()
    fw=[]; st=[]
    for i in range(25):
        t0=time.perf_counter(); opt.zero_grad(set_to_none=True); loss=lf(model(x),y); t1=time.perf_counter(); loss.backward(); opt.step(); t2=time.perf_counter()
        if i>=5: fw.append(t1-t0); st.append(t2-t0)
    print(net, "p1 fwd", statistics.median(fw), min(fw), "step", statistics.median(st))
