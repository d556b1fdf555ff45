#!/usr/bin/python3
"""Draws pointwise_kernels.json: 60 1x1 convolutions with 2-40 MB filters, each in the three
directions. Half strided by 2 (four in five over images the stride divides: oneDNN's jit_1x1
path after subsampling), half unstrided (seven in ten at batches of 16 or more: jit_1x1; the rest
PyTorch's native path). Every kernel under 2 GFLOP (the batch halves until it is)."""
import json, math, random

rng = random.Random(11)
channels = [256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
shapes = []
while len(shapes) < 60:
    c, k = rng.choice(channels), rng.choice(channels)
    if not 2e6 <= c * k * 4 <= 40e6:
        continue
    stride = 2 if rng.random() < 0.5 else 1
    side = rng.choice([2, 3, 4, 5, 6, 7, 8, 10, 12, 14]) * (stride if rng.random() < 0.8 else 1)
    if stride == 2 and side < 3:
        continue
    low = 16 if stride == 1 and rng.random() < 0.7 else 1
    n = int(round(math.exp(rng.uniform(math.log(low), math.log(64)))))
    p = (side - 1) // stride + 1
    while 2 * n * c * k * p * p > 2e9 and n > 1:
        n //= 2
    if 2 * n * c * k * p * p > 2e9:
        continue
    shapes.append(dict(n=n, c=c, k=k, h=side, w=side, r=1, s=1, stride_h=stride, stride_w=stride,
                       pad_h=0, pad_w=0, dilation_h=1, dilation_w=1, groups=1))
kernels = [{"op": op, "params": s} for s in shapes
           for op in ("conv_forward", "conv_backward_data", "conv_backward_filter")]
with open("pointwise_kernels.json", "w") as f:
    json.dump(kernels, f, indent=0)
