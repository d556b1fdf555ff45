#pragma once
// `dnnperf fit`: a calibrated profile from measurement files (calibration/profile_fit.h).
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_fit_command(CLI::App& app);

}  // namespace dnnperf::cli
