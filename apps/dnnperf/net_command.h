#pragma once
// `dnnperf net list` and `dnnperf net show`.
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

/// Adds the `net` subcommand and its children to `app`.
void add_net_command(CLI::App& app);

}  // namespace dnnperf::cli
