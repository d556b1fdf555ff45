#include "apps/dnnperf/fit_command.h"

#include <iostream>
#include <memory>

#include "calibration/profile_fit.h"

namespace dnnperf::cli {

void add_fit_command(CLI::App& app) {
  auto o = std::make_shared<calibration::FitOptions>();
  CLI::App* c = app.add_subcommand("fit", "Fit communication models to measurements; write a calibrated profile and error tables");
  c->footer("Example:\n  dnnperf fit allreduce.jsonl gemm.jsonl --hardware h200 -o h200-calibrated.json");
  c->add_option("measurements", o->files, "measurement files (JSON Lines from dnnperf bench)")->required();
  c->add_option("--hardware", o->hardware, "base profile to calibrate (name or path)")->capture_default_str();
  c->add_option("-o,--output", o->output, "calibrated profile to write");
  c->add_option("--collective", o->collective, "collective to fit")->capture_default_str();
  c->add_option("--models", o->models, "models to fit and compare")->capture_default_str();
  c->add_option("--report", o->plots, "folder for the report: fit_report.json, fit_points.csv (fitted), held_out_points.csv (cross-validated) and plots");
  c->add_option("--family", o->family,
                "compute family for GEMMs and convolutions: analytic (the roofline; on a GPU, the GPU family), regression, or both (per class, the one with the lower time-weighted held-out error; on a GPU, the GPU family); or per class, e.g. gemm=analytic,conv=regression")
      ->capture_default_str();
  c->add_flag("--per-image-gemms", o->per_image_gemms,
              "fit and price the convolutions the measuring framework runs as per-image GEMMs (PyTorch on one CPU thread: 1x1, batch under 16) as those GEMMs (class per_image_gemm)");
  c->add_option("--steps", o->steps,
                "ground-truth runs of networks other than those to be validated (a `validate --save-measured` folder): the error of whole steps beyond their kernels' enters the prediction intervals (device.step_sigma), and where hot pairs fitted a step's warmth, they fit the share of it steps realize (device.step_warmth.realized_share)");
  c->add_option("--step-networks", o->step_networks, "folder of the --steps runs' (and --step-warmth records') network files, where they are not at the recorded path");
  c->add_option("--step-warmth", o->step_warmth,
                "convolutions of networks other than those to be validated, timed inside their steps and alone (scripts/torch_step_warmth.py): where hot pairs fitted a step's warmth, the share of it that training steps and inferences realize, fitted on these rather than on whole --steps runs");
  c->add_option("--dtype", o->dtype, "element type of the GEMMs and convolutions to fit (one per fit; default: f32 where measured, else the most measured)");
  c->add_flag("--measured-kernels", o->measured_kernels, "also keep the measured GEMMs and convolutions: kernels of those shapes are priced by their measured time");
  c->add_option("--time-weight", o->time_weight,
                "weigh each GEMM and convolution in the structural fits by (its time / its class's median)^X, X from 0 (alike) to 2; auto: with --steps, "
                "fit with 0 and 0.5 and keep the one whose predictions of the runs err least, else 0")
      ->capture_default_str();
  c->callback([o] { calibration::fit_profile_files(std::cout, *o); });
}

}  // namespace dnnperf::cli
