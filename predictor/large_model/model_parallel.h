#pragma once
// Prediction of one training iteration of a large transformer under a model-parallel plan:
//
//   const TransformerSpec gpt = *find_transformer_spec("gpt3-175b");
//   ModelParallelPlan plan;
//   plan.nodes = 128, plan.tp = 8, plan.pp = 8, plan.virtual_stages = 3;
//   plan.micro_batch = 1, plan.global_batch = 1536, plan.recompute = Recompute::selective;
//   const ModelParallelPrediction p = predict_model_parallel(gpt, find_hardware_profile("a100"), plan);
//
// Each part (layer, embedding, head) is priced once by the device's kernel models
// (layer_costs.h); the tensor-parallel, expert all-to-all, pipeline and data-parallel collectives
// by models/comm/; the iteration is simulated (pipeline_schedule.h); memory follows
// model_parallel_memory.h. A ModelParallelEvaluator keeps the parts it priced, so a search over
// plans prices each distinct (tp, ep, micro-batch) once.
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "networks/zoo/transformer_spec.h"
#include "predictor/large_model/layer_costs.h"
#include "predictor/large_model/model_parallel_memory.h"
#include "predictor/large_model/model_parallel_plan.h"
#include "predictor/large_model/pipeline_schedule.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

struct ModelParallelPrediction {
  std::string network;
  std::string hardware;
  ModelParallelPlan plan;
  double iteration_s = 0;
  double low_s = 0, high_s = 0;  // 95% interval from the kernel models' (equal for datasheet profiles)
  double tokens_per_s = 0;
  double samples_per_s = 0;
  /// Model FLOPs (forward and backward, no recomputation; transformer_training_flops) per second
  /// and GPU, against the peak of the math the plan's precision runs on.
  double model_tflops_per_gpu = 0;
  double mfu = 0;
  /// Hardware FLOPs: with recomputation counted, as Narayanan et al. 2021 report throughput.
  double hardware_tflops_per_gpu = 0;
  /// The critical GPU's iteration by part (seconds): its kernels' forward and backward, their
  /// recomputation, the tensor-parallel and expert collectives inside its layers (Megatron runs
  /// them on the compute stream: never hidden), its blocking sends between stages, its idle time
  /// in the pipeline (the bubble), the data-parallel sync not hidden by backward, and the
  /// optimizer step. They add up to the iteration.
  struct Breakdown {
    double compute_s = 0;
    double recompute_s = 0;
    double tp_comm_s = 0;
    double ep_comm_s = 0;
    double bubble_s = 0;
    double pp_comm_s = 0;  // blocking sends to the neighbouring stages (overlapped sends wait inside bubble_s)
    double dp_comm_exposed_s = 0;
    double dp_comm_s = 0;  // all of the data-parallel sync, hidden or not
    double optimizer_s = 0;
  } breakdown;
  /// The factor on every GPU's kernels for waiting for the slowest of the plan's GPUs
  /// (sync_wait_factor(): the profile's spread of device speeds and step jitter); the breakdown's
  /// compute, recompute and optimizer times include it.
  double sync_wait = 1;
  ModelParallelMemory memory;  // of the stage that needs the most
  std::int64_t parameters = 0;
  std::int64_t micro_batches = 0;
};

class ModelParallelEvaluator {
 public:
  ModelParallelEvaluator(TransformerSpec spec, const HardwareProfile& hardware);

  /// Validates `plan` (InputError naming the field) and predicts it.
  ModelParallelPrediction predict(const ModelParallelPlan& plan);
  /// Memory of the plan's worst stage only: what a search checks before simulating.
  ModelParallelMemory memory(const ModelParallelPlan& plan);
  /// A search's first step for a validated plan: its memory, and if it fits a lower bound on its
  /// iteration without simulating it (the busiest GPU's own work: micro-batches times its chunks'
  /// forward and backward, and its optimizer step); nullopt if it does not fit.
  std::optional<double> lower_bound_if_fits(const ModelParallelPlan& plan, ModelParallelMemory& memory);
  /// The simulated iteration of a validated plan (the interval's center), without the breakdown.
  double iteration_seconds(const ModelParallelPlan& plan);
  /// Distinct part sets priced so far.
  std::size_t priced_parts() const { return parts_.size(); }
  const TransformerSpec& spec() const { return spec_; }
  const HardwareProfile& hardware() const { return hardware_; }

 private:
  const StageParts& parts(const ModelParallelPlan& plan);

  TransformerSpec spec_;
  const HardwareProfile& hardware_;
  std::map<std::tuple<int, int, std::int64_t, std::int64_t, int>, StageParts> parts_;
  PipelineSimulator simulator_;
};

/// One plan, priced afresh.
ModelParallelPrediction predict_model_parallel(const TransformerSpec& spec, const HardwareProfile& hardware, const ModelParallelPlan& plan);

}  // namespace dnnperf
