#pragma once
// Small scheduling instances built by hand, for tests that need known answers.
#include <random>

#include "scheduler/task_graph.h"

namespace dnnperf::testing {

/// `devices` devices of unlimited memory, every pair linked with `latency` and `bandwidth`.
inline Platform uniform_platform(int devices, double latency_s, double bandwidth) {
  Platform p;
  p.name = "test";
  p.servers = 1;
  p.server_classes = 1;
  std::vector<std::tuple<int, int, TransferCost>> links;
  for (int d = 0; d < devices; ++d) {
    PlatformDevice dev;
    dev.name = "d" + std::to_string(d);
    dev.server = "s";
    dev.memory_bytes = 1e15;
    p.devices.push_back(dev);
    for (int e = 0; e < d; ++e) links.emplace_back(e, d, TransferCost{latency_s, 1.0 / bandwidth});
  }
  p.connect(links);
  return p;
}

/// A random DAG of `n` tasks (edges only forward), each device 1x-4x slower than the fastest.
inline TaskGraph random_task_graph(int n, int devices, unsigned seed, double edge_probability = 0.3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  TaskGraph g;
  g.network = "random" + std::to_string(seed);
  g.devices = devices;
  for (int i = 0; i < n; ++i) {
    TaskNode t;
    t.name = "t" + std::to_string(i);
    t.ops = {i};
    const double base = 1e-4 * (0.5 + u(rng));
    for (int d = 0; d < devices; ++d) {
      const double s = base * (1 + 3 * u(rng));
      t.seconds.push_back(s);
      t.busy.push_back(s * (0.3 + 0.7 * u(rng)));
      t.launch.push_back(std::min(5e-6, s / 2));
    }
    t.weight_bytes = 1e6 * u(rng);
    t.output_bytes = 1e5 * (1 + u(rng));
    g.tasks.push_back(t);
    for (int j = 0; j < i; ++j)
      if (u(rng) < edge_probability) g.edges.push_back({j, i, g.tasks[static_cast<std::size_t>(j)].output_bytes});
  }
  g.index();
  return g;
}

}  // namespace dnnperf::testing
