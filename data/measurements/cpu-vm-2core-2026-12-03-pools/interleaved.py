"""Two ways of running the same pass timed A/B interleaved in one process, so that a shared
machine's drift falls on both alike: the helper of release_ab.py and zoo_vs_onnx.py."""
import statistics
import time


def interleaved_medians(ways, rounds=6, passes=5, warmup=2):
    """{name: run} -> {name: median seconds}: each round runs every way `warmup` times, then
    times `passes` of it; a way's figure is the median over rounds of each round's median."""
    medians = {name: [] for name in ways}
    for _ in range(rounds):
        for name, run in ways.items():
            for _ in range(warmup):
                run()
            t = []
            for _ in range(passes):
                a = time.perf_counter()
                run()
                t.append(time.perf_counter() - a)
            medians[name].append(statistics.median(t))
    return {name: statistics.median(m) for name, m in medians.items()}
