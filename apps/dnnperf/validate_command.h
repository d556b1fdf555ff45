#pragma once
// `dnnperf validate`: predictions against real PyTorch runs (scripts/torch_train.py).
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_validate_command(CLI::App& app);

}  // namespace dnnperf::cli
