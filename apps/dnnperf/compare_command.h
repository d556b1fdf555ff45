#pragma once
// `dnnperf compare`: one run predicted on several hardware profiles side by side.
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_compare_command(CLI::App& app);

}  // namespace dnnperf::cli
