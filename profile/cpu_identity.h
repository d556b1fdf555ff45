#pragma once
// Which CPU a calibration belongs to, and whether another is the same one.
//
// A measurement run names its CPU (the context line's `cpu`: records/machine.h,
// scripts/dnnperf_py/machine.py), `dnnperf fit` keeps the CPU its files ran on in the profile
// (`measured_on.cpu`, docs/hardware-format.md) and `dnnperf validate` compares it with the CPU the
// ground truth ran on. A profile's figures are a statement about one CPU: on another they carry
// over only as far as the two run alike, and a validation across the two judges the move as much
// as the model (this project's dev VM moved between AMD EPYC families 26 and 25 from one session
// to the next; its anchor kernels ran 2.5x slower on the second, one classifier GEMM 4.8x).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnperf {

/// A CPU description checked field by field (vendor and name strings; family, model, stepping,
/// logical_cpus integers; caches an object of positive byte counts; isa a list of strings;
/// virtualized a boolean). Throws InputError naming `where` and the field otherwise.
nlohmann::json read_cpu_identity(const nlohmann::json& cpu, const std::string& where);

/// One line: "AMD EPYC (AuthenticAMD family 25 model 17 stepping 1), L2 1 MiB, L3 32 MiB, AVX-512,
/// virtualized"; "unknown CPU" for an empty description.
std::string describe_cpu(const nlohmann::json& cpu);

/// Where two CPU descriptions differ, as "family 26 -> 25" texts, over the chip's own fields
/// (vendor, name, family, model, stepping, each cache's size, the ISA extensions); the logical
/// CPUs a process was given are an allocation, not the chip, and are not compared. A field either
/// side lacks is not compared. Empty: the same CPU as far as both tell.
std::vector<std::string> cpu_differences(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace dnnperf
