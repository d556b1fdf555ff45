#!/usr/bin/python3
"""Communication through the framework: times torch.distributed all_reduce with gloo (CPU) or
NCCL (CUDA) on P processes of this machine, over a range of message sizes, and writes measurement
records in dnnperf's format (algorithm "gloo:default" or "nccl:default": the library's own choice,
as DDP uses it). `dnnperf fit` fits them like MPI's; `predict --allreduce gloo` prices DDP's
gradient all-reduces with them.

    /usr/bin/python3 scripts/torch_comm_bench.py --procs 2 -o gloo_np2.jsonl
    /usr/bin/python3 scripts/torch_comm_bench.py --procs 2,4,8 --device cuda -o nccl.jsonl

Each size: warm-up, then repetitions (enough for --target seconds, 5 to 200), each started after a
barrier; a repetition lasts as long as its slowest rank; median, minimum, maximum and spread of
those are recorded. The result is checked once per size (every rank contributes rank + 1).
Interrupted runs keep what they wrote; --resume continues them.
"""
import argparse
import datetime
import os
import socket
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

DEFAULT_SIZES = [4 << i for i in range(25)]  # 4 B .. 64 MiB in factors of 2: enough sizes to hold some out


def record_for(args, procs, size):
    backend = "nccl" if args.device == "cuda" else "gloo"
    return {"op": "allreduce", "params": {"bytes": size}, "dtype": "f32", "algorithm": f"{backend}:default",
            "layout": {"nodes": 1, "ranks": procs, "ranks_per_node": procs, "device": args.device}, "library": backend,
            "library_version": torch.__version__, "host": socket.gethostname(), "date": utc_now(), "status": "ok"}


def worker(rank, args, procs, sizes, port):
    cuda = args.device == "cuda"
    torch.set_num_threads(args.threads)
    if cuda:
        torch.cuda.set_device(rank)
    # A rank that dies leaves the others waiting in a collective: give up after two minutes.
    dist.init_process_group("nccl" if cuda else "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=procs,
                            timeout=datetime.timedelta(seconds=120))
    device = torch.device("cuda", rank) if cuda else torch.device("cpu")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    writer = RecordWriter(args.output, True, {"torch": torch.__version__, "allocator": allocator.describe()}) if rank == 0 else None
    start = time.time()
    for i, size in enumerate(sizes):
        stop = torch.tensor([1.0 if args.time_budget and time.time() - start > args.time_budget else 0.0], device=device)
        dist.all_reduce(stop, op=dist.ReduceOp.MAX)  # every rank stops at the same size
        if stop.item() > 0:
            if rank == 0:
                print(f"\ntorch_comm_bench: time budget reached, {len(sizes) - i} sizes left for --resume", file=sys.stderr)
            break
        buf = torch.full((max(size // 4, 1),), float(rank + 1), device=device)
        dist.all_reduce(buf)
        sync()
        expected = procs * (procs + 1) / 2
        ok = torch.tensor([1.0 if bool((buf == expected).all()) else 0.0], device=device)
        dist.all_reduce(ok, op=dist.ReduceOp.MIN)
        # One timed call, slowest rank, sets the repetitions every rank then runs.
        for _ in range(2):
            dist.all_reduce(buf)
        sync()
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(buf)
        sync()
        probe = torch.tensor([time.perf_counter() - t0], device=device, dtype=torch.float64)
        dist.all_reduce(probe, op=dist.ReduceOp.MAX)
        reps = int(min(200, max(5, args.target / max(probe.item(), 1e-7))))
        samples = torch.zeros(reps, dtype=torch.float64, device=device)
        for r in range(reps):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(buf)
            sync()
            samples[r] = time.perf_counter() - t0
        dist.all_reduce(samples, op=dist.ReduceOp.MAX)
        if rank == 0:
            rec = record_for(args, procs, size)
            s = samples.cpu().tolist()
            t = timing(s)
            rec.update(repetitions=reps, seconds=t, verified=bool(ok.item() > 0),
                       metrics={"algbw_bytes_per_s": size / t["median"], "busbw_bytes_per_s": size / t["median"] * 2 * (procs - 1) / procs})
            if not rec["verified"]:
                rec.update(status="failed", reason="all_reduce returned a wrong sum")
            writer.write(rec)
            if sys.stderr.isatty():
                print(f"\r[{procs} procs] {i + 1}/{len(sizes)} sizes", end="", file=sys.stderr)
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--procs", default="2", help="process counts, e.g. 2 or 2,4")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="cpu: gloo; cuda: NCCL, one GPU per process")
    p.add_argument("--sizes", default="", help="message sizes in bytes (default: 4 B to 64 MiB, factors of 2)")
    p.add_argument("--target", type=float, default=0.2, help="seconds of repetitions per size")
    p.add_argument("--threads", type=int, default=1, help="torch threads per process")
    p.add_argument("--time-budget", type=float, default=0.0, help="stop cleanly after this many seconds per process count")
    p.add_argument("--resume", action="store_true")
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args()
    try:
        procs_list = [int(v) for v in args.procs.split(",") if v]
        sizes = [int(v) for v in args.sizes.split(",") if v] or DEFAULT_SIZES
    except ValueError as e:
        raise SystemExit(f"torch_comm_bench: --procs and --sizes take comma-separated integers ({e})")
    if not procs_list or min(procs_list) < 2:
        raise SystemExit("torch_comm_bench: --procs needs counts of at least 2 (one process communicates nothing)")
    if min(sizes) < 4 or any(s % 4 for s in sizes):
        raise SystemExit("torch_comm_bench: sizes must be positive multiples of 4 bytes (f32 elements)")
    if args.device == "cuda" and (not torch.cuda.is_available() or torch.cuda.device_count() < max(procs_list)):
        print(f"torch_comm_bench: --device cuda needs {max(procs_list)} GPU(s); PyTorch sees "
              f"{torch.cuda.device_count() if torch.cuda.is_available() else 0}; nothing measured", file=sys.stderr)
        return 77
    if not dist.is_available() or not (dist.is_nccl_available() if args.device == "cuda" else dist.is_gloo_available()):
        raise SystemExit(f"torch_comm_bench: this PyTorch has no {'NCCL' if args.device == 'cuda' else 'gloo'} backend")
    # Records already there (resuming) are skipped; the file is checked here, before any process starts.
    done = RecordWriter(args.output, args.resume, {"torch": torch.__version__, "allocator": allocator.describe()}).done
    for procs in procs_list:
        todo = [s for s in sizes if key(record_for(args, procs, s)) not in done]
        if not todo:
            continue
        with socket.socket() as s:  # a free port, so that a stale run cannot capture the rendezvous
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            mp.spawn(worker, args=(args, procs, todo, port), nprocs=procs, join=True)
        except Exception as e:  # a rank that died: say which run, keep what was written
            print(f"\ntorch_comm_bench: the run on {procs} processes failed: {e}", file=sys.stderr)
            return 1
    print(f"\ntorch_comm_bench: records in {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
