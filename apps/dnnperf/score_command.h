#pragma once
// `dnnperf score`: price measured kernels with a profile and report the error per kernel class —
// how well a calibration predicts kernels it was not fitted to (fitting/compute/compute_score.h).
#include <CLI/CLI.hpp>

namespace dnnperf::cli {

void add_score_command(CLI::App& app);

}  // namespace dnnperf::cli
