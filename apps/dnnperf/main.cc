// dnnperf: predicts how long deep-network training and inference take, and how they scale.
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/dnnperf/bench_command.h"
#include "apps/dnnperf/calibrate_command.h"
#include "apps/dnnperf/cli_style.h"
#include "apps/dnnperf/comm_command.h"
#include "apps/dnnperf/compare_command.h"
#include "apps/dnnperf/fit_command.h"
#include "apps/dnnperf/net_command.h"
#include "apps/dnnperf/predict_command.h"
#include "apps/dnnperf/schedule_command.h"
#include "apps/dnnperf/search_command.h"
#include "apps/dnnperf/score_command.h"
#include "apps/dnnperf/validate_command.h"
#include "core/common/error.h"

namespace {

/// "frob" where a command belongs: CLI11 would answer "A subcommand is required".
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return {};
  const std::string given = argv[1];
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == given) return {};
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return "unknown command '" + given + "'; the commands are " + names + " (dnnperf --help)";
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = dnnperf::cli;
  CLI::App app{"dnnperf: performance prediction for deep-network training and inference"};
  app.formatter(cli::help_formatter());
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  dnnperf predict -n resnet50 --hardware a100 -b 64 --nodes 4\n"
      "  dnnperf scale -n gpt2 --hardware h100 -b 8 --nodes 1..64 --csv gpt2.csv\n"
      "  dnnperf compare -n resnet50 -b 256 --dtype bf16 --hardware a100,h100,h200\n"
      "  dnnperf net show bert-base --seq 128\n"
      "Exit status: 0 done, 1 an input cannot be used, 2 a wrong command line, 3 an internal error,\n"
      "77 skipped (no GPU or MPI here).");
  app.set_version_flag("--version", "dnnperf 0.1.0");
  dnnperf::cli::add_net_command(app);
  dnnperf::cli::add_predict_command(app);
  dnnperf::cli::add_scale_command(app);
  dnnperf::cli::add_compare_command(app);
  dnnperf::cli::add_search_command(app);
  int exit_code = 0;
  dnnperf::cli::add_bench_command(app, exit_code);
  dnnperf::cli::add_fit_command(app);
  dnnperf::cli::add_calibrate_command(app);
  dnnperf::cli::add_score_command(app);
  dnnperf::cli::add_comm_command(app);
  dnnperf::cli::add_validate_command(app);
  dnnperf::cli::add_schedule_command(app);
  if (const std::string unknown = unknown_command(app, argc, argv); !unknown.empty()) {
    std::cerr << "dnnperf: error: " << unknown << "\n";
    return cli::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // CLI11's own codes (101-120) say which rule broke; a user needs "the command line is wrong".
    std::cerr << "dnnperf: error: " << e.what() << "\nRun with --help for more information.\n";
    return cli::kExitUsage;
  } catch (const dnnperf::InputError& e) {
    std::cerr << "dnnperf: error: " << e.what() << "\n";
    return cli::kExitInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "dnnperf: error: out of memory (is the network or batch unreasonably large?)\n";
    return cli::kExitInput;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "dnnperf: error: " << e.path1().string() << ": " << e.code().message() << "\n";
    return cli::kExitInput;
  } catch (const std::exception& e) {
    // Every reader turns bad input into an InputError; reaching here is a bug, reported, not a crash.
    std::cerr << "dnnperf: internal error (please report it with the command that caused it): " << e.what() << "\n";
    return cli::kExitInternal;
  }
  return exit_code;
}
