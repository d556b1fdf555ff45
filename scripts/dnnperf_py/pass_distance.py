"""What a memory-bound pass pays for bytes last touched long ago: the distance curve of a CPU.

Calibration times memory-bound passes back to back over the same buffers, so their operands are
in the cache. Inside a training step a pass reads what the forward wrote many kernels ago and, in
the forward, writes its output where the previous step's copy was: those bytes come from further
out. On the Intel VM (2026-12-04, docs/models/cpu-evidence.md: cpu-vm-2core-2026-12-04-aliasing
training-forward/wdist.py) writing 4 MiB last touched 8-64 MiB ago ran at 13.5-14.1 GB/s and
1 GiB ago at 7.9; reading at 28.7-29.0 and 15.0 GB/s, ramping between the 64 MiB eviction and
the 480 MiB L3.

Here a 4 MiB buffer is read (a sum) or written (a product into it) where it was last touched
DISTANCE bytes ago, a pool of such buffers taken in turn, and the same op is timed right before on
one buffer over and over (the hot time: how calibration's passes are timed). Both times in one
record, so that the machine's drift between distances cancels in their difference. `dnnperf fit`
prices the difference per byte beyond the calibration's reach (fitting/compute/pass_far_fit.h).
CPU only: a GPU's passes stream from memory whatever their distance.
"""
import time

import torch

BUFFER_BYTES = 4 << 20
# Distances in MiB: flat below the 64 MiB the cold timings evict, the ramp to a large L3, and past it.
DEFAULT_DISTANCES_MIB = (16, 64, 128, 192, 256, 320, 384, 512, 768, 1024)
# Timed calls per record, after one untimed turn through the pool.
CALLS = 48


def parse_distances(spec):
    """'default' or comma-separated MiB; raises ValueError naming what is wrong."""
    if spec == "default":
        return list(DEFAULT_DISTANCES_MIB)
    out = []
    for part in spec.split(","):
        value = int(part)
        if value < 4:
            raise ValueError(f"distance {part} MiB is below one {BUFFER_BYTES >> 20} MiB buffer")
        out.append(value)
    return out


def _op(direction, source):
    if direction == "read":
        return lambda b: b.sum()
    return lambda b: torch.mul(source, 2.0, out=b)


def _times(op, buffers, calls):
    """Seconds per call of `op` over `buffers` in turn, after one untimed turn."""
    for b in buffers:
        op(b)
    out = []
    while len(out) < calls:
        for b in buffers:
            start = time.perf_counter()
            op(b)
            out.append(time.perf_counter() - start)
    return out


def measure(distance_mib, direction):
    """(distance in bytes as dnnperf's step replay counts it, far times, hot times) for one record.

    The replay's distance of a buffer is the bytes of other buffers touched since it was: a pool of
    n buffers read in turn puts each n - 1 buffers back; written from one source, n buffers back
    (the source counts once, at its latest touch)."""
    elements = BUFFER_BYTES // 4
    source = torch.ones(elements)
    op = _op(direction, source)
    hot = _times(op, [torch.ones(elements)], CALLS)
    n = max(1, distance_mib * (1 << 20) // BUFFER_BYTES)
    pool = [torch.ones(elements) for _ in range(n)]
    far = _times(op, pool, CALLS)
    distance = (n - 1) * BUFFER_BYTES + (BUFFER_BYTES if direction == "write" else 0)
    return distance, far, hot

