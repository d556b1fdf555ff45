#pragma once
// `dnnperf search`, and the search space both it and `scale` read from the command line.
#include <string>

#include <CLI/CLI.hpp>

#include "apps/dnnperf/model_parallel_options.h"
#include "predictor/large_model/plan_search.h"

namespace dnnperf::cli {

void add_search_command(CLI::App& app);

/// The space of plans on `gpus` GPUs the options describe.
PlanSearchSpace search_space(const RunOptions& o, const ParallelOptions& parallel, const HardwareProfile& hw, int gpus);
/// "no plan fits in memory; the closest, ..., needs X GiB per GPU, Y more than ..." (empty when one fits).
std::string missed_memory(const PlanSearchResult& r);

}  // namespace dnnperf::cli
