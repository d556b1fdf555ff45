#pragma once
// `dnnperf comm`: one collective's time with a profile (its fitted models, or the datasheet's
// alpha-beta-gamma algorithms).
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_comm_command(CLI::App& app);

}  // namespace dnnperf::cli
