#!/usr/bin/python3
"""Ranks sharing a node and meeting every step: what data-parallel training pays besides its
kernels and its all-reduces.

Data-parallel ranks compute a step each on their own and meet in the gradient all-reduce, so a
step lasts as long as its slowest rank. Two costs follow on a node that P ranks share:
  - each rank's step runs slower than a lone process's (shared caches, memory, cores): co-running;
  - where a rank's step time wanders from step to step (the machine's other work, the OS), the
    slowest of P lasts longer than a typical one, the more so the more ranks meet: the wait.
Kernels timed beside co-running processes (torch_bench.py --co-run) see a little of the first and
nothing of the second. Here P processes each train a network that dnnperf does not validate
(export_onnx.py's COMPOSITION networks) and meet at a barrier before every step, as ranks meet in
the all-reduce; between their shared steps, in pairs, the first trains alone while the others
wait, so that the machine's drift falls on both kinds. Per network one record
(docs/measurement-format.md, op sync_step, layout co_running = P) keeps every rank's own steps and
the medians
    lone_median_s      the first rank's steps alone
    own_median_s       median over ranks of each rank's median step: co-running
    slowest_median_s   median over steps of the slowest rank's step: what a synchronised step lasts
from which `dnnperf fit` takes device.co_run_slowdown (own / lone) and device.sync_wait
(slowest / own). Between those steps the same ranks also train under DistributedDataParallel
(gloo, PyTorch's defaults, as scripts/torch_train.py's ground truth), and the record keeps
    ddp_slowest_median_s   median over steps of the slowest rank's DDP step
    ddp_bucket_bytes       the gradient buckets DDP all-reduced, in bytes
    ddp_buffer_bytes, ddp_buffers   the module buffers DDP broadcasts before every forward
from which `dnnperf fit` takes what a data-parallel step's communication costs inside the step
against its all-reduces timed alone (device.ddp_communication).

    /usr/bin/python3 scripts/torch_sync_steps.py --procs 2 -o sync.jsonl
"""
import argparse
import datetime
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dnnperf_py import allocator  # noqa: E402
from dnnperf_py.allocator import keep_freed_memory  # noqa: E402

keep_freed_memory()  # before torch allocates anything

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from dnnperf_py.records import RecordWriter, key, timing, utc_now  # noqa: E402
from dnnperf_py.spawned import spawned  # noqa: E402
import socket  # noqa: E402

DEFAULT_NETWORKS = "resnet34,mnasnet1_0,squeezenet1_1,shufflenet_v2_x1_0"  # two sizes, with and without batch norm


def composition_networks():
    import export_onnx  # torchvision's models that dnnperf's validation does not use
    return export_onnx.COMPOSITION


LONE, TOGETHER, DDP = "lone", "together", "ddp"


def schedule(steps):
    """The kinds of the timed steps: rank 0 alone, all ranks together without communicating, and
    all under DDP, in the order (alone, together, DDP, DDP, together, alone, ...) so that the
    machine's drift falls on all three alike; `steps` of each."""
    cycle = (LONE, TOGETHER, DDP, DDP, TOGETHER, LONE)
    return [cycle[i % len(cycle)] for i in range(3 * steps)]


def ddp_buckets(ddp, model):
    """The gradient buckets' sizes in bytes as DDP formed them (rebuilt after its first step), or,
    where PyTorch does not say, as it forms them at first: parameters in reverse order, 1 MiB first,
    then bucket_cap_mb."""
    logged = ddp._get_ddp_logging_data()
    sizes = str(logged.get("rebuilt_bucket_sizes", "")).replace(" ", "")
    if sizes and all(v.isdigit() for v in sizes.split(",")):
        return [int(v) for v in sizes.split(",")]
    buckets, filled, cap = [], 0, 1 << 20
    for p in reversed([p for p in model.parameters() if p.requires_grad]):
        filled += p.numel() * p.element_size()
        if filled >= cap:
            buckets.append(filled)
            filled, cap = 0, ddp.bucket_bytes_cap
    return buckets + ([filled] if filled else [])


def _rank(rank, network, batch, side, threads, steps, warmup, procs, port, barrier, queue):
    """One process: SGD steps of `network`, each after a barrier; in the steps rank 0 takes alone
    the others wait at the next barrier; the DDP steps all-reduce the gradients (gloo). Its step
    times per kind, and what DDP communicated."""
    try:
        torch.set_num_threads(threads)
        torch.manual_seed(rank)
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=procs,
                                timeout=datetime.timedelta(seconds=300))
        model = composition_networks()[network]()
        # The module called directly trains without communicating: DDP's gradient hooks only act
        # after a forward through the wrapper.
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        x, y = torch.randn(batch, 3, side, side), torch.randint(0, 1000, (batch,))
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = torch.nn.CrossEntropyLoss()
        times = {LONE: [], TOGETHER: [], DDP: []}
        warm = [TOGETHER, DDP] * warmup
        for i, kind in enumerate(warm + schedule(steps)):
            barrier.wait(timeout=300)
            if kind == LONE and rank != 0:
                continue
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            loss_fn((ddp if kind == DDP else model)(x), y).backward()
            opt.step()
            if i >= len(warm):
                times[kind].append(time.perf_counter() - t0)
        buffers = [b for b in model.buffers()]
        sent = {"bucket_bytes": ddp_buckets(ddp, model), "buffer_bytes": sum(b.numel() * b.element_size() for b in buffers),
                "buffers": len(buffers)}
        barrier.wait(timeout=300)
        dist.destroy_process_group()
        queue.put((rank, (times, sent)))
    except Exception as e:  # the parent must not wait for a rank that failed
        queue.put((rank, f"{type(e).__name__}: {e}"))


def free_port():
    """A port nobody listens on, so that a stale run cannot capture the rendezvous."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(procs, network, batch, side, threads, steps, warmup):
    """Per rank, its step times per kind (alone: rank 0 only) and what DDP sent, from `procs`
    processes meeting before each step."""
    barrier = mp.get_context("spawn").Barrier(procs)
    results = {}
    with spawned(_rank, (network, batch, side, threads, steps, warmup, procs, free_port(), barrier), procs) as queue:
        for _ in range(procs):
            try:
                rank, seconds = queue.get(timeout=900)
            except Exception:  # queue.Empty: a rank killed outright reports nothing
                raise RuntimeError(f"{network}: a rank gave no result within 900 s (killed?)")
            if isinstance(seconds, str):
                raise RuntimeError(f"{network}: rank {rank} of {procs} failed: {seconds}")
            results[rank] = seconds
    return [results[r] for r in range(procs)]


def measure(network, procs, batch, side, threads, steps, warmup):
    """Rank 0 alone, `procs` ranks meeting every step, and the same under DDP, interleaved: the
    record's numbers."""
    results = run_ranks(procs, network, batch, side, threads, steps, warmup)
    lone = results[0][0][LONE]
    ranks = [times[TOGETHER] for times, _ in results]
    ddp_ranks = [times[DDP] for times, _ in results]
    slowest = [max(r) for r in zip(*ranks)]
    ddp_slowest = [max(r) for r in zip(*ddp_ranks)]
    own = statistics.median(statistics.median(r) for r in ranks)
    sent = results[0][1]
    return slowest, {"lone_median_s": statistics.median(lone), "own_median_s": own, "slowest_median_s": statistics.median(slowest),
                     "ddp_slowest_median_s": statistics.median(ddp_slowest), "ddp_bucket_bytes": sent["bucket_bytes"],
                     "ddp_buffer_bytes": sent["buffer_bytes"], "ddp_buffers": sent["buffers"],
                     "lone_s": lone, "per_rank_s": ranks, "ddp_per_rank_s": ddp_ranks}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--procs", type=int, required=True, help="ranks sharing the node (at least 2)")
    p.add_argument("--networks", default=DEFAULT_NETWORKS, help=f"composition networks (default {DEFAULT_NETWORKS})")
    p.add_argument("--batch", type=int, default=4, help="samples per rank")
    p.add_argument("--input", type=int, default=64, help="image side")
    p.add_argument("--threads", type=int, default=1, help="threads per rank (torch_train.py's default)")
    p.add_argument("--steps", type=int, default=20, help="timed steps per run")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--resume", action="store_true")
    p.add_argument("-o", "--output", required=True, help="measurement records (JSON lines)")
    args = p.parse_args()
    if args.procs < 2:
        raise SystemExit("torch_sync_steps: --procs must be at least 2 (ranks that meet)")
    if args.batch < 2 or args.input < 32 or args.steps < 3 or args.warmup < 0 or args.threads < 1:
        raise SystemExit("torch_sync_steps: --batch at least 2, --input at least 32, --steps at least 3, --threads at least 1")
    known = composition_networks()
    networks = [n for n in args.networks.split(",") if n]
    unknown = [n for n in networks if n not in known]
    if unknown or not networks:
        raise SystemExit(f"torch_sync_steps: unknown network(s) {', '.join(unknown) or '(none given)'} (known: {', '.join(known)})")
    torch.set_num_threads(args.threads)
    writer = RecordWriter(args.output, args.resume, {"torch": torch.__version__, "allocator": allocator.describe()})
    failed = 0
    for network in networks:
        record = {"op": "sync_step", "params": {"network": network, "batch": args.batch, "input": args.input},
                  "dtype": "f32", "algorithm": "torch:sgd", "library": "PyTorch", "library_version": torch.__version__,
                  "layout": {"device": "cpu", "threads": args.threads, "co_running": args.procs},
                  "host": socket.gethostname(), "date": utc_now()}
        if key(record) in writer.done:
            continue
        started = time.time()
        try:
            slowest, metrics = measure(network, args.procs, args.batch, args.input, args.threads, args.steps, args.warmup)
        except RuntimeError as e:
            print(f"torch_sync_steps: {e}", file=sys.stderr)
            record.update(status="failed", reason=str(e)[:300])
            writer.write(record)
            failed += 1
            continue
        record.update(status="ok", repetitions=len(slowest), seconds=timing(slowest), verified=True, metrics=metrics)
        writer.write(record)
        m = metrics
        print(f"{network}: alone {1e3 * m['lone_median_s']:.1f} ms, each of {args.procs} ranks {1e3 * m['own_median_s']:.1f} ms "
              f"({m['own_median_s'] / m['lone_median_s']:.3f}x), the slowest {1e3 * m['slowest_median_s']:.1f} ms "
              f"({m['slowest_median_s'] / m['own_median_s']:.3f}x the rank's own); under DDP {1e3 * m['ddp_slowest_median_s']:.1f} ms "
              f"({sum(m['ddp_bucket_bytes']) / 2**20:.1f} MiB in {len(m['ddp_bucket_bytes'])} buckets) [{time.time() - started:.0f} s]", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
