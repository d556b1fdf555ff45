// Randomly wired networks (Xie, Kirillov, Girshick & He 2019, "Exploring Randomly Wired Neural
// Networks for Image Recognition"), small regime: two plain 3x3 convolutions, then random stages
// of `nodes` nodes with C, 2C, 4C channels, then a 1x1 convolution to 1280, pooling and a classifier.
//
// A random graph (WS, ER or BA) becomes a DAG by orienting every edge from the lower to the higher
// node index. Each node sums its inputs with learned sigmoid weights, then applies ReLU, a 3x3
// depthwise-separable convolution and BatchNorm. Nodes without predecessors read the stage input
// (stride 2); the stage output sums the nodes without successors. (The paper averages them with
// fixed weights; the learned weights here cost one parameter per output node and the same time.)
//
// The generators draw from std::mt19937_64, whose sequence the C++ standard fixes, and turn draws
// into numbers by hand, so one seed gives one graph on every platform.
#include <algorithm>
#include <random>
#include <set>

#include "networks/zoo/zoo_builders.h"

namespace dnnperf::zoo {
namespace {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(engine_() % static_cast<std::uint64_t>(n)); }

 private:
  std::mt19937_64 engine_;
};

using EdgeSet = std::set<std::pair<std::int64_t, std::int64_t>>;  // (low, high) node pairs

void connect(EdgeSet& edges, std::int64_t a, std::int64_t b) { edges.insert({std::min(a, b), std::max(a, b)}); }
bool connected(const EdgeSet& edges, std::int64_t a, std::int64_t b) { return edges.count({std::min(a, b), std::max(a, b)}) > 0; }

// Watts & Strogatz 1998: a ring where each node links to its k/2 nearest neighbours on each side;
// every clockwise edge is rewired with probability p to a random node it is not yet linked to.
EdgeSet watts_strogatz(std::int64_t n, std::int64_t k, double p, Random& rng) {
  EdgeSet edges;
  std::vector<std::int64_t> degree(static_cast<std::size_t>(n), k);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 1; j <= k / 2; ++j) connect(edges, i, (i + j) % n);
  for (std::int64_t j = 1; j <= k / 2; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      if (rng.uniform() >= p) continue;
      const std::int64_t old = (i + j) % n;
      if (!connected(edges, i, old) || degree[static_cast<std::size_t>(i)] >= n - 1) continue;
      std::int64_t target = rng.below(n);
      while (target == i || connected(edges, i, target)) target = rng.below(n);
      edges.erase({std::min(i, old), std::max(i, old)});
      connect(edges, i, target);
      --degree[static_cast<std::size_t>(old)];
      ++degree[static_cast<std::size_t>(target)];
    }
  return edges;
}

// Erdős & Rényi 1959: every pair of nodes is linked with probability p.
EdgeSet erdos_renyi(std::int64_t n, double p, Random& rng) {
  EdgeSet edges;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j)
      if (rng.uniform() < p) connect(edges, i, j);
  return edges;
}

// Barabási & Albert 1999: start from m unlinked nodes; each new node links to m distinct existing
// nodes chosen with probability proportional to their degree (uniformly while all degrees are 0).
EdgeSet barabasi_albert(std::int64_t n, std::int64_t m, Random& rng) {
  EdgeSet edges;
  std::vector<std::int64_t> endpoints;  // each node repeated once per incident edge
  for (std::int64_t v = m; v < n; ++v) {
    std::set<std::int64_t> targets;
    while (static_cast<std::int64_t>(targets.size()) < m) {
      const std::int64_t t = endpoints.empty() ? rng.below(v) : endpoints[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(endpoints.size())))];
      targets.insert(t);
    }
    for (std::int64_t t : targets) {
      connect(edges, v, t);
      endpoints.push_back(v);
      endpoints.push_back(t);
    }
  }
  return edges;
}

int node_transform(NetworkBuilder& b, int x, std::int64_t channels, std::int64_t stride) {
  x = b.relu(x, "relu");
  const std::int64_t in = b.shape(x)[1];
  x = b.conv2d(x, {.out = in, .kernel = {3, 3}, .stride = {stride, stride}, .padding = {1, 1}, .groups = in, .bias = false}, "depthwise");
  x = b.conv2d(x, {.out = channels, .bias = false}, "pointwise");
  return b.batch_norm(x, "bn");
}

int random_stage(NetworkBuilder& b, int x, std::int64_t channels, const RandWireConfig& c, Random& rng) {
  const std::int64_t n = c.nodes;
  EdgeSet edges;
  switch (c.kind) {
    case RandomGraphKind::watts_strogatz: edges = watts_strogatz(n, c.k, c.p, rng); break;
    case RandomGraphKind::erdos_renyi: edges = erdos_renyi(n, c.p, rng); break;
    case RandomGraphKind::barabasi_albert: edges = barabasi_albert(n, c.m, rng); break;
  }
  std::vector<std::vector<std::int64_t>> preds(static_cast<std::size_t>(n));
  std::vector<bool> has_successor(static_cast<std::size_t>(n), false);
  for (const auto& [lo, hi] : edges) {
    preds[static_cast<std::size_t>(hi)].push_back(lo);
    has_successor[static_cast<std::size_t>(lo)] = true;
  }
  std::vector<int> out(static_cast<std::size_t>(n), -1);
  std::vector<int> sinks;
  for (std::int64_t v = 0; v < n; ++v) {
    auto s = b.scope("node" + std::to_string(v));
    const auto& p = preds[static_cast<std::size_t>(v)];
    int y = x;
    std::int64_t stride = 2;
    if (!p.empty()) {
      std::vector<int> inputs;
      for (std::int64_t u : p) inputs.push_back(out[static_cast<std::size_t>(u)]);
      y = inputs.size() == 1 ? inputs[0] : b.weighted_sum(inputs, "aggregate");
      stride = 1;
    }
    out[static_cast<std::size_t>(v)] = node_transform(b, y, channels, stride);
    if (!has_successor[static_cast<std::size_t>(v)]) sinks.push_back(out[static_cast<std::size_t>(v)]);
  }
  return sinks.size() == 1 ? sinks[0] : b.weighted_sum(sinks, "output");
}

}  // namespace

Graph randwire(const std::string& name, const RandWireConfig& c, const NetworkOptions& o) {
  if (c.kind == RandomGraphKind::watts_strogatz && (c.k < 2 || c.k % 2 != 0 || c.k >= c.nodes))
    throw InputError(name + ": k must be even, at least 2 and below nodes (k=" + std::to_string(c.k) + ", nodes=" + std::to_string(c.nodes) + ")");
  if (c.kind == RandomGraphKind::barabasi_albert && (c.m < 1 || c.m >= c.nodes))
    throw InputError(name + ": m must be in [1, nodes) (m=" + std::to_string(c.m) + ", nodes=" + std::to_string(c.nodes) + ")");
  Random rng(c.seed);
  NetworkBuilder b(name);
  b.reserve_hint(static_cast<std::size_t>(c.nodes * c.stages) * 6 + 32);
  const auto [h, w] = image_size(o, 224);
  int x = b.input("image", {o.batch, 3, h, w});
  x = b.batch_norm(b.conv2d(x, {.out = c.channels / 2, .kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}, .bias = false}, "conv1"), "bn1");
  x = b.relu(x, "relu1");
  x = b.batch_norm(b.conv2d(x, {.out = c.channels, .kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}, .bias = false}, "conv2"), "bn2");
  for (std::int64_t stage = 0; stage < c.stages; ++stage) {
    auto s = b.scope("stage" + std::to_string(stage + 3));
    x = random_stage(b, x, c.channels << stage, c, rng);
  }
  x = b.relu(x, "relu");
  x = b.relu(b.batch_norm(b.conv2d(x, {.out = 1280, .bias = false}, "conv_last"), "bn_last"), "relu_last");
  x = b.flatten(b.adaptive_avg_pool(x, 1, 1, "avgpool"), 1, "flatten");
  finish_classifier(b, b.linear(x, c.classes, "fc"), o);
  return std::move(b).finish();
}

}  // namespace dnnperf::zoo
