#pragma once
// `dnnperf fit` (calibrate a profile from measurements) and `dnnperf comm` (predict a collective).
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_fit_command(CLI::App& app);
void add_comm_command(CLI::App& app);

}  // namespace dnnperf::cli
