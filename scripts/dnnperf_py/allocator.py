"""One memory-allocator policy for every PyTorch process dnnperf times.

glibc hands large freed blocks back to the operating system and maps them again on the next
allocation, so a kernel with a large output pays page faults on every call; a training step pays
them only partly, depending on what else it allocates in between. On this project's VM that swung
ResNet-18's isolated 512-channel weight gradient from 1.6 ms to 9.7 ms, and its whole training step
between 44 and 57 ms from run to run. Tuned CPU deployments avoid it (Intel's PyTorch CPU guide
recommends jemalloc or tcmalloc); dnnperf's benchmarks and ground-truth runs keep freed memory
instead, through glibc's own settings, so that both measure the same steady state.

Set DNNPERF_SYSTEM_MALLOC=1 to measure with glibc's defaults instead.
"""
import os
import sys

POLICY = {
    "MALLOC_TRIM_THRESHOLD_": str(64 << 30),  # never give the heap top back
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),  # blocks up to 32 MiB (glibc's largest) from the heap
    "MALLOC_TOP_PAD_": str(256 << 20),        # grow the heap in large steps
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
    return "glibc defaults" if os.environ.get("DNNPERF_SYSTEM_MALLOC") == "1" else "glibc, freed memory kept (dnnperf_py/allocator.py)"
