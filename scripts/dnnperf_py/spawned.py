"""Ranks as spawned processes that report on a queue, reaped however the wait ends.

    with spawned(target, (a, b), procs=2) as queue:
        result = queue.get(timeout=600)   # queue.Empty if no rank reports in time

Each process runs target(rank, *args, queue). On leaving the block every process is joined for up
to `join_timeout` seconds and then killed: a parent that stops waiting (a rank failed, or was
killed and reported nothing) never leaves ranks behind. Objects the ranks share (a barrier) come
from mp.get_context("spawn"), the context used here."""
import contextlib

import torch.multiprocessing as mp


@contextlib.contextmanager
def spawned(target, args, procs, join_timeout=30):
    context = mp.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=target, args=(rank, *args, queue)) for rank in range(procs)]
    for w in workers:
        w.start()
    try:
        yield queue
    finally:
        for w in workers:
            w.join(timeout=join_timeout)
            if w.is_alive():
                w.kill()
