#include "apps/dnnperf/validate_command.h"
#include "apps/dnnperf/cli_style.h"

#include <iostream>
#include <memory>

#include "validation/validate.h"

namespace dnnperf::cli {

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<validation::ValidateOptions>();
  CLI::App* c = app.add_subcommand("validate", "Compare predictions with real PyTorch training iterations or inferences");
  c->footer("Example:\n  dnnperf validate --hardware cpu --networks resnet18 --batch 8,16 --procs 1,2");
  c->add_option("--hardware", o->hardware, "profile (name or path): a calibrated one for this machine")->capture_default_str();
  c->add_option("--networks", o->networks, "zoo networks (torchvision CNNs, transformer_encoder)")->delimiter(',')->required();
  c->add_option("--batch", o->batches, "batches per process")->delimiter(',')->required()->check(positive());
  c->add_option("--procs", o->procs, "data-parallel processes (DDP with gloo)")->delimiter(',')->check(positive());
  c->add_option("--input", o->input, "image size H,W")->delimiter(',')->expected(1, 2)->check(positive());
  c->add_option("--seq", o->sequence, "tokens per sample for transformers")->capture_default_str()->check(positive());
  c->add_option("--iterations", o->iterations, "timed iterations per run (two runs per case)")->capture_default_str()->check(positive());
  c->add_flag("--inference", o->inference, "validate inference instead of training");
  c->add_option("--dtype", o->dtype, "precision predicted and run: fp32 (PyTorch's defaults), tf32, or fp16/bf16 mixed precision (torch.autocast)")
      ->capture_default_str();
  c->add_option("--accumulate", o->accumulate, "training runs of this many micro-batches per optimizer step (gradient accumulation), predicted and run alike")
      ->capture_default_str()
      ->check(positive());
  c->add_option("--timeout", o->timeout, "seconds one ground-truth run may take")->capture_default_str()->check(positive());
  c->add_flag("--json", o->json, "print one JSON object");
  c->add_option("--measured", o->measured, "use ground truth measured elsewhere (scripts/gpu_validate.sh or --save-measured write DIR) instead of running PyTorch here");
  c->add_option("--save-measured", o->save_measured, "also keep the ground truth measured here in DIR, for judging other profiles on the same runs (--measured DIR)")
      ->excludes("--measured");
  c->add_flag("--resume", o->resume, "read back the cases whose two runs --save-measured DIR already keeps (an interrupted validation) instead of running them again")
      ->needs("--save-measured");
  c->add_flag("!--no-run-reference", o->run_reference,
              "do not time the profile's reference kernels and passes beside each run (about 2 s a run on the dev VM; the column speed and the error at each run's own speed need them)");
  c->add_option("--plot", o->plot, "also draw predicted against measured time per case into this PNG (its data beside it, PLOT.json)");
  c->callback([o] { validation::validate(std::cout, std::cerr, *o); });
}

}  // namespace dnnperf::cli
