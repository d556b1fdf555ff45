import sys, statistics, time
sys.path.insert(0, "../../../scripts")
import torch_train, torch, torch_bench
torch.set_num_threads(1)
for shape in [(32,96,32,32),(32,144,16,16),(32,32,32,32),(16,256,32,32)]:
    x = torch.randn(*shape)
    call = torch_bench.make_call("memory_batch_norm_backward", {"bytes": x.numel()*4, "batch": shape[0], "channels": shape[1]}, "cpu")
    s, _ = torch_bench.measure(call, "cpu", 0.2, None)
    ev = torch.empty(128 << 20)
    far = []
    for i in range(8):
        ev.fill_(1.0)
        t = time.perf_counter(); call(); far.append(time.perf_counter() - t)
    print(shape, "%.1f MB" % (x.numel()*4/1e6), "hot %.3f ms" % (statistics.median(s)*1e3), "after 512MiB eviction %.3f ms" % (statistics.median(far)*1e3), flush=True)
