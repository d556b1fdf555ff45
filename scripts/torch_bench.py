#!/usr/bin/python3
"""PyTorch calibration backend: times the kernels dnnperf's lowering produces (GEMMs and the three
convolution directions; with --memory-sizes the memory-bound passes: copy, elementwise, activation,
ReLU6 as a training step runs it, softmax, max pooling and its backward, average pooling, training batch norm and its backward,
embedding gathers and SGD, momentum and Adam steps through torch.optim; --large-memory-sizes the
passes a whole parameter set makes, over larger buffers) through torch, on the CPU
or a CUDA device, into dnnperf
measurement records. Shape sets come from dnnperf itself (`dnnperf bench --list-shapes`), so both backends
measure the same shapes:

    /usr/bin/python3 scripts/torch_bench.py --shapes sample:200:1 -o cpu_sample.jsonl
    /usr/bin/python3 scripts/torch_bench.py --shapes zoo:resnet18 --batch 8 -o cpu_resnet18.jsonl

Each kernel: warm-up, then repetitions until about --target seconds (at least 5), median and
spread. --co-run P times them alone and again beside P-1 processes running the same kernels (how
data-parallel ranks sharing a CPU slow each other). Kernels above --max-flops are recorded as skipped (a single-threaded CPU would take
minutes). --time-budget stops cleanly; --resume continues a file. --cold evicts the caches before
each repetition of a GEMM or convolution; with --hot-pairs each convolution is timed again right
after, back to back (what a step's warmth saves it). The process runs with dnnperf's allocator policy
(dnnperf_py/allocator.py). --op-host times the host's work per framework op instead of kernels
(dnnperf_py/op_host.py: what drives a GPU's training step when the host is the slower side).
--anchors times eighty kernels of the default calibration first (17 s on the VM at half speed),
so that `dnnperf fit` can put files measured in different sessions on one speed (a shared
machine's speed moves by 10-100%).
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dnnperf_py import allocator  # noqa: E402
from dnnperf_py.allocator import keep_freed_memory  # noqa: E402

keep_freed_memory()  # before torch allocates anything

import torch  # noqa: E402

from dnnperf_py import machine, op_host, pass_distance  # noqa: E402
from dnnperf_py.conv_shape import conv_output  # noqa: E402
from dnnperf_py.records import RecordWriter, key, timing, utc_now  # noqa: E402
import socket  # noqa: E402


# Memory-bound passes, as dnnperf's lowering counts their traffic: (elements read, written) per
# element of the buffer, and a torch call.
def pass_channels(device):
    """Channels of the image the passes run on. A GPU's training batch norm reduces each channel
    in its own blocks, so 16 channels would leave most of an H200's 132 multiprocessors idle
    (measured: 7x slower per byte than the layers of a ResNet); a CPU's threads split the image."""
    return 256 if str(device).startswith("cuda") else 16


def image(x):
    """The buffer as one square image of pass_channels() channels (sizes are 4096 * 4^k bytes:
    the side is whole); a buffer made as an image (--bn-shapes) as it is."""
    if x.dim() == 4:
        return x
    c = pass_channels(x.device)
    side = int(round((x.numel() // c) ** 0.5))
    return x[: c * side * side].view(1, c, side, side)


# Tensors an optimizer step reads per element of its parameter: the parameter and its gradient,
# and the optimizer's state (momentum's velocity; Adam's first and second moments).
OPTIMIZER_TENSORS = {"sgd": 2, "momentum": 3, "adam": 4}


def rotation_bytes(device):
    """Bytes a rotation of optimizer steps spans (optimizer_rotation): twice the last-level cache
    (CPU: the largest one sysfs lists; CUDA: the L2), at least 64 MiB and at most 1 GiB."""
    if str(device).startswith("cuda"):
        llc = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0)
    else:
        llc = max(machine.cpu().get("caches", {}).values(), default=0)
    return min(max(2 * llc, 64 << 20), 1 << 30)


def optimizer_rotation(kind, n, device):
    """One optimizer step per call through torch.optim, as a training loop runs it, over a
    parameter of n elements: a different one each call, taken in turn from as many as span
    rotation_bytes() with their gradients and state. A step meets every parameter cold, last
    touched a whole pass ago; stepping one parameter again and again keeps it in the cache, which
    on the Intel VM (2026-12-03, L3 480 MiB) ran a 16 MiB SGD step at 42 GB/s where the networks'
    updates streamed at 20-22 GB/s."""
    optimizers = []
    for _ in range(rotated_parameters(kind, n, device)):
        # Constant values: cheap to make, and the updates stay far from zero and from denormals.
        p = torch.nn.Parameter(torch.full((n,), 0.5, device=device))
        p.grad = torch.full((n,), 1e-3, device=device)
        opt = torch.optim.Adam([p], lr=1e-3) if kind == "adam" else torch.optim.SGD([p], lr=0.01, momentum=0.9 if kind == "momentum" else 0)
        opt.step()  # its state made here, not in a timed step
        optimizers.append(opt)
    turn = itertools.cycle(optimizers)
    return lambda: next(turn).step()


def rotated_parameters(kind, n, device):
    """How many parameters optimizer_rotation takes in turn (at most 1024: small ones stay
    cached, but their step's cost is its calls, not its bytes)."""
    return max(1, min(1024, -(-rotation_bytes(device) // (OPTIMIZER_TENSORS[kind] * 4 * n))))


def optimizer_kind(op):
    """'sgd', 'momentum' or 'adam' for an optimizer pass (memory_sgd, ...); None for other ops."""
    kind = op.removeprefix("memory_")
    return kind if kind in OPTIMIZER_TENSORS else None


def batch_norm(x, y):
    xi = image(x)
    c = xi.shape[1]
    z, o = torch.zeros(c, device=xi.device), torch.ones(c, device=xi.device)
    return torch.nn.functional.batch_norm(xi, z, o.clone(), o, z.clone(), training=True)


def batch_norm_inference(x, y):
    """Eval-mode batch norm: the running statistics' affine map, one read and one write. A CPU
    walks it per sample and channel; over 2x2 images it took 15 ns a run against 0.5 for an add of
    the same bytes (PyTorch 1.13, the dev VM, 2026-12-02), a cost the plain passes never show."""
    xi = image(x)
    c = xi.shape[1]
    z, o = torch.zeros(c, device=xi.device), torch.ones(c, device=xi.device)
    return torch.nn.functional.batch_norm(xi, z, o, o, z, training=False)


def backward_of(forward):
    """The gradients of a pass, as autograd runs them in a training step: the forward (and what it
    saves) runs once per buffer size, the backward is timed. `forward(image)` returns the output
    and the tensors whose gradients a training step needs."""
    state = {}

    def step(x, y):
        n = tuple(x.shape)
        if n not in state:
            out, wrt = forward(image(x).detach().requires_grad_())
            state[n] = (out, wrt, torch.ones_like(out))
        out, wrt, grad = state[n]
        return torch.autograd.grad(out, wrt, grad, retain_graph=True)
    return step


def relu6_in_training(x):
    """ReLU6 as torchvision's modules run it in a training step: in place (inplace=True) on a
    tensor autograd tracks. PyTorch 1.13's hardtanh_ then clones its input and copies the result
    back, three passes where ReLU's in-place threshold makes one (the Intel VM, 2026-12-03: 0.19
    ms against 0.026 over 1.6 MB; under no_grad it is one pass): MobileNetV2's 35 ReLU6 layers
    took 5.2 ms of a 54 ms forward at batch 16, priced at 1.5 as plain passes. The tracked input
    is made before each repetition, untimed (`prepare`, which measure() runs)."""
    leaf = x.detach().requires_grad_()
    made = {}

    def prepare():
        made["input"] = leaf * 1.0

    def call():
        torch.nn.functional.hardtanh(made["input"], 0.0, 6.0, inplace=True)
    call.prepare = prepare
    return call


def max_pool_graph(xi):
    return torch.nn.functional.max_pool2d(xi, 3, 2, 1), [xi]


def batch_norm_graph(xi):
    c = xi.shape[1]
    weight = torch.ones(c, device=xi.device, requires_grad=True)
    bias = torch.zeros(c, device=xi.device, requires_grad=True)
    out = torch.nn.functional.batch_norm(xi, torch.zeros(c, device=xi.device), torch.ones(c, device=xi.device), weight, bias, training=True)
    return out, [xi, weight, bias]


MEMORY_OPS = {
    "memory_copy": (1, 1, lambda x, y: y.copy_(x)),
    # Two distinct inputs, as the lowering's add reads them: x + x reads one buffer (the second
    # read of each element hits the first's cache line) and ran at a copy's speed on the H200.
    "memory_elementwise": (2, 1, lambda x, y: torch.add(x, y, out=y)),
    "memory_activation": (1, 1, lambda x, y: torch.nn.functional.relu(x)),
    # make_call builds it (relu6_in_training): its input is made afresh for each repetition.
    "memory_relu6": (1, 1, None),
    "memory_softmax": (1, 1, lambda x, y: torch.softmax(x.view(-1, 1024), dim=1)),
    # The other kernel classes the lowering produces; traffic per element of the buffer as the
    # lowering counts it (fitting/compute/compute_fit.cc turns the records back into kernels).
    # Max pooling keeps its argmax indices (int64, half the input's bytes) for the backward, as in training.
    "memory_max_pool": (1, 0.75, lambda x, y: torch.nn.functional.max_pool2d(image(x), 3, 2, 1, return_indices=True)),
    "memory_max_pool_backward": (0.75, 1, backward_of(max_pool_graph)),
    "memory_avg_pool": (1, 0.25, lambda x, y: torch.nn.functional.avg_pool2d(image(x), 2, 2)),
    # The same families at stride 1 (GoogLeNet's and Inception's branch pools): as many outputs as
    # inputs, so four times the windows per byte; the fit tells the windows' arithmetic from the
    # traffic by the two (docs/models/fitting-notes.md, a pass's operation_s).
    "memory_max_pool_stride1": (1, 3, lambda x, y: torch.nn.functional.max_pool2d(image(x), 3, 1, 1, return_indices=True)),
    "memory_avg_pool_stride1": (1, 1, lambda x, y: torch.nn.functional.avg_pool2d(image(x), 3, 1, 1)),
    "memory_batch_norm": (2, 1, batch_norm),
    "memory_batch_norm_backward": (4, 1, backward_of(batch_norm_graph)),
    "memory_batch_norm_inference": (1, 1, batch_norm_inference),
    "memory_embedding": (1, 1, lambda x, y: torch.nn.functional.embedding(EMBED_IDS.on(x), x.view(-1, 256))),
    # Optimizer steps: make_call rotates their parameters (optimizer_rotation), so no function here.
    "memory_sgd": (2, 1, None),
    "memory_momentum": (3, 2, None),
    "memory_adam": (4, 3, None),
    # Training-mode dropout: a random draw per element, the scaled output and a one-byte mask.
    "memory_dropout": (1, 1.25, lambda x, y: torch.nn.functional.dropout(x, 0.1, training=True)),
}

# The passes that stream a network's whole parameter set (--large-memory-sizes).
LARGE_MEMORY_OPS = ("memory_copy", "memory_elementwise", "memory_sgd", "memory_momentum", "memory_adam")


class _EmbeddingIds(dict):
    """Row ids for an embedding over a table of n elements (256 per row): as many rows as the table,
    shuffled, on the table's device."""

    def on(self, table):
        key = (table.numel(), str(table.device))
        if key not in self:
            rows = max(table.numel() // 256, 1)
            self[key] = torch.randperm(rows, generator=torch.Generator().manual_seed(3)).to(table.device)
        return self[key]


EMBED_IDS = _EmbeddingIds()


def batch_norm_shapes(spec):
    """Batch norm forward and backward records over images: "grid", or a list of N:C:H."""
    if spec == "grid":
        shapes = [(n, c, h) for n in (1, 4, 16) for c in (16, 64, 256, 1024) for h in (2, 4, 8, 16, 32) if n * c * h * h * 4 <= 64 << 20]
    else:
        try:
            shapes = [tuple(int(v) for v in item.split(":")) for item in spec.split(",") if item]
        except ValueError:
            raise SystemExit(f"torch_bench: --bn-shapes: '{spec}' is not grid or a list of N:C:H")
        if any(len(s) != 3 or min(s) <= 0 for s in shapes):
            raise SystemExit(f"torch_bench: --bn-shapes: '{spec}': each shape is three positive integers N:C:H")
    return [{"op": op, "params": {"bytes": n * c * h * h * 4, "batch": n, "channels": c}}
            for n, c, h in shapes for op in ("memory_batch_norm", "memory_batch_norm_backward", "memory_batch_norm_inference")]


def flops(op, p):
    if op.startswith("memory_"):
        return 0.0
    if op == "gemm":
        return 2.0 * p["m"] * p["n"] * p["k"] * p["batch"]
    oh, ow = conv_output(p)
    return 2.0 * p["n"] * p["k"] * oh * ow * (p["c"] // p["groups"]) * p["r"] * p["s"]


# --dtype: the element type GEMMs and convolutions are timed in, as records name it. tf32 is fp32
# data on TF32 tensor cores (both of torch's switches on); f32 keeps torch's defaults; f8e4m3 the
# FP8 GEMMs of an FP8 recipe (fp8_gemm), where this torch has the type.
TORCH_DTYPES = {"f32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
if hasattr(torch, "float8_e4m3fn"):
    TORCH_DTYPES["f8e4m3"] = torch.float8_e4m3fn


def matrix_op(op):
    return op == "gemm" or op.startswith("conv_")


def fp8_gemm(op, p, rand, device):
    """The GEMM of an FP8 recipe's linear layer (Transformer Engine's): torch._scaled_mm over 8-bit
    operands with unit scales, bf16 out. cuBLASLt runs FP8 on Hopper with A row-major and B
    column-major only (Transformer Engine keeps the transposed copies it needs), so the record's
    trans flags do not change the layout. Convolutions and batched GEMMs (attention's products)
    stay 16-bit under such a recipe: skipped."""
    if op != "gemm" or p["batch"] > 1:
        raise RuntimeError("f8e4m3: an FP8 recipe runs its layers' plain GEMMs in 8 bits, not convolutions or batched GEMMs")
    a = rand(p["m"], p["k"])
    b = rand(p["n"], p["k"]).t()
    one = torch.ones((), device=device, dtype=torch.float32)
    return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def make_call(op, p, device, dtype="f32"):
    g = torch.Generator(device="cpu").manual_seed(7)
    element = TORCH_DTYPES[dtype] if matrix_op(op) else torch.float32

    def rand(*shape):
        return torch.rand(*shape, generator=g).mul_(2).sub_(1).to(device=device, dtype=element)  # uniform in [-1, 1): never zeros

    if dtype == "f8e4m3" and matrix_op(op):
        return fp8_gemm(op, p, rand, device)

    if optimizer_kind(op):
        return optimizer_rotation(optimizer_kind(op), p["bytes"] // 4, device)
    if op == "memory_relu6":
        return relu6_in_training(rand(p["bytes"] // 4))
    if op in MEMORY_OPS:
        n = p["bytes"] // 4
        x, y = rand(n), rand(n)
        if "channels" in p:  # an image of these dimensions (--bn-shapes)
            side = int(round((n // (p["batch"] * p["channels"])) ** 0.5))
            x = rand(p["batch"], p["channels"], side, side)
        fn = MEMORY_OPS[op][2]
        return lambda: fn(x, y)

    if op == "gemm":
        shape_a = (p["k"], p["m"]) if p["trans_a"] else (p["m"], p["k"])
        shape_b = (p["n"], p["k"]) if p["trans_b"] else (p["k"], p["n"])
        if p["batch"] > 1:
            a, b = rand(p["batch"], *shape_a), rand(p["batch"], *shape_b)
            a = a.transpose(1, 2) if p["trans_a"] else a
            b = b.transpose(1, 2) if p["trans_b"] else b
            return lambda: torch.bmm(a, b)
        a, b = rand(*shape_a), rand(*shape_b)
        a = a.t() if p["trans_a"] else a
        b = b.t() if p["trans_b"] else b
        return lambda: torch.mm(a, b)
    stride, pad, dil = (p["stride_h"], p["stride_w"]), (p["pad_h"], p["pad_w"]), (p["dilation_h"], p["dilation_w"])
    x = rand(p["n"], p["c"], p["h"], p["w"])
    w = rand(p["k"], p["c"] // p["groups"], p["r"], p["s"])
    if op == "conv_forward":
        return lambda: torch.nn.functional.conv2d(x, w, None, stride, pad, dil, p["groups"])
    oh, ow = conv_output(p)
    dy = rand(p["n"], p["k"], oh, ow)
    mask = [True, False, False] if op == "conv_backward_data" else [False, True, False]
    # What autograd runs for a convolution's backward.
    return lambda: torch.ops.aten.convolution_backward(dy, x, w, None, stride, pad, dil, False, [0, 0], p["groups"], mask)


class CacheFlush:
    """Evicts the caches before a repetition, outside the timed region: inside a training step a
    layer's weights were last touched a whole pass ago, so they come from memory, not from the
    cache a tight loop of repetitions keeps them in (CPU: 64 MiB, twice a large L3; GPU: twice the
    L2). Writing the buffer costs time but is not timed."""

    def __init__(self, device):
        size = 64 << 20
        if device.startswith("cuda"):
            size = max(size, 2 * getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0))
        self.buffer = torch.empty(size // 4, device=device)

    def __call__(self):
        self.buffer.fill_(1.0)


def measure(call, device, target, flush=None):
    """Repetition times of `call`, and on CUDA the host's dispatch time per call (metrics).

    On a CPU a repetition is its wall time. On CUDA it is the GPU's time for the call alone: a
    sleep kernel queued ahead of the start event keeps the GPU busy while the host dispatches the
    call, so the events bracket the call's kernels and not the host's work (which an idle GPU
    would wait for). The dispatch time is the host's cost per call when calls are queued back to
    back without waiting: a training step lasts as long as the slower of the two timelines."""
    cuda = device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    prepare = getattr(call, "prepare", None)  # untimed, before each call (relu6_in_training)
    for _ in range(2):
        if prepare:
            prepare()
        call()
    sync()
    metrics = {}
    if cuda:
        burst = 20
        t0 = time.perf_counter()
        for _ in range(burst):
            call()
        dispatch = (time.perf_counter() - t0) / burst
        sync()
        metrics = {"dispatch_s": dispatch}
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        # cover the dispatch twice over, at the GPU's ~2 GHz (the cycle count need not be exact)
        sleep_cycles = int(2e9 * (2 * dispatch + 20e-6))
    samples = []
    spent = 0.0
    # Cold repetitions pay a flush each: fewer of them.
    most = 50 if flush else 200
    while len(samples) < 5 or (spent < target and len(samples) < most):
        if flush:
            flush()
        if prepare:
            prepare()
        if flush or prepare:
            sync()
        t0 = time.perf_counter()
        if cuda:
            torch.cuda._sleep(sleep_cycles)
            begin.record()
        call()
        if cuda:
            end.record()
        sync()
        t = time.perf_counter() - t0
        samples.append(begin.elapsed_time(end) * 1e-3 if cuda else t)
        spent += t
    return samples, metrics


# ATen ops that allocate, view or relabel a tensor: on a CPU's path they say nothing of the algorithm.
BOOKKEEPING_OPS = {"empty", "empty_strided", "as_strided", "as_strided_", "resolve_conj", "resolve_neg", "view", "reshape", "_reshape_alias",
                   "t", "transpose", "expand", "permute", "squeeze", "unsqueeze", "alias", "detach", "lift_fresh", "result_type"}


def ran_kernels(call, device):
    """What one call of `call` runs, in order: on CUDA its device kernels (name, seconds), on a
    CPU the ATen ops on its path (aten::conv2d ... aten::mkldnn_convolution), bookkeeping apart.
    The names say which of a library's algorithms ran, which a time cannot."""
    from torch.profiler import ProfilerActivity, profile
    cuda = device.startswith("cuda")
    call()  # the library's plan for this shape is made before, not inside, the profiled call
    if cuda:
        torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA] if cuda else [ProfilerActivity.CPU]) as prof:
        call()
        if cuda:
            torch.cuda.synchronize()
    out = []
    for e in sorted(prof.events(), key=lambda e: e.time_range.start):
        on_device = str(getattr(e, "device_type", "")).endswith("CUDA")
        if cuda and on_device:
            out.append({"name": e.name, "seconds": e.time_range.elapsed_us() * 1e-6})
        elif not cuda and e.name.startswith("aten::") and e.name[6:] not in BOOKKEEPING_OPS:
            out.append({"name": e.name, "seconds": e.time_range.elapsed_us() * 1e-6})  # the path taken, outermost first
    return out


def memory_kernels(sizes, ops):
    """The passes `ops` over each of the comma-separated buffer sizes in bytes."""
    kernels = []
    for size in [int(s) for s in sizes.split(",") if s]:
        if size < 4096 or size % 4096:
            raise SystemExit(f"torch_bench: memory size {size} must be a positive multiple of 4096 bytes")
        kernels += [{"op": op, "params": {"bytes": size}} for op in ops]
    return kernels


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", help="zoo:NETWORK, deepbench, sample:N[:SEED[:GFLOP]], cnn:N[:SEED[:GFLOP]], depthwise:N[:SEED[:GFLOP]], square:N,... (GEMMs and convolutions)")
    parser.add_argument("--memory-sizes", default="", help="also memory-bound passes over these buffer sizes in bytes, e.g. 4096,1048576")
    parser.add_argument("--large-memory-sizes", default="",
                        help="also the passes a network's whole parameter set makes (copy, elementwise, and the sgd, momentum and "
                             "adam steps) over these sizes in bytes: an optimizer step streams hundreds of MB, past where the other "
                             "passes stop, and a bandwidth curve fitted without them guesses its plateau")
    parser.add_argument("--pass-distances", metavar="MIB,...|default",
                        help="CPU: also a 4 MiB pass read and written where it was last touched this many MiB ago, beside the same pass "
                             "hot (records of op pass_distance; dnnperf_py/pass_distance.py)")
    parser.add_argument("--bn-shapes", metavar="N:C:H,...|grid",
                        help="also batch norm (training, its backward, and inference) over images of these batch:channels:side shapes "
                             "(grid: batches 1, 4, 16 x channels 16-1024 x sides 2-32, up to 64 MiB): "
                             "a CPU's batch norm walks N x C runs, which a pass over one image cannot show")
    parser.add_argument("--batch", type=int, default=32, help="batch for zoo:NETWORK")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--dtype", default="f32", choices=sorted(TORCH_DTYPES),
                        help="element type of the GEMMs and convolutions (memory passes stay f32); tf32: fp32 on TF32 tensor cores")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's choice)")
    parser.add_argument("--max-flops", type=float, default=4e9, help="skip larger kernels (default 4e9)")
    parser.add_argument("--target", type=float, default=0.1, help="seconds of repetitions per kernel")
    parser.add_argument("--time-budget", type=float, default=0.0, help="stop cleanly after this many seconds")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--cold", action="store_true",
                        help="evict the caches before every repetition of a GEMM or convolution (as in a training step); "
                             "the records say so in their layout")
    parser.add_argument("--hot-pairs", action="store_true",
                        help="with --cold: time every convolution again right after, back to back without evicting "
                             "(records with layout caches = hot): what a kernel saves where a step left its operands and its "
                             "library's buffers in the cache (dnnperf fit's step warmth)")
    parser.add_argument("--ops", help="of the shape sets (--anchors, --shapes), time only the kernels of these ops (comma-separated: gemm, "
                        "conv_forward, conv_backward_data, conv_backward_filter)")
    parser.add_argument("--max-kernels", type=int, default=0,
                        help="of the shape sets (--anchors, --shapes), time at most the first this many, in the order they are taken "
                             "(anchors first; those the output has already count)")
    parser.add_argument("--kernels", help="a JSON list of {\"op\", \"params\"} to time (a profile's reference_kernels, "
                        "as dnnperf validate passes them); instead of --shapes")
    parser.add_argument("--anchors", action="store_true",
                        help="time the anchor kernels first (dnnperf's shape set anchors:2 on a CPU, anchors:200 on CUDA: "
                             "inside the default calibration): files that timed them can be put on one speed by dnnperf fit")
    parser.add_argument("--co-run", type=int, default=1, metavar="P",
                        help="time every kernel alone, then again while P-1 other processes run the same kernels on the "
                             "other cores (records with layout co_running = P): how much processes sharing a node, as "
                             "data-parallel ranks on one CPU do, slow each other's kernels")
    parser.add_argument("--op-host", metavar="KINDS",
                        help="also time the host's work per framework op, forward and backward, for these op kinds of "
                             "dnnperf's IR (comma-separated, or 'all'; records with op host_op)")
    parser.add_argument("--kernel-names", action="store_true",
                        help="also run each GEMM and convolution once under torch.profiler and record what it ran "
                             "(metrics.kernels: on CUDA the device kernels, name and seconds, which name cuDNN's and "
                             "cuBLAS's choice: tile, tensor cores or not, layout transposes, split-K reductions; "
                             "on a CPU the ATen ops on its path)")
    parser.add_argument("--co-run-load", help=argparse.SUPPRESS)  # internal: a loader process's kernel list
    parser.add_argument("--dnnperf", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "dnnperf"))
    args = parser.parse_args()
    if args.co_run_load:
        return co_run_load(args)
    if args.co_run < 1:
        raise SystemExit("torch_bench: --co-run must be at least 1")
    if args.hot_pairs and not args.cold:
        raise SystemExit("torch_bench: --hot-pairs pairs cold timings with hot ones: give --cold too")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("torch_bench: no CUDA device available to PyTorch; nothing measured", file=sys.stderr)
        return 77
    if args.dtype != "f32" and not args.device.startswith("cuda"):
        raise SystemExit(f"torch_bench: --dtype {args.dtype} is for a GPU (dnnperf's CPU profiles price f32 kernels)")
    if args.dtype == "tf32":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    if args.threads:
        torch.set_num_threads(args.threads)
    distances = []
    if args.pass_distances:
        if args.device != "cpu":
            raise SystemExit("torch_bench: --pass-distances is for a CPU (a GPU's passes stream from memory at any distance)")
        try:
            distances = pass_distance.parse_distances(args.pass_distances)
        except ValueError as e:
            raise SystemExit(f"torch_bench: --pass-distances {args.pass_distances}: {e}")
    kernels = []
    for spec in ([anchor_set(args.device)] if args.anchors else []) + ([args.shapes] if args.shapes else []):
        try:
            listed = subprocess.run([args.dnnperf, "bench", "gemm", "--shapes", spec, "--batch", str(args.batch), "--list-shapes"],
                                    capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"torch_bench: cannot get the shape set {spec} from dnnperf ({args.dnnperf}): {getattr(e, 'stderr', e)}", file=sys.stderr)
            return 1
        # Anchors are never paired: they are samples, which put the file on the others' speed.
        kernels += [dict(k, anchor=True) for k in interleaved(json.loads(listed))] if args.anchors and not kernels else interleaved(json.loads(listed))
    if args.ops:
        ops = [o for o in args.ops.split(",") if o]
        unknown = [o for o in ops if o not in SHAPE_SET_OPS]
        if unknown:
            raise SystemExit(f"torch_bench: --ops: unknown op(s) {', '.join(unknown)} ({', '.join(SHAPE_SET_OPS)})")
        kernels = [k for k in kernels if k["op"] in ops]
    if args.max_kernels < 0:
        raise SystemExit("torch_bench: --max-kernels must be positive (0: all)")
    if args.max_kernels:
        kernels = kernels[:args.max_kernels]
    if args.kernels:
        try:
            with open(args.kernels) as f:
                listed = json.load(f)
            kernels += [{"op": k["op"], "params": k["params"]} for k in listed]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"torch_bench: {args.kernels}: not a list of kernels with op and params: {e}", file=sys.stderr)
            return 1
    kernels += memory_kernels(args.memory_sizes, MEMORY_OPS)
    if args.bn_shapes:
        kernels += batch_norm_shapes(args.bn_shapes)
    # Large sizes last: a time budget they would overrun cuts them, not batch norm.
    kernels += memory_kernels(args.large_memory_sizes, LARGE_MEMORY_OPS)
    op_kinds = []
    if args.op_host:
        op_kinds = list(op_host.OPS) if args.op_host == "all" else [k for k in args.op_host.split(",") if k]
        unknown = [k for k in op_kinds if k not in op_host.OPS]
        if unknown:
            raise SystemExit(f"torch_bench: --op-host: unknown op kind(s) {', '.join(unknown)} (known: {', '.join(op_host.OPS)})")
    listed_once, seen = [], set()
    for kern in kernels:  # an anchor the shape set lists too is timed once, as an anchor
        identity = json.dumps({"op": kern["op"], "params": kern["params"]}, sort_keys=True)
        if identity not in seen:
            seen.add(identity)
            listed_once.append(kern)
    kernels = listed_once
    if not kernels and not op_kinds and not distances:
        raise SystemExit("torch_bench: nothing to measure (give --shapes, --kernels, --memory-sizes, --large-memory-sizes, --pass-distances and/or --op-host)")
    layout = {"device": args.device if args.device != "cpu" else "cpu", "threads": torch.get_num_threads()}
    flush = CacheFlush(args.device) if args.cold else None
    if args.device.startswith("cuda"):
        layout["device"] = torch.cuda.get_device_name()
    meta = {"torch": torch.__version__, "allocator": allocator.describe()}
    if args.device.startswith("cuda"):  # fp32 kernels use TF32 tensor cores where these allow it (torch's defaults)
        meta.update(cudnn=torch.backends.cudnn.version(), cudnn_benchmark=torch.backends.cudnn.benchmark,
                    tf32={"matmul": getattr(torch.backends.cuda.matmul, "allow_tf32", None), "cudnn": getattr(torch.backends.cudnn, "allow_tf32", None)})
    writer = RecordWriter(args.output, args.resume, meta)
    start = time.time()
    # With --co-run the lone timings are the baseline of the co-running ones (co_running 1), not
    # samples of their own: `dnnperf fit` takes its kernel samples from the calibration proper.
    written = measure_op_host(args, op_kinds, layout, writer)
    written += measure_pass_distances(distances, layout, writer)
    written += measure_all(args, kernels, dict(layout, co_running=1) if args.co_run > 1 else layout, flush, writer, start)
    if args.co_run > 1:
        loaders = start_loaders(args, kernels)
        try:
            written += measure_all(args, kernels, dict(layout, co_running=args.co_run), flush, writer, start)
        finally:
            for p in loaders:
                p.kill()
                p.wait()
    print(f"\ntorch_bench: {written} records written to {args.output}", file=sys.stderr)
    return 0


def start_loaders(args, kernels):
    """P-1 processes that run the kernels over and over until killed; returns once all of them run."""
    listing = args.output + ".co_run_kernels.json"
    with open(listing, "w") as f:
        json.dump([k for k in kernels if not k["op"].startswith("memory_")] or kernels, f)
    command = [sys.executable, os.path.abspath(__file__), "--co-run-load", listing, "-o", os.devnull, "--device", args.device,
               "--threads", str(torch.get_num_threads()), "--max-flops", str(args.max_flops)]
    loaders = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) for _ in range(args.co_run - 1)]
    for p in loaders:  # each says "running" once its first kernel ran: torch's import takes seconds
        if p.stdout.readline().strip() != "running":
            for q in loaders:
                q.kill()
            raise SystemExit("torch_bench: a --co-run loader process failed to start")
    os.remove(listing)
    return loaders


def co_run_load(args):
    """A loader process: runs the listed kernels in a loop, warm, until killed."""
    if args.threads:
        torch.set_num_threads(args.threads)
    with open(args.co_run_load) as f:
        calls = [make_call(k["op"], k["params"], args.device, args.dtype) for k in json.load(f) if flops(k["op"], k["params"]) <= args.max_flops]
    announced = False
    while True:
        for call in calls:
            call()
            if not announced:
                print("running", flush=True)
                announced = True


def measure_op_host(args, kinds, layout, writer):
    """Host seconds per framework op, forward and backward (resumable); the number written."""
    written = 0
    for kind in kinds:
        record = {"op": "host_op", "params": {"op_kind": kind}, "dtype": "f32", "algorithm": "torch:default", "layout": layout,
                  "library": "PyTorch", "library_version": torch.__version__, "host": socket.gethostname(), "date": utc_now(),
                  "status": "ok"}
        if key(record) in writer.done:
            continue
        try:
            forward, backward = op_host.measure(kind, args.device)
            record.update(repetitions=5, seconds=timing([forward + backward]), verified=True,
                          metrics={"forward_host_s": forward, "backward_host_s": backward})
        except RuntimeError as e:
            record.update(status="skipped", reason=str(e).split("\n")[0][:200])
        writer.write(record)
        written += 1
    return written


def measure_pass_distances(distances, layout, writer):
    """A pass read and written far and hot at each distance (resumable); the number written."""
    written = 0
    for mib in distances:
        for direction in ("read", "write"):
            record = {"op": "pass_distance", "params": {"direction": direction, "bytes": pass_distance.BUFFER_BYTES, "distance_mib": mib},
                      "dtype": "f32", "algorithm": "torch:default", "layout": layout, "library": "PyTorch", "library_version": torch.__version__,
                      "host": socket.gethostname(), "date": utc_now(), "status": "ok"}
            if key(record) in writer.done:
                continue
            try:
                distance, far, hot = pass_distance.measure(mib, direction)
                record.update(repetitions=len(far), seconds=timing(far), verified=True,
                              metrics={"distance_bytes": distance, "hot_median_s": timing(hot)["median"], "hot_min_s": min(hot)})
            except RuntimeError as e:  # out of memory
                record.update(status="skipped", reason=str(e).split("\n")[0][:200])
            writer.write(record)
            written += 1
    return written


def anchor_set(device):
    """The anchors of the default calibration on this device: dnnperf calibrate draws its sample
    under 2 GFLOP per kernel on a CPU, 200 on CUDA (data/calibration/torch.json, kernels.max_gflop_*)."""
    return "anchors:200" if str(device).startswith("cuda") else "anchors:2"


# The ops a shape set lists (dnnperf bench --list-shapes): what --ops chooses from.
SHAPE_SET_OPS = ("gemm", "conv_forward", "conv_backward_data", "conv_backward_filter")


def interleaved(kernels):
    """The kernels taken in turn by op (each op's own order kept), so that a run a time budget stops
    has every class measured alike: a shape set lists its GEMMs first, and on a slow day dnnperf
    calibrate's budget went to 600 GEMMs and ~50 of each convolution direction, too few to fit."""
    queues = {}
    for kern in kernels:
        queues.setdefault(kern["op"], []).append(kern)
    order, depth = [], max((len(q) for q in queues.values()), default=0)
    for i in range(depth):
        order += [q[i] for q in queues.values() if i < len(q)]
    return order


def measure_all(args, kernels, layout, flush, writer, start):
    """Times every kernel (resumable: records already in the output are skipped); the number written."""
    written = 0
    for i, kern in enumerate(kernels):
        if args.time_budget and time.time() - start > args.time_budget:
            print(f"\ntorch_bench: time budget reached after {i} of {len(kernels)} kernels", file=sys.stderr)
            break
        memory = kern["op"].startswith("memory_")
        cold = flush if not memory else None  # memory passes stream anyway
        # --hot-pairs: right after its cold timing, the same convolution back to back, as a step
        # finds it where little ran since its operands and its library's buffers were last touched.
        pair = cold and args.hot_pairs and kern["op"].startswith("conv_") and not kern.get("anchor")
        for hot in ([False, True] if pair else [False]):
            # Both records of a pair say so: the cold one is the pair's baseline, not a sample.
            written += measure_one(args, kern, dict(layout, hot_pair=True) if pair else layout, None if hot else cold,
                                   "hot" if hot else "cold" if cold else None, writer)
        if sys.stderr.isatty():
            elapsed = time.time() - start
            print(f"\r[{i + 1}/{len(kernels)}] {elapsed:.0f} s elapsed, ETA {elapsed / (i + 1) * (len(kernels) - i - 1):.0f} s", end="", file=sys.stderr)
    return written


def measure_one(args, kern, layout, cold, caches, writer):
    """Times one kernel into one record (none if the output has it already); the number written."""
    record = blank_record(args, kern, layout, caches)
    if key(record) in writer.done:
        return 0
    writer.write(timed_record(args, kern, record, cold))
    return 1


def blank_record(args, kern, layout, caches):
    """A kernel's record before it is timed: what it is and where (`caches`: cold, hot or None)."""
    record_layout = dict(layout, caches=caches) if caches else layout
    if kern["op"].startswith("memory_") and args.device.startswith("cuda"):
        record_layout = dict(record_layout, pass_channels=pass_channels(args.device))
    if kern["op"] == "memory_elementwise":  # compute_fit.cc reads records without it as x + x
        record_layout = dict(record_layout, distinct_inputs=2)
    if optimizer_kind(kern["op"]):  # each step meets its parameter cold (optimizer_rotation)
        record_layout = dict(record_layout, rotated_parameters=rotated_parameters(optimizer_kind(kern["op"]), kern["params"]["bytes"] // 4, args.device))
    return {"op": kern["op"], "params": kern["params"], "dtype": args.dtype if matrix_op(kern["op"]) else "f32", "algorithm": "torch:default",
            "layout": record_layout, "library": "PyTorch", "library_version": torch.__version__,
            "host": socket.gethostname(), "date": utc_now(), "status": "ok"}


def timed_record(args, kern, record, cold):
    """`record` (blank_record) with the kernel timed (`cold`: a CacheFlush run before each
    repetition, or None), or marked skipped with the reason."""
    f = flops(kern["op"], kern["params"])
    if f > args.max_flops:
        record.update(status="skipped", reason=f"{f:.3g} FLOP is above --max-flops {args.max_flops:.3g}")
    else:
        try:
            call = make_call(kern["op"], kern["params"], args.device, args.dtype)
            samples, host = measure(call, args.device, args.target, cold)
            record.update(repetitions=len(samples), seconds=timing(samples), verified=True,
                          metrics=dict({"flop_rate": f / timing(samples)["median"]} if f else
                                       {"bytes_per_s": sum(MEMORY_OPS[kern["op"]][:2]) * kern["params"]["bytes"] / timing(samples)["median"]},
                                       **host))
            if getattr(args, "kernel_names", False) and matrix_op(kern["op"]):
                try:
                    record["metrics"]["kernels"] = ran_kernels(call, args.device)
                except Exception as e:  # the profiler's failure loses the names, never the timing
                    record["metrics"]["kernels_error"] = str(e).split("\n")[0][:200]
        except RuntimeError as e:  # out of memory, an unsupported configuration
            record.update(status="skipped", reason=str(e).split("\n")[0][:200])
    return record


if __name__ == "__main__":
    sys.exit(main())
