#include "apps/dnnperf/model_parallel_options.h"

#include <algorithm>

#include "apps/dnnperf/cli_style.h"
#include "core/common/error.h"
#include "core/common/format.h"
#include "predictor/large_model/pipeline_layout.h"

namespace dnnperf::cli {
namespace {

bool given(const CLI::App* app, const char* name) { return app && app->get_option_no_throw(name) && app->get_option(name)->count() > 0; }

std::string gib(double bytes) { return fixed(bytes / (1024.0 * 1024 * 1024), 1) + " GiB"; }

std::string seconds(double s) { return s >= 1 ? fixed(s, 3) + " s" : fixed(s * 1e3, 1) + " ms"; }

}  // namespace

bool ParallelOptions::any_given() const {
  for (const char* name : {"--tp", "--pp", "--interleave", "--pipeline-layout", "--ep", "--zero", "--micro-batch", "--global-batch", "--recompute",
                           "--sequence-parallel", "--overlap-grad-reduce", "--overlap-p2p", "--fragmentation"})
    if (given(app, name)) return true;
  return false;
}

void add_parallel_options(CLI::App* c, ParallelOptions& o, bool with_degrees) {
  o.app = c;
  if (with_degrees) {
    c->add_option("--tp", o.tp, "tensor-parallel degree (Megatron's column/row split, inside a node)")->check(positive());
    c->add_option("--pp", o.pp, "pipeline stages")->check(positive());
    c->add_option("--interleave", o.interleave, "model chunks per GPU: interleaved 1F1B with this many virtual stages")->check(positive());
    c->add_option("--pipeline-layout", o.pipeline_layout,
                  "layers per chunk in Megatron's notation, chunks in pipeline order: \"Et*2|(t*2|)*34,t*3|(t*2|)*3,tL\" "
                  "(E embedding, t layer, L output and loss; its chunk count / --pp sets --interleave)");
    c->add_option("--ep", o.ep, "expert-parallel degree (mixture-of-experts models)")->check(positive());
    c->add_option("--zero", o.zero, "ZeRO stage: 0 replicated, 1 optimizer state sharded (Megatron's distributed optimizer), 2 and gradients, 3 and weights (FSDP)")
        ->check(CLI::Range(0, 3));
    c->add_option("--recompute", o.recompute, "activation recomputation: none, selective (the attention core) or full (every layer)")->capture_default_str();
    c->add_flag("--sequence-parallel", o.sequence_parallel, "shard norms and dropouts over the tensor-parallel ranks (all-gather/reduce-scatter instead of all-reduce)");
    c->add_option("--micro-batch", o.micro_batch, "sequences per micro-batch")->check(positive());
  }
  c->add_option("--global-batch", o.global_batch, "sequences per iteration over all data-parallel replicas (gradient accumulation makes up the rest)")->check(positive());
  c->add_flag("--overlap-grad-reduce", o.overlap_grad_reduce, "overlap the data-parallel gradient sync with backward, chunk by chunk");
  c->add_flag("--overlap-p2p", o.overlap_p2p, "overlap the sends between pipeline stages with computation (default: each blocks, as Megatron's 1F1B)");
  c->add_option("--fragmentation", o.fragmentation, "allocator memory held beyond allocations, as a fraction of activations")->check(CLI::Range(0.0, 0.99));
}

TransformerSpec transformer_of(const RunOptions& o) {
  const std::optional<TransformerSpec> spec = find_transformer_spec(o.network);
  if (!spec)
    throw InputError("--network: '" + o.network + "' is not a decoder transformer; model-parallel plans take gpt2*, gpt3-*, megatron-*, llama*, "
                     "mixtral-8x7b, gpt:..., transformer:... or a \"dnnperf.transformer\" file");
  return *spec;
}

ModelParallelPlan model_parallel_plan(const RunOptions& run, const ParallelOptions& o, const HardwareProfile& hw, int nodes) {
  const CLI::App* app = o.app;
  for (const char* name : {"--inference", "--input", "--dataset-size", "--allreduce", "--sync", "--bucket-mib", "--no-overlap", "--launch", "--batch", "--accumulate", "--fused-optimizer"})
    if (given(app, name))
      throw InputError(std::string(name) + " does not apply to a model-parallel plan (--tp, --pp, --global-batch, ...): " +
                       (std::string(name) == "--batch"        ? "give --micro-batch and --global-batch instead"
                        : std::string(name) == "--accumulate" ? "--global-batch over --micro-batch sets the micro-batches"
                        : std::string(name) == "--fused-optimizer" ? "Megatron-LM's Adam is fused already"
                                                              : "it prices training with Megatron-LM's schedule"));
  if (given(app, "--optimizer") && run.optimizer != "adam")
    throw InputError("--optimizer " + run.optimizer + ": model-parallel plans price Adam with fp32 master weights (Megatron-LM's)");
  ModelParallelPlan p;
  p.nodes = nodes;
  p.gpus_per_node = run.gpus_per_node > 0 ? run.gpus_per_node : hw.node.devices;
  p.tp = o.tp, p.pp = o.pp, p.virtual_stages = o.interleave, p.ep = o.ep, p.zero = o.zero;
  if (!o.pipeline_layout.empty()) {
    p.chunk_layers = parse_pipeline_layout(o.pipeline_layout, o.pp, transformer_of(run).layers);
    const int chunks_per_gpu = static_cast<int>(p.chunk_layers.size()) / o.pp;
    if (chunks_per_gpu > 1 && o.pp < 2)
      throw InputError("--pipeline-layout has " + std::to_string(p.chunk_layers.size()) + " chunks: give --pp, the pipeline stages they run on");
    if (given(app, "--interleave") && o.interleave != chunks_per_gpu)
      throw InputError("--pipeline-layout has " + std::to_string(p.chunk_layers.size()) + " chunks, " + std::to_string(chunks_per_gpu) +
                       " per GPU over --pp " + std::to_string(o.pp) + ", but --interleave is " + std::to_string(o.interleave));
    p.virtual_stages = chunks_per_gpu;
  }
  p.micro_batch = o.micro_batch;
  if (o.global_batch <= 0) throw InputError("--global-batch is required for a model-parallel plan: the sequences of one iteration");
  p.global_batch = o.global_batch;
  p.sequence = run.sequence;
  const std::optional<Recompute> r = parse_recompute(o.recompute);
  if (!r) throw InputError("--recompute: unknown value '" + o.recompute + "' (none, selective or full)");
  p.recompute = *r;
  p.sequence_parallel = o.sequence_parallel;
  p.overlap_grad_reduce = o.overlap_grad_reduce;
  p.overlap_p2p = o.overlap_p2p;
  p.fragmentation = o.fragmentation;
  // Large models train in mixed precision; fp32 only when asked for.
  const std::string dtype = given(app, "--dtype") ? run.dtype : "bf16";
  const std::optional<Precision> precision = parse_precision(dtype);
  if (!precision) throw InputError("--dtype: unknown value '" + dtype + "' (fp32, tf32, fp16, bf16 or fp8)");
  p.precision = *precision;
  return p;
}

std::string plan_summary(const ModelParallelPlan& p) {
  std::string s = "TP " + std::to_string(p.tp) + " x PP " + std::to_string(p.pp);
  if (p.virtual_stages > 1) s += " (" + std::to_string(p.virtual_stages) + " chunks each)";
  if (!p.chunk_layers.empty()) {
    const auto [fewest, most] = std::minmax_element(p.chunk_layers.begin(), p.chunk_layers.end());
    s += " (layout: " + std::to_string(*fewest) + "-" + std::to_string(*most) + " layers a chunk)";
  }
  s += " x DP " + std::to_string(p.dp());
  if (p.ep > 1) s += " (EP " + std::to_string(p.ep) + ")";
  s += ", micro-batch " + std::to_string(p.micro_batch) + " x " + std::to_string(p.micro_batches()) + ", recompute " + std::string(recompute_name(p.recompute));
  if (p.sequence_parallel) s += ", sequence parallel";
  if (p.zero > 0) s += ", ZeRO-" + std::to_string(p.zero);
  s += ", " + std::string(precision_name(p.precision));
  return s;
}

nlohmann::json plan_json(const ModelParallelPlan& p) {
  return {{"nodes", p.nodes},
          {"gpus_per_node", p.gpus_per_node},
          {"gpus", p.gpus()},
          {"tp", p.tp},
          {"pp", p.pp},
          {"interleave", p.virtual_stages},
          {"chunk_layers", p.chunk_layers},
          {"dp", p.dp()},
          {"ep", p.ep},
          {"zero", p.zero},
          {"micro_batch", p.micro_batch},
          {"micro_batches", p.micro_batches()},
          {"global_batch", p.global_batch},
          {"recompute", recompute_name(p.recompute)},
          {"sequence_parallel", p.sequence_parallel},
          {"overlap_grad_reduce", p.overlap_grad_reduce},
          {"overlap_p2p", p.overlap_p2p},
          {"dtype", precision_name(p.precision)}};
}

nlohmann::json model_parallel_json(const ModelParallelPrediction& p) {
  const auto& b = p.breakdown;
  const auto& m = p.memory;
  return {{"network", p.network},
          {"hardware", p.hardware},
          {"parameters", p.parameters},
          {"plan", plan_json(p.plan)},
          {"iteration_s", p.iteration_s},
          {"low_s", p.low_s},
          {"high_s", p.high_s},
          {"tokens_per_s", p.tokens_per_s},
          {"samples_per_s", p.samples_per_s},
          {"model_tflops_per_gpu", p.model_tflops_per_gpu},
          {"hardware_tflops_per_gpu", p.hardware_tflops_per_gpu},
          {"mfu", p.mfu},
          {"sync_wait", p.sync_wait},
          {"breakdown",
           {{"compute_s", b.compute_s},
            {"recompute_s", b.recompute_s},
            {"tp_comm_s", b.tp_comm_s},
            {"ep_comm_s", b.ep_comm_s},
            {"bubble_s", b.bubble_s},
            {"pp_comm_s", b.pp_comm_s},
            {"dp_comm_exposed_s", b.dp_comm_exposed_s},
            {"dp_comm_s", b.dp_comm_s},
            {"optimizer_s", b.optimizer_s}}},
          {"memory_bytes", m.total()},
          {"memory",
           {{"stage", m.stage},
            {"weights", m.weights},
            {"gradients", m.gradients},
            {"optimizer_state", m.optimizer_state},
            {"activations", m.activations},
            {"workspace", m.workspace},
            {"fragmentation", m.fragmentation},
            {"capacity", m.capacity},
            {"fits", m.fits()},
            {"shortfall", m.shortfall()}}}};
}

void print_model_parallel(std::ostream& out, const ModelParallelPrediction& p) {
  const auto& b = p.breakdown;
  const auto& m = p.memory;
  out << "network             " << p.network << " (" << with_commas(p.parameters) << " parameters)\n";
  out << "hardware            " << p.hardware << ", " << p.plan.nodes << " node(s) x " << p.plan.gpus_per_node << " GPUs\n";
  out << "plan                " << plan_summary(p.plan) << "\n";
  out << "iteration           " << seconds(p.iteration_s);
  if (p.high_s > p.low_s) out << "  (95% interval " << seconds(p.low_s) << " .. " << seconds(p.high_s) << ")";
  out << "\n";
  out << "throughput          " << fixed(p.tokens_per_s, 0) << " tokens/s, " << fixed(p.samples_per_s, 2) << " sequences/s\n";
  out << "per GPU             " << fixed(p.model_tflops_per_gpu, 1) << " model TFLOP/s (MFU " << fixed(100 * p.mfu, 1) << "%), "
      << fixed(p.hardware_tflops_per_gpu, 1) << " with recomputation\n";
  out << "breakdown           compute " << seconds(b.compute_s) << ", recompute " << seconds(b.recompute_s) << ", tensor-parallel comm "
      << seconds(b.tp_comm_s);
  if (b.ep_comm_s > 0) out << ", expert all-to-all " << seconds(b.ep_comm_s);
  if (b.pp_comm_s > 0) out << ", pipeline sends " << seconds(b.pp_comm_s);
  out << ", bubble " << seconds(b.bubble_s) << ", data-parallel exposed "
      << seconds(b.dp_comm_exposed_s) << " (of " << seconds(b.dp_comm_s) << "), optimizer " << seconds(b.optimizer_s) << "\n";
  if (p.sync_wait != 1.0)
    out << "waiting             compute and optimizer " << fixed(p.sync_wait, 3) << "x a GPU's own: every micro-batch waits for the slowest of "
        << p.plan.gpus() << " GPUs (profile's step_jitter and speed_spread, or sync_wait)\n";
  out << "memory per GPU      weights " << gib(m.weights) << ", gradients " << gib(m.gradients) << ", optimizer " << gib(m.optimizer_state)
      << ", activations " << gib(m.activations) << ", workspace " << gib(m.workspace);
  if (m.fragmentation > 0) out << ", fragmentation " << gib(m.fragmentation);
  out << " = " << gib(m.total()) << " of " << gib(m.capacity) << " (stage " << m.stage << ")\n";
  if (!m.fits()) out << "DOES NOT FIT        " << gib(m.shortfall()) << " over the GPU's memory\n";
}

}  // namespace dnnperf::cli
