#!/usr/bin/python3
"""What DDP's buffer broadcast costs a data-parallel forward: two gloo ranks (one thread each) train
ResNet-18 and MobileNetV2 at batch 4, 64x64, with DistributedDataParallel(broadcast_buffers=True)
(PyTorch's default, which torch_train.py runs: batch norm's running statistics sent from rank 0
before every forward) and False, alternately; per setting the slowest rank's forward (zero_grad,
forward, loss), median and minimum of 20 steps after 5, each step after a barrier.
ddp_lone_forward.py times the same forwards in one process alone. ~40 s.
"""
import os, sys, time, statistics, datetime, types
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts"))
import torch_train  # noqa: E402  (its allocator policy applies before torch allocates)
import torch, torch.distributed as dist, torch.multiprocessing as mp

def run(rank, net, bb, q):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29611", rank=rank, world_size=2, timeout=datetime.timedelta(seconds=60))
    torch.set_num_threads(1); torch.manual_seed(0)

    model, x, y = torch_train.build(types.SimpleNamespace(network=net, batch=4, input=(64, 64), seq=128))
    model = torch.nn.parallel.DistributedDataParallel(model, broadcast_buffers=bb)
    opt = torch.optim.SGD(model.parameters(), lr=0.01); lf = torch.nn.CrossEntropyLoss()
    fw = []
    for i in range(25):
        dist.barrier(); t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True); loss = lf(model(x), y); t1 = time.perf_counter()
        loss.backward(); opt.step()
        t = torch.tensor([t1 - t0], dtype=torch.float64); dist.all_reduce(t, op=dist.ReduceOp.MAX)
        if i >= 5: fw.append(float(t))
    if rank == 0: q.put((net, bb, statistics.median(fw), min(fw)))
    dist.destroy_process_group()

if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    for net in ["resnet18", "mobilenet_v2"]:
        for bb in [True, False, True, False]:
            q = ctx.Queue(); ps = [ctx.Process(target=run, args=(r, net, bb, q)) for r in range(2)]
            [p.start() for p in ps]; [p.join() for p in ps]
            print(*q.get(), flush=True)
