#pragma once
// The options `predict` and `scale` share: network, hardware, precision, optimizer, gradient
// sync, input sizes; read into the library's RunConfig and LoadOptions.
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "networks/import/network_loader.h"
#include "predictor/prediction/run_config.h"
#include "profile/hardware_profile.h"

namespace dnnperf::cli {

struct RunOptions {
  std::string network;
  std::string hardware = "a100";
  std::int64_t batch = 0;
  std::string nodes = "1";
  int gpus_per_node = 0;  // 0: all devices of a node
  std::string dtype = "fp32";
  std::string optimizer = "sgd";
  bool fused_optimizer = false;
  std::string allreduce = "best";
  double bucket_mib = 25;
  bool no_overlap = false;
  std::string sync = "bucketed";
  std::int64_t dataset_size = 0;
  bool inference = false;
  int accumulate = 1;  // micro-batches per optimizer step
  std::string launch = "eager";
  bool json = false;
  std::vector<std::int64_t> input;
  std::int64_t sequence = 0;
};


/// Registers the shared options on `c`, writing into `o`.
void add_run_options(CLI::App* c, RunOptions& o);
/// The run the options describe on `hw`; InputError naming the option for a bad value.
RunConfig run_config(const RunOptions& o, const HardwareProfile& hw);
/// How to load the network at `batch` samples per device.
LoadOptions load_options(const RunOptions& o, std::int64_t batch);

}  // namespace dnnperf::cli
