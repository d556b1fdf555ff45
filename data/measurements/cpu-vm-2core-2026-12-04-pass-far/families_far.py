import sys, statistics, time
sys.path.insert(0, "../../../scripts")
import torch_train, torch, torch_bench
torch.set_num_threads(1)
ev = torch.empty(128 << 20)
for op in ["memory_batch_norm", "memory_batch_norm_backward", "memory_relu6", "memory_activation", "memory_elementwise", "memory_copy", "memory_max_pool_backward"]:
  for shape in [(32,96,32,32),(16,256,16,16)]:
    n = 1
    for v in shape: n *= v
    params = {"bytes": n*4, "batch": shape[0], "channels": shape[1]} if "batch_norm" in op else {"bytes": n*4}
    call = torch_bench.make_call(op, params, "cpu")
    s, _ = torch_bench.measure(call, "cpu", 0.2, None)
    far = []
    for i in range(8):
        if hasattr(call, "prepare"): call.prepare()
        ev.fill_(1.0)
        t = time.perf_counter(); call(); far.append(time.perf_counter() - t)
    h, f = statistics.median(s), statistics.median(far)
    print("%-28s %-18s %5.1f MB hot %.3f ms evicted %.3f ms  extra %.0f ps per buffer byte" % (op, shape, n*4/1e6, h*1e3, f*1e3, (f-h)/(n*4)*1e12), flush=True)
