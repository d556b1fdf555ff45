#pragma once
// `dnnperf fit` (calibrate a profile from measurements) and `dnnperf comm` (predict a collective).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fitting/compute/compute_fit.h"

namespace dnnperf::cli {

void add_fit_command(CLI::App& app);
void add_comm_command(CLI::App& app);

/// What `dnnperf fit FILES --hardware BASE -o OUTPUT --report REPORT` does (for `calibrate`).
/// `measured_kernels`: keep the measured GEMMs and convolutions in the profile (fit --measured-kernels).
/// `steps`, `step_networks`, `step_warmth`: as fit --steps, --step-networks and --step-warmth ("": none).
void fit_files(const std::vector<std::string>& files, const std::string& hardware, const std::string& output, const std::string& report,
               bool measured_kernels = false, const std::string& steps = "", const std::string& step_networks = "", const std::string& step_warmth = "");

/// Per GEMM and convolution class, four measured kernels spread over the times of those that take
/// 0.2-20 ms (long enough to time well, short enough to re-time in seconds): `validate` times them
/// again to tell the machine's drift from the model's error, `calibrate --procs` beside co-running
/// processes.
std::vector<std::pair<Kernel, double>> reference_kernels(const std::vector<fitting::ComputeSample>& samples);

/// The PyTorch backend's plain memory passes (params: bytes only) over buffers of at least
/// kReferencePassBytes (hardware_profile.h) in `files`, each at its first file's time: `validate`
/// times them again beside the reference kernels to tell how fast the machine streams memory now
/// against then.
std::vector<ReferencePass> reference_passes(const std::vector<std::string>& files);

/// What `files` were measured on, as their runs' context lines name it: `cpu`
/// (predictor/hardware/cpu_identity.h) and `allocator` (the PyTorch backend's allocator policy,
/// scripts/dnnperf_py/allocator.py), each the one most records ran with, with a warning listing
/// each where they name several; a key is absent where no line names it. Throws InputError naming
/// the file for a malformed CPU description.
nlohmann::json measured_on(const std::vector<std::string>& files);

}  // namespace dnnperf::cli
