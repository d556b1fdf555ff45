// dnnperf: predicts how long deep-network training and inference take, and how they scale.
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/dnnperf/bench_command.h"
#include "apps/dnnperf/calibrate_command.h"
#include "apps/dnnperf/comm_command.h"
#include "apps/dnnperf/fit_command.h"
#include "apps/dnnperf/net_command.h"
#include "apps/dnnperf/predict_command.h"
#include "apps/dnnperf/schedule_command.h"
#include "apps/dnnperf/score_command.h"
#include "apps/dnnperf/validate_command.h"
#include "core/common/error.h"

int main(int argc, char** argv) {
  CLI::App app{"dnnperf: performance prediction for deep-network training and inference"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dnnperf 0.1.0");
  dnnperf::cli::add_net_command(app);
  dnnperf::cli::add_predict_command(app);
  dnnperf::cli::add_scale_command(app);
  int exit_code = 0;
  dnnperf::cli::add_bench_command(app, exit_code);
  dnnperf::cli::add_fit_command(app);
  dnnperf::cli::add_calibrate_command(app);
  dnnperf::cli::add_score_command(app);
  dnnperf::cli::add_comm_command(app);
  dnnperf::cli::add_validate_command(app);
  dnnperf::cli::add_schedule_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const dnnperf::InputError& e) {
    std::cerr << "dnnperf: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "dnnperf: error: out of memory (is the network or batch unreasonably large?)\n";
    return 1;
  }
  return exit_code;
}
