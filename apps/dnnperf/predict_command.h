#pragma once
// `dnnperf predict` and `dnnperf scale`.
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_predict_command(CLI::App& app);
void add_scale_command(CLI::App& app);

}  // namespace dnnperf::cli
