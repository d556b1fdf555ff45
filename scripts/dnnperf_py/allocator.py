"""One memory-allocator policy for every PyTorch process dnnperf times.

glibc hands large freed blocks back to the operating system and maps them again on the next
allocation, so a kernel with a large output pays page faults on every call; a training step pays
them only partly, depending on what else it allocates in between. On this project's VM that swung
ResNet-18's isolated 512-channel weight gradient from 1.6 ms to 9.7 ms, and its whole training step
between 44 and 57 ms from run to run. Tuned CPU deployments avoid it (Intel's PyTorch CPU guide
recommends jemalloc or tcmalloc); dnnperf's benchmarks and ground-truth runs keep freed memory
instead, through glibc's own settings, so that both measure the same steady state.

glibc caps its mmap threshold at 32 MiB: a larger block is carved from the heap only where the
heap's top happens to have room and is mapped afresh otherwise, every page of it faulted in again
(a 411 MB fill: 215 ms mapped afresh, 21 ms on pages touched before, on the VM 2026-12-02). Which
of the two a kernel or a step gets depended on what ran before it: the same wide GEMMs wrote
300 MB outputs at 0.9 GB/s in one calibration and 2.1-3.1 GB/s in the next, and VGG-11's training
step at batch 4 ran 10-20% faster with no block mapped, its 411 MB weight gradient (dropped
between steps, allocated again in each) 300 -> 73 ms timed alone. So no block is mapped: every
one comes from the heap, and a freed one is reused by the next allocation that fits.

Set DNNPERF_SYSTEM_MALLOC=1 to measure with glibc's defaults instead.
"""
import os
import sys

POLICY = {
    "MALLOC_TRIM_THRESHOLD_": str(64 << 30),  # never give the heap top back
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),  # blocks up to 32 MiB (glibc's largest) from the heap
    "MALLOC_TOP_PAD_": str(256 << 20),        # grow the heap in large steps
    "MALLOC_MMAP_MAX_": "0",                  # and larger blocks too: none mapped afresh
}


def keep_freed_memory():
    """Re-executes this script with the policy in its environment, unless it is there already or
    DNNPERF_SYSTEM_MALLOC is set. glibc reads it at start, so call this before anything allocates
    much (before importing torch); child processes inherit it."""
    if os.environ.get("DNNPERF_SYSTEM_MALLOC") == "1" or all(os.environ.get(k) == v for k, v in POLICY.items()):
        return
    os.environ.update(POLICY)
    os.execv(sys.executable, [sys.executable] + sys.argv)


def describe():
    """What the records say about the allocator."""
    # Records before 2026-12-02 evening say "glibc, freed memory kept (dnnperf_py/allocator.py)":
    # blocks over 32 MiB were then mapped afresh whenever the heap's top lacked room.
    return "glibc defaults" if os.environ.get("DNNPERF_SYSTEM_MALLOC") == "1" else "glibc, every block from the heap, freed memory kept (dnnperf_py/allocator.py)"
