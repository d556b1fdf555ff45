#include "apps/dnnperf/run_options.h"
#include "apps/dnnperf/cli_style.h"

#include <algorithm>
#include <optional>

#include "core/common/error.h"
#include "profile/comm_model.h"

namespace dnnperf::cli {
namespace {

template <typename T>
T parse_or_fail(std::optional<T> value, const std::string& option, const std::string& text, const std::string& choices) {
  if (!value) throw InputError("--" + option + ": unknown value '" + text + "' (" + choices + ")");
  return *value;
}

}  // namespace

void add_run_options(CLI::App* c, RunOptions& o) {
  c->add_option("--network,-n", o.network, "zoo name or spec, FILE.json or FILE.onnx")->required();
  c->add_option("--hardware", o.hardware, "hardware profile: short name (v100, a100, a100-40gb, h100, h200, p3dn, p3, p100-pcie-roce25, bigbasin-p100, cpu) or a JSON path")->capture_default_str();
  c->add_option("--gpus-per-node", o.gpus_per_node, "devices used per node (default: all of the profile's node)")->check(positive());
  c->add_option("--dtype", o.dtype, "fp32, tf32, fp16, bf16 or fp8 (fp16, bf16: mixed precision with fp32 master weights; fp8: bf16 with its layers' weight GEMMs on FP8 tensor cores, as Transformer Engine runs them)")->capture_default_str();
  c->add_option("--optimizer", o.optimizer, "sgd, momentum, adam or lamb")->capture_default_str();
  c->add_flag("--fused-optimizer", o.fused_optimizer,
              "the optimizer as fused multi-tensor kernels (apex's FusedAdam/FusedLAMB, torch.optim's fused=True): one pass over "
              "all parameters; default: torch.optim's per-tensor updates");
  c->add_option("--allreduce", o.allreduce, "ring, recursive_doubling, rabenseifner, binomial_tree, hierarchical, best (the cheapest per message), or a library's own measured choice: default (MPI's), gloo, nccl (on a GPU profile with no NCCL measured: NCCL's own tuner's choice of ring or tree and LL, LL128 or Simple)")->capture_default_str();
  c->add_option("--bucket-mib", o.bucket_mib, "DDP gradient bucket size in MiB")->capture_default_str()->check(positive());
  c->add_flag("--no-overlap", o.no_overlap, "one blocking all-reduce after backward (same as --sync end)");
  c->add_option("--sync", o.sync, "gradient all-reduce: bucketed (DDP, overlapping backward), per-layer (blocking) or end (blocking)")->capture_default_str();
  c->add_option("--dataset-size", o.dataset_size, "samples per epoch, for the epoch time")->check(positive());
  c->add_flag("--inference", o.inference, "predict inference (forward pass) instead of training");
  c->add_option("--accumulate", o.accumulate,
                "micro-batches of --batch per optimizer step (gradient accumulation): gradients are exchanged once, with the last "
                "micro-batch's backward (DDP's no_sync before it)")
      ->capture_default_str()
      ->check(positive());
  c->add_option("--launch", o.launch, "GPUs: eager (one host launch per kernel, as PyTorch runs by default) or graph (the step replayed as a CUDA Graph: no per-kernel dispatch)")->capture_default_str();
  c->add_option("--input", o.input, "image size H,W (zoo CNNs)")->delimiter(',')->expected(1, 2)->check(positive());
  c->add_option("--seq", o.sequence, "tokens per sample (zoo transformers)")->check(positive());
  c->add_flag("--json", o.json, "print one JSON object");
}

RunConfig run_config(const RunOptions& o, const HardwareProfile& hw) {
  RunConfig c;
  c.precision = parse_or_fail(parse_precision(o.dtype), "dtype", o.dtype, "fp32, tf32, fp16, bf16 or fp8");
  c.optimizer = parse_or_fail(parse_optimizer(o.optimizer), "optimizer", o.optimizer, "sgd, momentum, adam or lamb");
  c.fused_optimizer = o.fused_optimizer;
  if (o.fused_optimizer && o.inference) throw InputError("--fused-optimizer applies to training, not --inference");
  if (o.allreduce == "default" || is_library_name(o.allreduce))
    c.plan.allreduce_library = o.allreduce == "default" ? "mpi" : o.allreduce;
  else if (o.allreduce != "best")
    c.plan.allreduce = parse_or_fail(parse_allreduce(o.allreduce), "allreduce", o.allreduce,
                                      "ring, recursive_doubling, rabenseifner, binomial_tree, hierarchical, best, default, gloo or nccl");
  c.plan.bucket_bytes = o.bucket_mib * 1024 * 1024;
  c.plan.first_bucket_bytes = std::min(c.plan.first_bucket_bytes, c.plan.bucket_bytes);
  if (o.sync == "bucketed") c.plan.sync = GradientSync::bucketed;
  else if (o.sync == "per-layer") c.plan.sync = GradientSync::per_layer;
  else if (o.sync == "end") c.plan.sync = GradientSync::at_end;
  else throw InputError("--sync: unknown value '" + o.sync + "' (bucketed, per-layer or end)");
  if (o.no_overlap) c.plan.sync = GradientSync::at_end;
  // 0 stands for "not given": the options' checks refuse a 0 or a negative from the command line.
  c.plan.devices_per_node = o.gpus_per_node > 0 ? o.gpus_per_node : hw.node.devices;
  if (o.dataset_size > 0) c.dataset_size = o.dataset_size;
  c.inference = o.inference;
  if (o.inference && o.accumulate != 1) throw InputError("--accumulate applies to training, not --inference");
  c.accumulation_steps = o.accumulate;
  c.launch = parse_or_fail(parse_launch(o.launch), "launch", o.launch, "eager or graph");
  return c;
}

LoadOptions load_options(const RunOptions& o, std::int64_t batch) {
  LoadOptions l;
  l.batch = batch;
  if (!o.input.empty()) l.image = std::array<std::int64_t, 2>{o.input[0], o.input.size() > 1 ? o.input[1] : o.input[0]};
  if (o.sequence) l.sequence = o.sequence;
  l.with_loss = !o.inference;
  return l;
}

}  // namespace dnnperf::cli
