"""The CPU a measurement ran on, as Linux describes it (/proc/cpuinfo and sysfs).

A shared VM need not land on the same hardware from one boot to the next: this project's dev VM
was an AMD EPYC of family 26 on 2026-11-30 and of family 25 (model 17) on 2026-12-02, where the
same anchor kernels ran 2.5x slower and a batch-4 classifier's input-gradient GEMM 4.8x. A
calibration is a statement about one CPU, so every measurement file and ground-truth run names
its CPU, the profile `dnnperf fit` writes keeps it (`measured_on`), and `dnnperf validate` says
when it is not the CPU it runs on. The C++ side reads the same fields the same way
(records/machine.cc); docs/measurement-format.md describes them.
"""
import os

# Instruction-set extensions that change which kernels a library runs (x86 and Arm names).
ISA_FLAGS = ("avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
             "amx_tile", "amx_bf16", "amx_int8", "asimd", "sve", "sve2")


def _cache_bytes(text):
    """sysfs cache sizes read '32K', '1024K', '32768K' (or '8M')."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip()
    return int(text[:-1]) * units[text[-1]] if text and text[-1] in units else int(text)


def _caches():
    caches, base = {}, "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(e for e in os.listdir(base) if e.startswith("index"))
    except OSError:
        return caches
    for entry in entries:
        try:
            with open(f"{base}/{entry}/level") as f:
                level = f.read().strip()
            with open(f"{base}/{entry}/type") as f:
                kind = f.read().strip()
            with open(f"{base}/{entry}/size") as f:
                size = _cache_bytes(f.read())
        except (OSError, ValueError, KeyError):
            continue
        if kind == "Instruction":
            continue
        caches[f"l{level}" + ("d" if kind == "Data" else "")] = size
    return caches


def cpu():
    """The CPU's identity: vendor, name, family, model, stepping, logical CPUs this process may
    use, data and unified cache sizes per cache (bytes), the ISA extensions of ISA_FLAGS it has
    and whether it runs under a hypervisor. Fields Linux does not give are left out; an empty
    dict off Linux."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor's block describes them all
                name, _, value = line.partition(":")
                fields[name.strip()] = value.strip()
    except OSError:
        return {}
    out = {}
    for key, name in (("vendor_id", "vendor"), ("CPU implementer", "vendor"), ("model name", "name")):
        if key in fields:
            out[name] = fields[key]
    for key, name in (("cpu family", "family"), ("model", "model"), ("stepping", "stepping"),
                      ("CPU architecture", "family"), ("CPU part", "model"), ("CPU variant", "stepping")):
        try:
            out[name] = int(fields[key], 0)
        except (KeyError, ValueError):
            pass
    out["logical_cpus"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    caches = _caches()
    if caches:
        out["caches"] = caches
    flags = set((fields.get("flags") or fields.get("Features") or "").split())
    out["isa"] = [f for f in ISA_FLAGS if f in flags]
    out["virtualized"] = "hypervisor" in flags
    return out
