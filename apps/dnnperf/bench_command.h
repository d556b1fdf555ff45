#pragma once
// `dnnperf bench`: measure per-operation costs into a measurement file.
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

/// `exit_code` receives the command's status (0 ok, 1 error, 77 nothing to measure here).
void add_bench_command(CLI::App& app, int& exit_code);

}  // namespace dnnperf::cli
