// Properties every prediction keeps, over generated networks, batches, node counts, precisions,
// optimizers and every shipped profile (RapidCheck: hundreds of cases each, RC_PARAMS in
// tests/CMakeLists.txt; a failure prints the smallest case it shrank to). A configuration the
// profile refuses (an InputError, e.g. a precision a CPU lacks) is discarded, not counted.
#include <cmath>
#include <filesystem>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include "core/common/error.h"
#include "predictor/prediction/predict.h"
#include "profile/profile_writer.h"
#include "tests/properties/generators.h"

using namespace dnnperf;
using namespace dnnperf::properties;

namespace {

bool finite_non_negative(double x) { return std::isfinite(x) && x >= 0; }

/// The prediction, or a discarded case where the inputs are refused with a clear error.
Prediction predict_or_discard(const NetworkCase& net, const HardwareProfile& hw, const RunConfig& run) {
  try {
    return predict(load_network(net.spec, net.options), hw, run);
  } catch (const InputError& e) {
    RC_DISCARD(std::string("refused: ") + e.what());
  }
}

}  // namespace

TEST_CASE("Every prediction is finite and positive, inside its interval, with a positive memory total") {
  rc::prop("finite and positive", [] {
    const NetworkCase net = network_case();
    const std::string name = *rc::gen::elementOf(profile_names());
    const HardwareProfile& hw = profile(name);
    RunConfig run = run_config(hw);
    run.inference = *rc::gen::element(false, false, true);
    const Prediction p = predict_or_discard(net, hw, run);
    RC_ASSERT(std::isfinite(p.iteration_s));
    RC_ASSERT(p.iteration_s > 0);
    RC_ASSERT(p.samples_per_s > 0);
    RC_ASSERT(std::isfinite(p.samples_per_s));
    RC_ASSERT(p.compute_s > 0);
    RC_ASSERT(finite_non_negative(p.comm_s));
    RC_ASSERT(finite_non_negative(p.comm_exposed_s));
    RC_ASSERT(p.comm_exposed_s <= p.comm_s * (1 + 1e-9) + 1e-15);
    RC_ASSERT(p.iteration_low_s <= p.iteration_s * (1 + 1e-9));
    RC_ASSERT(p.iteration_high_s >= p.iteration_s * (1 - 1e-9));
    RC_ASSERT(p.iteration_low_s > 0);
    RC_ASSERT(std::isfinite(p.iteration_high_s));
    RC_ASSERT(std::isfinite(p.memory.total()));
    RC_ASSERT(p.memory.total() > 0);
    for (const LayerTime& l : p.layers) {
      RC_ASSERT(finite_non_negative(l.forward_s));
      RC_ASSERT(finite_non_negative(l.backward_s));
      RC_ASSERT(finite_non_negative(l.update_s));
    }
  });
}

// Node counts grow by doubling, as scale's ranges do ("1..4096"): a fitted all-reduce model is
// made monotone along doublings of its ranks (models/comm/fitted_comm_model.h).
/// A shipped profile, on a fabric of a generated shape half the time: a fat tree or rail groups of
/// 4-64 ports up to 8:1 oversubscribed, or a dragonfly, with or without GPUDirect RDMA.
HardwareProfile profile_on_generated_fabric() {
  HardwareProfile hw = profile(*rc::gen::elementOf(profile_names()));
  if (*rc::gen::arbitrary<bool>()) {
    hw.cluster.topology = *rc::gen::element<std::string>("fat-tree", "rail-optimized", "dragonfly");
    if (hw.cluster.topology == "dragonfly") {
      hw.cluster.switch_ports = 0;
      hw.cluster.oversubscription = 1;
      hw.cluster.group_nodes = *rc::gen::element(4, 16, 64);
      hw.cluster.global_links = *rc::gen::element(2, 8, 32);
    } else {
      hw.cluster.switch_ports = std::max(hw.cluster.nics_per_node, *rc::gen::element(4, 8, 20, 32, 64));
      hw.cluster.oversubscription = *rc::gen::element(1.0, 1.5, 2.0, 4.0, 8.0);
    }
    if (*rc::gen::arbitrary<bool>()) {
      hw.cluster.gpudirect_rdma = false;
      hw.node.host = {"pcie", *rc::gen::element(8e9, 16e9, 32e9), 2e-6};
    }
  }
  return hw;
}

TEST_CASE("Under weak scaling an iteration never gets faster as nodes double") {
  rc::prop("weak scaling is monotone", [] {
    const NetworkCase net = network_case();
    const HardwareProfile hw = profile_on_generated_fabric();
    RunConfig fewer = run_config(hw);
    RunConfig more = fewer;
    more.plan.nodes = fewer.plan.nodes * *rc::gen::element(2, 4, 16);
    const Prediction a = predict_or_discard(net, hw, fewer);
    const Prediction b = predict_or_discard(net, hw, more);
    RC_ASSERT(b.iteration_s >= a.iteration_s * (1 - 1e-12));
  });
}

TEST_CASE("Overlapping gradient all-reduces with backward never costs more than running them after it, but for the kernels' slowdown") {
  rc::prop("overlap <= no overlap", [] {
    const NetworkCase net = network_case();
    const HardwareProfile hw = profile_on_generated_fabric();
    RunConfig run = run_config(hw);
    run.plan.sync = GradientSync::bucketed;
    Graph graph;
    PricedStep step;
    try {
      graph = load_network(net.spec, net.options);
      run.plan.validate(hw);
      step = price_step(graph, hw, run);
    } catch (const InputError& e) {
      RC_DISCARD(std::string("refused: ") + e.what());
    }
    ParallelPlan overlapped = run.plan, serial = run.plan;
    overlapped.communication_on_compute_cores = false;
    serial.communication_on_compute_cores = true;  // every bucket waits for the end of backward
    // Overlap as the profile prices it: the kernels beside a collective slow (overlap_slowdown).
    const double slowdown = *rc::gen::element(overlap_slowdown(hw), 0.0, 0.5);
    const auto simulate = [&](const ParallelPlan& plan) {
      return simulate_data_parallel(graph, step.kernels, step.seconds, plan, allreduce_pricer(hw, plan), step.gradient_bytes_per_element,
                                    step.copy_seconds_per_byte, 0, slowdown);
    };
    // Overlap hides communication and slows the kernels beside it: it never costs more than
    // running the all-reduces after backward, but for that slowdown.
    const DataParallelIteration with = simulate(overlapped), without = simulate(serial);
    RC_ASSERT(without.overlap_cost_s == 0);
    RC_ASSERT(with.iteration_s <= (without.iteration_s + with.overlap_cost_s) * (1 + 1e-12));
  });
}

TEST_CASE("Memory per device never falls as the batch grows") {
  rc::prop("memory is monotone in batch", [] {
    NetworkCase small = network_case();
    NetworkCase large = small;
    large.options.batch = *small.options.batch + *rc::gen::inRange<std::int64_t>(1, 33);
    const HardwareProfile& hw = profile(*rc::gen::elementOf(profile_names()));
    RunConfig run = run_config(hw);
    run.inference = *rc::gen::arbitrary<bool>();
    const Prediction a = predict_or_discard(small, hw, run);
    const Prediction b = predict_or_discard(large, hw, run);
    RC_ASSERT(b.memory.total() >= a.memory.total());
    RC_ASSERT(b.memory.activations >= a.memory.activations);
  });
}

TEST_CASE("A profile written as fit writes it and read back prices every network identically") {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("dnnperf-property-" + std::to_string(getpid()) + ".json");
  rc::prop("write, read, same prediction", [&] {
    HardwareProfile hw = profile(*rc::gen::elementOf(profile_names()));
    // Fitted figures are any positive doubles, not the datasheet's round ones.
    hw.device.memory_bandwidth *= *rc::gen::inRange(1, 4000) / 1000.0;
    hw.device.launch_overhead_s *= *rc::gen::inRange(1, 4000) / 1000.0;
    write_hardware_profile(hw, file.string());
    const HardwareProfile back = load_hardware_profile(file.string());
    const NetworkCase net = network_case();
    const RunConfig run = run_config(hw);
    const Prediction a = predict_or_discard(net, hw, run);
    const Prediction b = predict_or_discard(net, back, run);
    RC_ASSERT(a.iteration_s == b.iteration_s);
    RC_ASSERT(a.iteration_low_s == b.iteration_low_s);
    RC_ASSERT(a.iteration_high_s == b.iteration_high_s);
    RC_ASSERT(a.memory.total() == b.memory.total());
  });
  std::filesystem::remove(file);
}
