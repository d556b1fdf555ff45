#pragma once
// The model-parallel options `predict`, `search` and `scale` share (--tp, --pp, --interleave,
// --ep, --micro-batch, --global-batch, --recompute, --sequence-parallel, --zero, ...), read into
// the library's ModelParallelPlan, and the report of a ModelParallelPrediction.
#include <cstdint>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "apps/dnnperf/run_options.h"
#include "predictor/large_model/model_parallel.h"

namespace dnnperf::cli {

struct ParallelOptions {
  int tp = 1, pp = 1, interleave = 1, ep = 1, zero = 0;
  std::int64_t micro_batch = 1, global_batch = 0;
  std::string recompute = "none";
  std::string pipeline_layout;  // Megatron's notation (predictor/large_model/pipeline_layout.h); empty: even
  bool sequence_parallel = false;
  bool overlap_grad_reduce = false;
  bool overlap_p2p = false;
  double fragmentation = 0;
  /// Options of the CLI app they were registered on, to tell given from default.
  CLI::App* app = nullptr;
  /// True if any option that only a model-parallel plan reads was given.
  bool any_given() const;
};

/// Registers the degrees (`with_degrees`: --tp, --pp, --interleave, --pipeline-layout, --ep,
/// --zero, --recompute, --sequence-parallel, --micro-batch; `search` chooses them itself) and the
/// batch options.
void add_parallel_options(CLI::App* c, ParallelOptions& o, bool with_degrees);

/// The decoder spec behind --network; InputError naming the option for any other network.
TransformerSpec transformer_of(const RunOptions& o);

/// The plan the options describe on `nodes` nodes of `hw`; InputError naming the option for a
/// bad value or an option the model-parallel path does not read.
ModelParallelPlan model_parallel_plan(const RunOptions& run, const ParallelOptions& o, const HardwareProfile& hw, int nodes);

/// The plan in one line: "TP 8 x PP 8 (3 chunks) x DP 24, micro-batch 1, ...".
std::string plan_summary(const ModelParallelPlan& p);
nlohmann::json plan_json(const ModelParallelPlan& p);
nlohmann::json model_parallel_json(const ModelParallelPrediction& p);
void print_model_parallel(std::ostream& out, const ModelParallelPrediction& p);

}  // namespace dnnperf::cli
