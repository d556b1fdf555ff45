#include "apps/dnnperf/calibrate_command.h"
#include "apps/dnnperf/cli_style.h"

#include <iostream>
#include <memory>

#include "calibration/calibrate.h"

namespace dnnperf::cli {

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<calibration::CalibrateOptions>();
  CLI::App* c = app.add_subcommand("calibrate", "Measure kernels through a framework and fit a calibrated profile, in one go");
  c->footer("Example:\n  dnnperf calibrate --device cuda --hardware h200 -o mygpu.json");
  c->add_option("--backend", o->backend, "measurement backend: torch (scripts/torch_bench.py)")->capture_default_str();
  c->add_option("--device", o->device, "cpu or cuda")->capture_default_str();
  c->add_option("--hardware", o->hardware, "base profile to calibrate (default for cpu: cpu; required for cuda)");
  c->add_option("--time-budget", o->time_budget, "seconds for measuring and fitting together (resumable: rerun to continue; default: the plan's, 570)")->check(positive());
  c->add_option("--plan", o->plan, "calibration plan: what to measure and each part's share of the time (default: data/calibration/torch.json)");
  c->add_option("--shapes", o->shapes, "the generic shape set for GEMMs and convolutions (default: sample:600:1:2 on a CPU, sample:600:1:200 on CUDA: every kernel under 2 or 200 GFLOP)");
  c->add_option("--threads", o->threads, "CPU threads the framework uses")->capture_default_str()->check(positive());
  c->add_option("--procs", o->procs, "also measure all-reduce through torch.distributed (gloo on cpu, NCCL on cuda) on these process counts, e.g. 2 or 2,4")->delimiter(',')->check(positive());
  c->add_option("--networks", o->networks, "also measure these zoo networks' exact GEMMs and convolutions (after the generic set, outside the time budget) and price them by their measured time")
      ->delimiter(',');
  c->add_option("--batch", o->batch, "batch for --networks")->check(positive());
  c->add_option("--input", o->input, "image size for --networks (zoo CNNs)");
  c->add_option("--work", o->work, "folder for measurements and report (default: OUTPUT without .json, plus .calibration)");
  c->add_option("--python", o->python, "Python interpreter with PyTorch")->capture_default_str();
  c->add_option("--caches", o->caches, "GEMMs and convolutions timed with the caches evicted before each repetition (cold: as inside a training step) or warm")->capture_default_str();
  c->add_option("-o,--output", o->output, "calibrated profile to write")->required();
  c->callback([o] { calibration::calibrate(std::cout, *o); });
}

}  // namespace dnnperf::cli
