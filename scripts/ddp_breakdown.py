#!/usr/bin/python3
"""Where a data-parallel training step's time goes: one process alone, P processes under DDP, the
same P processes under DDP's no_sync (every rank computes, none all-reduces: what sharing the
machine costs the computation) and the step's gradient buckets all-reduced alone (what the
communication costs without computation beside it), interleaved round by round so that the
machine's drift touches all alike.

    /usr/bin/python3 scripts/torch_train.py ...            # the ground truth dnnperf validate uses
    /usr/bin/python3 scripts/ddp_breakdown.py --network resnet18 --batch 4 --input 64,64 --procs 2 -o r18.json

DDP's step minus no_sync's is the communication as the step pays it; against the all-reduce alone
it says whether communication and computation slow each other. no_sync's step over the lone
process's is how much ranks sharing a node slow each other's whole steps: on a CPU, compare it
with the kernels' co-running factor (scripts/torch_bench.py --co-run, device.co_run_slowdown).
Medians and minima over the rounds, each the slowest rank's time, as torch_train.py reports; and
each rank's own no_sync steps, which part the slowest rank's from the slowdown every rank suffers.
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch_train  # noqa: E402  (its allocator policy applies before torch allocates)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from dnnperf_py.spawned import spawned  # noqa: E402


def timed_steps(model, x, y, opt, count, context=None):
    """Seconds of `count` training steps (under `context`, e.g. DDP's no_sync, where given)."""
    loss_fn = torch.nn.CrossEntropyLoss()
    seconds = []
    for _ in range(count):
        if dist.is_initialized():
            dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        if context is None:
            loss_fn(model(x), y).backward()
        else:
            with context():
                loss_fn(model(x), y).backward()
        opt.step()
        seconds.append(time.perf_counter() - t0)
    return seconds


def per_rank(values):
    """Every rank's `values`, rank by rank."""
    t = torch.tensor(values, dtype=torch.float64)
    gathered = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, t)
    return [[float(v) for v in g] for g in gathered]


def buckets_of(model, bucket_mib):
    """Gradient element counts per DDP bucket: parameters in reverse order, the first bucket 1 MiB
    and the others `bucket_mib` (DDP's defaults), as flat fp32 tensors."""
    sizes, counts, filled, cap = [p.numel() for p in model.parameters() if p.requires_grad], [], 0, 1 << 20
    for n in reversed(sizes):
        filled += n
        if filled * 4 >= cap:
            counts.append(filled)
            filled, cap = 0, int(bucket_mib * (1 << 20))
    if filled:
        counts.append(filled)
    return counts


def rank_main(rank, args, queue):
    try:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank, world_size=args.procs,
                                timeout=datetime.timedelta(seconds=120))
        torch.set_num_threads(args.threads)
        torch.manual_seed(rank)
        model, x, y = torch_train.build(args)
        ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=args.bucket_mib)
        opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
        timed_steps(ddp, x, y, opt, args.warmup)
        flats = [torch.randn(n) for n in buckets_of(model, args.bucket_mib)]
        ddp_s, no_sync_s, allreduce_s = [], [], []
        for _ in range(args.rounds):
            ddp_s += timed_steps(ddp, x, y, opt, 1)
            no_sync_s += timed_steps(ddp, x, y, opt, 1, ddp.no_sync)
            dist.barrier()
            t0 = time.perf_counter()
            for f in flats:
                dist.all_reduce(f)
            allreduce_s.append(time.perf_counter() - t0)
        ddp_s, no_sync_s, allreduce_s = per_rank(ddp_s), per_rank(no_sync_s), per_rank(allreduce_s)
        if rank == 0:
            queue.put({"ddp": ddp_s, "no_sync": no_sync_s, "allreduce_alone": allreduce_s,
                       "gradient_bytes": 4 * sum(f.numel() for f in flats), "buckets": len(flats)})
        dist.barrier()
        dist.destroy_process_group()
    except Exception as e:  # the parent must not wait for a rank that died
        queue.put({"error": f"rank {rank}: {e}"})


def summary(seconds):
    return {"median_s": statistics.median(seconds), "min_s": min(seconds), "samples_s": seconds}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--network", required=True, help="zoo name (as scripts/torch_train.py) or FILE.onnx")
    p.add_argument("--batch", type=int, required=True, help="samples per process")
    p.add_argument("--input", default="64,64", help="H,W for CNNs")
    p.add_argument("--seq", type=int, default=64, help="tokens per sample for transformers")
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--rounds", type=int, default=5, help="timed rounds (each: a DDP step, a no_sync step, the all-reduces alone)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="threads per process")
    p.add_argument("--bucket-mib", type=float, default=25.0, help="DDP's bucket size")
    p.add_argument("--port", type=int, default=29541)
    p.add_argument("-o", "--output", required=True, help="JSON result")
    args = p.parse_args()
    args.input = [int(v) for v in args.input.split(",")] * (1 if "," in args.input else 2)
    if args.batch <= 0 or args.rounds <= 0 or args.procs < 2 or args.warmup < 0:
        raise SystemExit("ddp_breakdown: --batch and --rounds must be positive, --procs at least 2")
    torch.set_num_threads(args.threads)
    try:
        model, x, y = torch_train.build(args)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        timed_steps(model, x, y, opt, args.warmup)
        alone = timed_steps(model, x, y, opt, args.rounds)
    except (ValueError, RuntimeError) as e:  # e.g. a batch norm left with one value per channel
        raise SystemExit(f"ddp_breakdown: {args.network} does not train at batch {args.batch}, input {args.input}: {str(e).splitlines()[0]}")
    del model, opt
    # A rank that fails reports before the others time out in their collectives (120 s); one
    # killed outright reports nothing, and the wait ends all the same.
    with spawned(rank_main, (args,), args.procs, join_timeout=150) as queue:
        try:
            result = queue.get(timeout=600 + 60 * args.rounds)
        except Exception:  # queue.Empty
            result = {"error": "no result from the ranks (one was killed?)"}
    if "error" in result:
        raise SystemExit(f"ddp_breakdown: {args.network}: {result['error']}")
    ranks_s = {k: result[k] for k in ("ddp", "no_sync", "allreduce_alone")}
    slowest = {k: [max(r) for r in zip(*v)] for k, v in ranks_s.items()}  # per round, the rank the others waited for
    med = {k: statistics.median(v) for k, v in slowest.items()}
    lone = statistics.median(alone)
    # Each rank's own no_sync steps against the lone process's: the slowdown of sharing the node
    # alone; the slowest rank's over that is what waiting for the other ranks adds each step.
    own = statistics.median(statistics.median(r) for r in ranks_s["no_sync"])
    out = {"network": args.network, "batch_per_process": args.batch, "procs": args.procs, "threads": args.threads,
           "gradient_bytes": result["gradient_bytes"], "buckets": result["buckets"],
           "one_process": summary(alone), "ddp": summary(slowest["ddp"]), "no_sync": summary(slowest["no_sync"]),
           "allreduce_alone": summary(slowest["allreduce_alone"]), "per_rank_s": ranks_s,
           "communication_in_step_s": med["ddp"] - med["no_sync"],
           "step_co_run_slowdown": med["no_sync"] / lone,
           "rank_co_run_slowdown": own / lone,
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "torch": torch.__version__}
    with open(args.output, "w") as f:
        json.dump(out, f, indent=2)
    ms = lambda s: f"{1e3 * s:8.1f} ms"
    print(f"{args.network}, batch {args.batch} per process, {args.procs} processes, {result['gradient_bytes'] / 2**20:.1f} MiB of gradients in {result['buckets']} buckets")
    print(f"  one process alone        {ms(lone)}  (min {ms(min(alone)).strip()})")
    print(f"  DDP                      {ms(med['ddp'])}  (min {ms(min(slowest['ddp'])).strip()})")
    print(f"  DDP, no_sync             {ms(med['no_sync'])}  (min {ms(min(slowest['no_sync'])).strip()}): steps {out['step_co_run_slowdown']:.2f}x the lone process's")
    print(f"    each rank's own        {ms(own)}: {out['rank_co_run_slowdown']:.2f}x; the rest is waiting for the slowest rank")
    print(f"  all-reduces alone        {ms(med['allreduce_alone'])}  (min {ms(min(slowest['allreduce_alone'])).strip()})")
    print(f"  DDP minus no_sync        {ms(out['communication_in_step_s'])}: the communication as the step pays it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
