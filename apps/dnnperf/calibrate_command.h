#pragma once
// `dnnperf calibrate`: measure kernels through a framework backend and fit a profile, in one go.
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_calibrate_command(CLI::App& app);

}  // namespace dnnperf::cli
