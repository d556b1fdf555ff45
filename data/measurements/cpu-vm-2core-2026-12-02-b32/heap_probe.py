import torch, time, statistics, sys
torch.set_num_threads(1)
x = torch.randn(16 << 20)  # 64 MB input
def relu_ms():
    s = []
    for _ in range(7):
        a = time.perf_counter(); y = torch.relu(x); s.append(time.perf_counter() - a); del y
    return statistics.median(s) * 1e3
print("relu 64 MB fresh output, as the process starts:", round(relu_ms(), 1), "ms")
# Grow the heap: many small tensors (below the mmap threshold) alive at once, then freed; the
# heap keeps their (touched) pages, and its top can now serve a 64 MB request.
small = [torch.ones(4 << 20) for _ in range(40)]  # 40 x 16 MB
del small
print("after 640 MB of 16 MB tensors came and went:", round(relu_ms(), 1), "ms")
