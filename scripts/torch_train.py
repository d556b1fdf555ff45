#!/usr/bin/python3
"""Ground truth: times real PyTorch training iterations (zero_grad, forward, loss, backward, SGD
step) or inferences of a zoo network, single-process or data-parallel with DDP (gloo on CPU,
NCCL on GPU), and writes the timings as JSON.

    /usr/bin/python3 scripts/torch_train.py --network resnet18 --batch 8 --input 64,64 -o out.json
    /usr/bin/python3 scripts/torch_train.py --network transformer_encoder --batch 16 --seq 64 --procs 2 -o out.json

Networks are built from the same definitions as dnnperf's zoo: torchvision's models and
scripts/dnnperf_py/models.py; an ONNX file (`--network model.onnx`) runs node by node through
scripts/dnnperf_py/onnx_torch.py, its initializers trained as parameters, at the batch given here
and the file's other input dimensions (as `dnnperf predict` reads it). The median and minimum of the timed iterations (after warm-up) are
reported; with several processes an iteration lasts as long as its slowest rank. Training runs
then time as many iterations again phase by phase (forward with the loss, backward, optimizer
step; on a GPU with a synchronisation after each), so that a prediction's error can be placed;
these are reported apart (`phases`) and do not enter the iteration's figures, which they would
perturb on an asynchronous device. On a GPU `host_median_s` is the host's time to queue a step:
near the step's own time, the step is bound by the host, not the device.

With --reference FILE (a JSON list of {"op", "params"}: a profile's reference kernels and passes,
as `dnnperf validate` passes them) the first rank also times those, as scripts/torch_bench.py
does (GEMMs and convolutions from evicted caches), right before the timed iterations and again
after them, and reports their medians (`reference`): how fast the machine ran during this very
run, against which a prediction calibrated at another hour can be judged. A shared machine's
speed moves by 10-60% over hours and its runs' error with it; a reference timed minutes away
misses it.
"""
import argparse
import contextlib
import datetime
import json
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dnnperf_py import allocator, machine  # noqa: E402
from dnnperf_py.allocator import keep_freed_memory  # noqa: E402

keep_freed_memory()  # before torch allocates anything

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
import torchvision  # noqa: E402

from dnnperf_py.models import BERT, BertClassifier, TransformerEncoderClassifier  # noqa: E402
from dnnperf_py import onnx_torch  # noqa: E402

VISION = {
    "alexnet": torchvision.models.alexnet, "vgg11": torchvision.models.vgg11, "vgg16": torchvision.models.vgg16,
    "resnet18": torchvision.models.resnet18, "resnet34": torchvision.models.resnet34, "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2, "densenet121": torchvision.models.densenet121,
    "inception_v3": lambda: torchvision.models.inception_v3(aux_logits=True, init_weights=False),
    "inception_v3_noaux": lambda: torchvision.models.inception_v3(aux_logits=False, init_weights=False),
}


def build(args):
    if args.network.endswith((".onnx", ".pt")):
        # As dnnperf's importer does: the file's shapes, the batch given here. A .pt is a bundle of
        # an ONNX file (dnnperf_py/onnx_torch.py), for machines without the onnx package.
        if not os.path.isfile(args.network):
            raise SystemExit(f"torch_train: {args.network}: no such file")
        data = onnx_torch.load_graph(args.network)
        if args.network.endswith(".pt"):
            args.network_name = data["source"]  # the results name the ONNX file that dnnperf predicts
        try:
            model = onnx_torch.OnnxModule(data, args.network)
        except ValueError as e:
            raise SystemExit(f"torch_train: {e}")
        x = onnx_torch.example_input(data, args.batch)
        with torch.no_grad():
            classes = model.eval()(x).shape[-1]  # the output's last axis: the loss's classes
        y = torch.randint(0, classes, (args.batch,))
        return model, x, y
    if args.network in VISION:
        model = VISION[args.network]()
        h, w = args.input
        x = torch.randn(args.batch, 3, h, w)
        y = torch.randint(0, 1000, (args.batch,))
        return model, x, y
    if args.network == "transformer_encoder":
        model = TransformerEncoderClassifier()
        x = torch.randint(0, 10000, (args.batch, args.seq))
        y = torch.randint(0, 10, (args.batch,))
        return model, x, y
    if args.network in BERT:
        if args.seq > 512:
            raise SystemExit(f"torch_train: {args.network}: --seq {args.seq} exceeds its 512 positions")
        model = BertClassifier(**BERT[args.network])
        x = torch.randint(0, 30522, (args.batch, args.seq))
        y = torch.randint(0, 2, (args.batch,))
        return model, x, y
    raise SystemExit(f"torch_train: unknown network '{args.network}' (known: {', '.join(sorted(VISION) + ['transformer_encoder'] + sorted(BERT))}, or FILE.onnx)")


def input_dims(args, x):
    """A sample's dimensions as the results name them: a zoo CNN's image, a transformer's tokens,
    a file's input less its batch."""
    return args.input if args.network in VISION else [args.seq] if args.network == "transformer_encoder" or args.network in BERT else list(x.shape[1:])


def iteration(model, x, y, loss_fn, opt, inference, phase_end=None, accumulate=1, precision=None):
    """One training iteration (or, with `inference`, one forward pass under no_grad), as every
    ground truth runs it; `phase_end`, where given, is called after the forward pass with its loss
    and after the backward pass. With `accumulate` K, forward and backward run K times on the
    batch before the one optimizer step, the gradients exchanged with the last (DDP's no_sync on
    the others), as gradient accumulation runs. `precision` (a Precision) runs the forward passes
    under autocast and scales the loss where fp16 needs it."""
    autocast = precision.autocast if precision else contextlib.nullcontext
    if inference:
        with torch.no_grad(), autocast():
            model(x)
        return
    # Gradients dropped, not zeroed: PyTorch 2's default (Debian's 1.13 still fills them with
    # zeros and accumulates into them, two extra passes over every gradient per step).
    opt.zero_grad(set_to_none=True)
    for micro in range(accumulate):
        last = micro == accumulate - 1
        with (model.no_sync() if not last and hasattr(model, "no_sync") else contextlib.nullcontext()):
            with autocast():
                out = model(x)
                if isinstance(out, tuple):  # Inception's main and auxiliary logits: both losses train
                    loss = loss_fn(out[0], y) + 0.4 * loss_fn(out[1], y)
                else:
                    loss = loss_fn(out, y)
            if phase_end and last:
                phase_end()
            if precision and precision.scaler:
                loss = precision.scaler.scale(loss)
            loss.backward()  # under DDP, the last with the gradient all-reduces it waits for
    if phase_end:
        phase_end()
    if precision and precision.scaler:
        precision.scaler.step(opt)  # unscales, checks for overflow, steps
        precision.scaler.update()
    else:
        opt.step()


class Precision:
    """How a run computes, as dnnperf's --dtype names it. fp32: PyTorch's defaults (on a GPU, TF32
    for cuDNN's convolutions, not for matrix products); tf32: TF32 for both; fp16 and bf16: the
    forward passes under torch.autocast (weights and gradients stay fp32, each op casts its
    inputs), fp16's loss scaled by a GradScaler on a GPU."""

    def __init__(self, dtype, device):
        self.dtype = dtype
        self.scaler = None
        half = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(dtype)
        cuda = str(device).startswith("cuda")
        if cuda:
            torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
            torch.backends.cudnn.allow_tf32 = dtype != "fp32" or torch.backends.cudnn.allow_tf32
        if half is not None:
            self.autocast = lambda: torch.autocast("cuda" if cuda else "cpu", dtype=half)
            if dtype == "fp16" and cuda:
                self.scaler = torch.cuda.amp.GradScaler()
        else:
            self.autocast = contextlib.nullcontext


def read_reference(path):
    """The kernels of a --reference file, checked: a JSON list of {"op", "params"} that
    torch_bench.py can time; a bad file ends the program with a message naming file and entry."""
    import torch_bench  # only here: the ground truth alone needs none of it
    try:
        with open(path) as f:
            kernels = json.load(f)
    except OSError as e:
        raise SystemExit(f"torch_train: {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise SystemExit(f"torch_train: {path}: not JSON ({e})")
    if not isinstance(kernels, list):
        raise SystemExit(f"torch_train: {path}: a JSON list of {{\"op\", \"params\"}} expected")
    known = ("gemm", "conv_forward", "conv_backward_data", "conv_backward_filter") + tuple(torch_bench.MEMORY_OPS)
    for i, k in enumerate(kernels):
        if not isinstance(k, dict) or k.get("op") not in known or not isinstance(k.get("params"), dict):
            raise SystemExit(f"torch_train: {path}: entry {i}: not a kernel torch_bench.py times ({json.dumps(k)[:120]})")
    return kernels


def time_reference(kernels, device):
    """Each kernel's median seconds now, timed as calibration times it (torch_bench.measure; GEMMs
    and convolutions after evicting the caches, passes streaming anyway)."""
    import torch_bench
    flush = torch_bench.CacheFlush(str(device))
    seconds = []
    for k in kernels:
        cold = None if k["op"].startswith("memory_") else flush
        samples, _ = torch_bench.measure(torch_bench.make_call(k["op"], k["params"], str(device)), str(device), 0.0, cold)
        seconds.append(statistics.median(samples))
    return seconds


def run(rank, args, result_path):
    cuda = args.device == "cuda"
    if args.procs > 1:
        # A rank that dies leaves the others waiting in a collective: give up after two minutes
        # (no step here needs one collective that long) instead of hanging.
        dist.init_process_group("nccl" if cuda else "gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank, world_size=args.procs,
                                timeout=datetime.timedelta(seconds=120))
    torch.manual_seed(rank)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(f"cuda:{rank}" if cuda else "cpu")
    if cuda:
        torch.cuda.set_device(device)
    model, x, y = build(args)
    model, x, y = model.to(device), x.to(device), y.to(device)
    if args.procs > 1 and not args.inference:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank] if cuda else None)
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    precision = Precision(args.dtype, device)

    def sync():
        if cuda:
            torch.cuda.synchronize(device)  # kernels run asynchronously: a phase ends when they do

    def step(marks=None):
        """One iteration; with `marks`, appends the time at the end of each phase (synchronised)."""
        def mark():
            sync()
            marks.append(time.perf_counter())
        iteration(model, x, y, loss_fn, opt, args.inference, mark if marks is not None else None, args.accumulate, precision)

    def slowest(values):
        """Per value, the largest over the ranks: a data-parallel phase lasts as long as its slowest rank."""
        t = torch.tensor(values, dtype=torch.float64, device=device)
        if args.procs > 1:
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return [float(v) for v in t.cpu()]

    model.train(not args.inference)
    for _ in range(args.warmup):
        step()
    # The first rank alone times the references (the others wait in the first barrier below): a
    # rank's speed, as calibration measured it, not that of ranks crowding each other.
    reference = args.reference_kernels if rank == 0 else None
    before = time_reference(reference, device) if reference else None
    times, hosts = [], []
    for _ in range(args.iterations):
        if args.procs > 1:
            dist.barrier()
        sync()
        t0 = time.perf_counter()
        step()
        queued = time.perf_counter()
        sync()
        total, host = slowest([time.perf_counter() - t0, queued - t0])
        times.append(total)
        hosts.append(host)
    phases = {"forward": [], "backward": [], "update": []}
    # Phases are timed for one micro-batch a step only: with accumulation they interleave.
    timed_phases = not args.inference and args.accumulate == 1
    for _ in range(args.iterations if timed_phases else 0):
        if args.procs > 1:
            dist.barrier()
        sync()
        marks = [time.perf_counter()]
        step(marks)
        sync()
        marks.append(time.perf_counter())
        for name, seconds in zip(phases, slowest([b - a for a, b in zip(marks, marks[1:])])):
            phases[name].append(seconds)
    after = time_reference(reference, device) if reference else None
    if rank == 0:
        out = {"network": getattr(args, "network_name", args.network), "batch_per_process": args.batch, "procs": args.procs, "inference": args.inference,
               "input": input_dims(args, x), "iterations": args.iterations,
               "median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "samples_s": times,
               "host_median_s": statistics.median(hosts) if cuda else None,
               "phases": {name: {"median_s": statistics.median(v), "min_s": min(v), "samples_s": v} for name, v in phases.items()}
               if timed_phases else None,
               "accumulate": args.accumulate, "dtype": args.dtype,
               "allocator": allocator.describe(),
               "torch": torch.__version__, "threads": torch.get_num_threads(), "host": socket.gethostname(), "cpu": machine.cpu(), "device": args.device,
               "gpu": torch.cuda.get_device_name(device) if cuda else None,
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if reference:
            out["reference"] = [{"op": k["op"], "params": k["params"], "dtype": "f32", "before_s": b, "after_s": a}
                                for k, b, a in zip(reference, before, after)]
        # Beside it, then renamed: a run killed while writing leaves no half file that a resumed
        # calibration would take for a finished run.
        partial = f"{result_path}.partial"
        with open(partial, "w") as f:
            json.dump(out, f, indent=2)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, result_path)
    if args.procs > 1:
        dist.barrier()  # every rank past its last collective before any leaves
        dist.destroy_process_group()
        # Then leave without the interpreter's teardown: there PyTorch 1.13 can deadlock, a gloo
        # worker thread freeing a tensor waiting for the GIL while the main thread, destroying
        # DDP's reducer, joins it (2026-12-02: a rank hung so after writing its result, its store
        # thread spinning on the closed socket, until validate's timeout).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--network", required=True)
    p.add_argument("--batch", type=int, required=True, help="samples per process")
    p.add_argument("--input", default="224,224", help="H,W for CNNs")
    p.add_argument("--seq", type=int, default=128, help="tokens per sample for transformers")
    p.add_argument("--procs", type=int, default=1)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--inference", action="store_true")
    p.add_argument("--accumulate", type=int, default=1, help="micro-batches of --batch per optimizer step (gradient accumulation)")
    p.add_argument("--dtype", default="fp32", choices=["fp32", "tf32", "fp16", "bf16"],
                   help="fp32 (PyTorch's defaults), tf32, or fp16/bf16 mixed precision under autocast")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="cuda: one GPU per process, DDP over NCCL")
    p.add_argument("--port", type=int, default=0, help="rendezvous port for DDP (default: a free one)")
    p.add_argument("--reference", help="JSON list of kernels to time before and after the iterations (the machine's speed during the run)")
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args()
    args.reference_kernels = read_reference(args.reference) if args.reference else None
    args.input = [int(v) for v in args.input.split(",")] * (1 if "," in args.input else 2)
    if args.batch <= 0 or args.procs <= 0 or args.iterations <= 0 or args.accumulate <= 0:
        raise SystemExit("torch_train: --batch, --procs, --iterations and --accumulate must be positive")
    if args.inference and args.accumulate != 1:
        raise SystemExit("torch_train: --accumulate applies to training, not --inference")
    if args.device == "cpu" and args.dtype in ("fp16", "tf32"):
        raise SystemExit(f"torch_train: --dtype {args.dtype} needs --device cuda (a CPU's autocast runs bf16)")
    if args.device == "cuda" and (not torch.cuda.is_available() or torch.cuda.device_count() < args.procs):
        raise SystemExit(f"torch_train: --device cuda needs {args.procs} GPU(s); PyTorch sees {torch.cuda.device_count() if torch.cuda.is_available() else 0}")
    if args.procs > 1:
        if not args.port:  # a port nobody listens on, so that a stale run cannot capture the rendezvous
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                args.port = s.getsockname()[1]
        mp.spawn(run, args=(args, args.output), nprocs=args.procs, join=True)
    else:
        run(0, args, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
