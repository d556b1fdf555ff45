"""The host's time per framework op: what a training step costs the CPU that drives an
asynchronous device, op by op, beside the kernels it queues.

PyTorch runs a layer as more calls than its kernels: an nn.MultiheadAttention forward is some
20 calls (projections, views, transposes, the attention itself), its backward as many autograd
nodes, and a parameter's gradient is accumulated by a node of its own. On a GPU that is fast
enough, the step lasts as long as the host takes to issue all of them, whatever the kernels
cost. Each op kind of dnnperf's graph IR (core/graph/op_kind.h) is run here as the framework
runs it, on inputs so small that the device's work is negligible, and the host's time is taken:

  forward   a burst of calls, each building its own autograd graph, divided by the burst;
  backward  one backward pass over R independent outputs of the op, for R = 1 and R = 8: the slope
            is one op's backward (the pass's own start, paid once per step, drops out).

`dnnperf fit` keeps the medians as device.host_op_s, and the predictor's host timeline charges them
per op instead of per kernel (docs/prediction.md).
"""
import statistics
import time

import torch
from torch import nn
from torch.nn import functional as F

# Tiny shapes: a batch of 2, 16 channels of 8x8 images, 8 tokens of 32 features.
IMAGE = (2, 16, 8, 8)
TOKENS = (2, 8, 32)


def _leaf(shape, device):
    return torch.randn(*shape, device=device, requires_grad=True)


def _module(module, shape):
    """An op that is an nn.Module applied to one tensor input."""
    def make(device):
        m = module().to(device).train()
        x = _leaf(shape, device)
        return lambda: m(x)
    return make


def _function(fn, *shapes):
    """An op that is a function of tensors, each a leaf that requires a gradient."""
    def make(device):
        xs = [_leaf(s, device) for s in shapes]
        return lambda: fn(*xs)
    return make


def _embedding(device):
    m = nn.Embedding(100, TOKENS[2]).to(device)
    idx = torch.randint(0, 100, TOKENS[:2], device=device)
    return lambda: m(idx)


def _attention(device):
    m = nn.MultiheadAttention(TOKENS[2], 4, dropout=0.1, batch_first=True).to(device).train()
    x = _leaf(TOKENS, device)
    return lambda: m(x, x, x, need_weights=False)[0]


def _cross_entropy(device):
    logits = _leaf((TOKENS[0], 10), device)
    y = torch.randint(0, 10, (TOKENS[0],), device=device)
    return lambda: F.cross_entropy(logits, y)


# Each op kind of the IR as PyTorch's modules and functions run it (torchvision's and
# scripts/dnnperf_py/models.py's networks use these).
OPS = {
    "conv2d": _module(lambda: nn.Conv2d(IMAGE[1], IMAGE[1], 3, padding=1), IMAGE),
    "linear": _module(lambda: nn.Linear(TOKENS[2], TOKENS[2]), TOKENS),
    "matmul": _function(torch.matmul, TOKENS, (TOKENS[0], TOKENS[2], TOKENS[1])),
    "max_pool2d": _module(lambda: nn.MaxPool2d(2), IMAGE),
    "avg_pool2d": _module(lambda: nn.AvgPool2d(2), IMAGE),
    "adaptive_avg_pool2d": _module(lambda: nn.AdaptiveAvgPool2d(1), IMAGE),
    "batch_norm": _module(lambda: nn.BatchNorm2d(IMAGE[1]), IMAGE),
    "layer_norm": _module(lambda: nn.LayerNorm(TOKENS[2]), TOKENS),
    "relu": _module(nn.ReLU, IMAGE),
    "relu6": _module(nn.ReLU6, IMAGE),
    "gelu": _module(nn.GELU, TOKENS),
    "silu": _module(nn.SiLU, IMAGE),
    "sigmoid": _module(nn.Sigmoid, IMAGE),
    "tanh": _module(nn.Tanh, TOKENS),
    "hardswish": _module(nn.Hardswish, IMAGE),
    "add": _function(torch.add, IMAGE, IMAGE),
    "mul": _function(torch.mul, IMAGE, IMAGE),
    "softmax": _function(lambda x: torch.softmax(x, -1), TOKENS),
    "reduce_mean": _function(lambda x: x.mean(dim=1), TOKENS),
    "dropout": _module(lambda: nn.Dropout(0.1), TOKENS),
    "concat": _function(lambda a, b: torch.cat([a, b], 1), IMAGE, IMAGE),
    "flatten": _function(lambda x: torch.flatten(x, 1), IMAGE),
    "embedding": _embedding,
    "attention": _attention,
    "cross_entropy": _cross_entropy,
}


def measure(kind, device, burst=20, rounds=5):
    """Median host seconds per call of op `kind` on `device`: (forward, backward)."""
    call = OPS[kind](device)
    cuda = str(device).startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)

    def backward_pass(count):
        outputs = [call() for _ in range(count)]
        grads = [torch.ones_like(o) for o in outputs]
        sync()
        t0 = time.perf_counter()
        torch.autograd.backward(outputs, grads)
        t = time.perf_counter() - t0
        sync()
        return t

    for _ in range(3):  # warm-up: allocator, kernel selection, lazy initialisation
        backward_pass(1)
    forward, backward = [], []
    for _ in range(rounds):
        sync()
        t0 = time.perf_counter()
        outputs = [call() for _ in range(burst)]
        forward.append((time.perf_counter() - t0) / burst)
        del outputs
        sync()
        one = statistics.median(backward_pass(1) for _ in range(3))
        many = statistics.median(backward_pass(8) for _ in range(3))
        backward.append(max(0.0, (many - one) / 7))
    return statistics.median(forward), statistics.median(backward)
