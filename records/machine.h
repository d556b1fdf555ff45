#pragma once
// The CPU a measurement ran on, as Linux describes it: every run's context line names it (`cpu`,
// docs/measurement-format.md), so that a calibration says which CPU its figures belong to.
//
// A shared VM need not land on the same hardware from one boot to the next: this project's dev
// VM was an AMD EPYC of family 26 on 2026-11-30 and of family 25 on 2026-12-02, where the same
// anchor kernels ran 2.5x slower. scripts/dnnperf_py/machine.py reads the same fields for the
// PyTorch backend.
#include <nlohmann/json.hpp>

namespace dnnperf::bench {

/// This machine's CPU, from /proc/cpuinfo and /sys/devices/system/cpu/cpu0/cache: `vendor`,
/// `name`, `family`, `model`, `stepping` (on Arm: implementer, architecture, part, variant),
/// `logical_cpus` (those this process may run on), `caches` (bytes per data or unified cache:
/// l1d, l2, l3), `isa` (the vector and matrix extensions of kIsaFlags it has) and `virtualized`.
/// Fields Linux does not give are left out; an empty object where /proc/cpuinfo cannot be read.
nlohmann::json this_cpu();

/// The instruction-set extensions `isa` lists when the CPU has them (x86 and Arm names): those
/// that change which kernels a BLAS or a framework runs.
inline constexpr const char* kIsaFlags[] = {"avx",         "avx2",        "fma",         "avx512f",  "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
                                            "avx512_fp16", "amx_tile",    "amx_bf16",    "amx_int8", "asimd",    "sve",      "sve2"};

}  // namespace dnnperf::bench
