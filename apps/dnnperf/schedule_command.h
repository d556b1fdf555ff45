#pragma once
// `dnnperf schedule`: a network's operators onto a heterogeneous platform (scheduler/).
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_schedule_command(CLI::App& app);

}  // namespace dnnperf::cli
