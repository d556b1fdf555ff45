#pragma once
// `dnnperf fit` (calibrate a profile from measurements) and `dnnperf comm` (predict a collective).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_fit_command(CLI::App& app);
void add_comm_command(CLI::App& app);

/// What `dnnperf fit FILES --hardware BASE -o OUTPUT --report REPORT` does (for `calibrate`).
/// `measured_kernels`: keep the measured GEMMs and convolutions in the profile (fit --measured-kernels).
void fit_files(const std::vector<std::string>& files, const std::string& hardware, const std::string& output, const std::string& report,
               bool measured_kernels = false);

}  // namespace dnnperf::cli
