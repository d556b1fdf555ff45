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
(slowest / own).

    /usr/bin/python3 scripts/torch_sync_steps.py --procs 2 -o sync.jsonl
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dnnperf_py import allocator  # noqa: E402
from dnnperf_py.allocator import keep_freed_memory  # noqa: E402

keep_freed_memory()  # before torch allocates anything

import torch  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from dnnperf_py.records import RecordWriter, key, timing, utc_now  # noqa: E402
from dnnperf_py.spawned import spawned  # noqa: E402
import socket  # noqa: E402

DEFAULT_NETWORKS = "resnet34,mnasnet1_0"


def composition_networks():
    import export_onnx  # torchvision's models that dnnperf's validation does not use
    return export_onnx.COMPOSITION


def schedule(steps):
    """Which timed steps rank 0 takes alone (True) and which all ranks take together, alternating
    in pairs (alone, together, together, alone, ...) so that the machine's drift falls on both."""
    return [(i % 4) in (0, 3) for i in range(2 * steps)]


def _rank(rank, network, batch, side, threads, steps, warmup, barrier, queue):
    """One process: SGD steps of `network`, each after a barrier; in the steps rank 0 takes alone
    the others wait at the next barrier. Its step times, alone and together."""
    try:
        torch.set_num_threads(threads)
        torch.manual_seed(rank)
        model = composition_networks()[network]()
        x, y = torch.randn(batch, 3, side, side), torch.randint(0, 1000, (batch,))
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = torch.nn.CrossEntropyLoss()
        alone, together = [], []
        for i, lone in enumerate([False] * warmup + schedule(steps)):
            barrier.wait(timeout=300)
            if lone and rank != 0:
                continue
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            loss_fn(model(x), y).backward()
            opt.step()
            if i >= warmup:
                (alone if lone else together).append(time.perf_counter() - t0)
        barrier.wait(timeout=300)
        queue.put((rank, (alone, together)))
    except Exception as e:  # the parent must not wait for a rank that failed
        queue.put((rank, f"{type(e).__name__}: {e}"))


def run_ranks(procs, network, batch, side, threads, steps, warmup):
    """Per rank, its step times alone (rank 0 only) and together, from `procs` processes meeting
    before each step."""
    barrier = mp.get_context("spawn").Barrier(procs)
    results = {}
    with spawned(_rank, (network, batch, side, threads, steps, warmup, barrier), procs) as queue:
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
    """Rank 0 alone and `procs` ranks meeting every step, interleaved: the record's numbers."""
    results = run_ranks(procs, network, batch, side, threads, steps, warmup)
    lone = results[0][0]
    ranks = [together for _, together in results]
    slowest = [max(r) for r in zip(*ranks)]
    own = statistics.median(statistics.median(r) for r in ranks)
    return slowest, {"lone_median_s": statistics.median(lone), "own_median_s": own, "slowest_median_s": statistics.median(slowest),
                     "lone_s": lone, "per_rank_s": ranks}


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
              f"({m['slowest_median_s'] / m['own_median_s']:.3f}x the rank's own) [{time.time() - started:.0f} s]", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
