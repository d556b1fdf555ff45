#include "scheduler/symmetric_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>

#include "core/common/error.h"
#include "scheduler/milp_solver.h"
#include "scheduler/split_schedule.h"

namespace dnnperf {
namespace {

/// What makes two segments interchangeable: their tasks' costs, parameters and tensors, and their
/// internal wiring (inputs from outside the segment are marked as such).
std::string segment_key(const TaskGraph& g, const std::vector<int>& seg) {
  std::ostringstream key;
  key << std::hexfloat;
  const int first = seg.front();
  for (int t : seg) {
    const TaskNode& task = g.task(t);
    key << '[';
    for (double s : task.seconds) key << s << ',';
    key << task.weight_bytes << ',' << task.output_bytes;
    for (int e : g.in_edges(t)) {
      const TaskEdge& edge = g.edges[static_cast<std::size_t>(e)];
      key << ';' << (edge.from >= first ? edge.from - first : -1) << ':' << edge.bytes;
    }
    key << ']';
  }
  return key.str();
}

/// Ring all-reduce of `bytes` over `devices` on one link: reduce-scatter then all-gather, 2 (G - 1)
/// steps of bytes / G each (Patarasuk & Yuan 2009).
double ring_allreduce(const TransferCost& link, double bytes, int devices) {
  if (devices < 2) return 0;
  return 2.0 * (devices - 1) * link.seconds(bytes / devices);
}

}  // namespace

LayerStructure find_repeated_layers(const TaskGraph& g) {
  const std::vector<std::vector<int>> segments = cut_segments(g);
  const auto S = segments.size();
  std::vector<std::string> keys;
  for (const auto& seg : segments) keys.push_back(segment_key(g, seg));
  // The periodic run covering most segments: start a, period P, R >= 2 repetitions.
  std::size_t best_a = 0, best_p = 0, best_r = 0;
  for (std::size_t p = 1; p <= S / 2; ++p)
    for (std::size_t i = 0; i + p < S;) {
      std::size_t run = 0;
      while (i + run + p < S && keys[i + run] == keys[i + run + p]) ++run;
      if (run == 0) {
        ++i;
        continue;
      }
      const std::size_t r = (run + p) / p;
      if (r >= 2 && r * p > best_r * best_p) best_a = i, best_p = p, best_r = r;
      i += run;
    }
  LayerStructure out;
  if (best_r < 2) return out;
  // A stack of layers is most of the network's work; two repeated flattens are not.
  double total = 0, repeated = 0;
  for (int t = 0; t < g.size(); ++t) total += g.task(t).fastest();
  for (std::size_t s = best_a; s < best_a + best_r * best_p; ++s)
    for (int t : segments[s]) repeated += g.task(t).fastest();
  if (repeated < 0.5 * total) return out;
  const auto flatten = [&](std::size_t from, std::size_t to, std::vector<int>& into) {
    for (std::size_t s = from; s < to; ++s) into.insert(into.end(), segments[s].begin(), segments[s].end());
  };
  flatten(0, best_a, out.prefix);
  for (std::size_t r = 0; r < best_r; ++r) flatten(best_a + r * best_p, best_a + (r + 1) * best_p, out.layers.emplace_back());
  flatten(best_a + best_r * best_p, S, out.suffix);
  return out;
}

ServerLevelProblem server_level_problem(const TaskGraph& g, const Platform& platform, const LayerStructure& ls) {
  if (ls.layers.empty()) throw InputError("network '" + g.network + "' has no repeated layers for the symmetric multi-server schedule");
  ServerLevelProblem out;
  // A representative device and the device count of every server.
  std::vector<int> first(static_cast<std::size_t>(platform.servers), -1), count(static_cast<std::size_t>(platform.servers), 0);
  for (int d = 0; d < platform.size(); ++d) {
    const PlatformDevice& dev = platform.devices[static_cast<std::size_t>(d)];
    const auto s = static_cast<std::size_t>(dev.server_index);
    if (first[s] < 0) first[s] = d;
    else if (dev.hardware.name != platform.devices[static_cast<std::size_t>(first[s])].hardware.name)
      throw InputError("server '" + dev.server + "' mixes device types: tensor parallelism inside a server needs identical devices");
    ++count[s];
  }
  out.platform.name = platform.name + " (servers)";
  out.servers_per_class.assign(static_cast<std::size_t>(platform.server_classes), 0);
  for (int s = 0; s < platform.servers; ++s) {
    const PlatformDevice& rep = platform.devices[static_cast<std::size_t>(first[static_cast<std::size_t>(s)])];
    PlatformDevice server = rep;
    server.name = rep.server;
    server.memory_bytes = rep.memory_bytes * count[static_cast<std::size_t>(s)];
    out.platform.devices.push_back(server);
    out.class_of_server.push_back(rep.server_class);
    ++out.servers_per_class[static_cast<std::size_t>(rep.server_class)];
  }
  out.platform.servers = platform.servers;
  out.platform.server_classes = platform.server_classes;
  // Activations cross between servers in one shard per device, each over its own NIC.
  std::vector<std::tuple<int, int, TransferCost>> links;
  for (int a = 0; a < platform.servers; ++a)
    for (int b = a + 1; b < platform.servers; ++b) {
      TransferCost c = platform.transfer(first[static_cast<std::size_t>(a)], first[static_cast<std::size_t>(b)]);
      c.seconds_per_byte /= std::min(count[static_cast<std::size_t>(a)], count[static_cast<std::size_t>(b)]);
      links.emplace_back(a, b, c);
    }
  out.platform.connect(links);

  // Units of the chain: prefix, layers, suffix; each split over a server's devices with two
  // all-reduces of its output on the server's links.
  std::vector<std::vector<int>> units;
  if (!ls.prefix.empty()) units.push_back(ls.prefix);
  units.insert(units.end(), ls.layers.begin(), ls.layers.end());
  if (!ls.suffix.empty()) units.push_back(ls.suffix);
  out.graph.network = g.network;
  out.graph.devices = platform.servers;
  for (std::size_t u = 0; u < units.size(); ++u) {
    TaskNode t;
    t.name = u == 0 && !ls.prefix.empty() ? "prefix" : (u + 1 == units.size() && !ls.suffix.empty() ? "suffix" : "layer " + std::to_string(u + (ls.prefix.empty() ? 1 : 0)));
    for (int task : units[u]) {
      t.ops.insert(t.ops.end(), g.task(task).ops.begin(), g.task(task).ops.end());
      t.weight_bytes += g.task(task).weight_bytes;
    }
    t.output_bytes = g.task(units[u].back()).output_bytes;
    for (int s = 0; s < platform.servers; ++s) {
      const int d = first[static_cast<std::size_t>(s)];
      const int G = count[static_cast<std::size_t>(s)];
      double seconds = 0;
      bool runs = true;
      for (int task : units[u]) {
        runs = runs && g.task(task).runs_on(d);
        seconds += g.seconds(task, d);
      }
      const TransferCost intra = G > 1 ? platform.transfer(d, d + 1) : TransferCost{};
      seconds = runs ? seconds / G + 2 * ring_allreduce(intra, t.output_bytes, G) : kCannotRun;
      t.seconds.push_back(seconds);
      t.busy.push_back(runs ? seconds : 0);
      t.launch.push_back(0);
    }
    out.graph.tasks.push_back(std::move(t));
    if (u > 0) out.graph.edges.push_back({static_cast<int>(u) - 1, static_cast<int>(u), g.task(units[u - 1].back()).output_bytes});
  }
  out.graph.index();
  return out;
}

SymmetricResult schedule_symmetric(const ServerLevelProblem& pr, Objective objective, double time_limit_s) {
  const auto t0 = std::chrono::steady_clock::now();
  const TaskGraph& g = pr.graph;
  const Platform& p = pr.platform;
  const int K = static_cast<int>(pr.servers_per_class.size());
  const bool has_prefix = g.task(0).name == "prefix", has_suffix = g.task(g.size() - 1).name == "suffix";
  const int L = g.size() - has_prefix - has_suffix;
  const int layer0 = has_prefix ? 1 : 0;
  // Per class: a server of it, and the times and capacities the program needs.
  std::vector<int> rep(static_cast<std::size_t>(K), -1);
  for (int s = 0; s < p.size(); ++s)
    if (rep[static_cast<std::size_t>(pr.class_of_server[static_cast<std::size_t>(s)])] < 0) rep[static_cast<std::size_t>(pr.class_of_server[static_cast<std::size_t>(s)])] = s;
  const auto layer_time = [&](int c) { return g.seconds(layer0, rep[static_cast<std::size_t>(c)]); };
  const auto pre_time = [&](int c) { return has_prefix ? g.seconds(0, rep[static_cast<std::size_t>(c)]) : 0.0; };
  const auto suf_time = [&](int c) { return has_suffix ? g.seconds(g.size() - 1, rep[static_cast<std::size_t>(c)]) : 0.0; };
  const auto cap = [&](int c) { return weight_capacity(g, p, rep[static_cast<std::size_t>(c)]); };
  const double w = g.task(layer0).weight_bytes;
  const double w_pre = has_prefix ? g.task(0).weight_bytes : 0, w_suf = has_suffix ? g.task(g.size() - 1).weight_bytes : 0;
  const double hop = p.size() > 1 ? p.transfer_seconds(0, 1, g.task(layer0).output_bytes) : 0.0;
  constexpr double unit = 1e3;  // milliseconds: layer times of large models are far above CBC's tolerances

  SymmetricResult best;
  best.full_program_binaries = L * p.size();
  double best_value = kCannotRun;
  // A server of class c not yet in the chain.
  const auto take = [&](const std::vector<int>& chain, int c) {
    for (int s = 0; s < p.size(); ++s)
      if (pr.class_of_server[static_cast<std::size_t>(s)] == c && std::find(chain.begin(), chain.end(), s) == chain.end()) return s;
    return -1;
  };
  // The server-level schedule of layers[k] consecutive layers on chain[k], the prefix on the first
  // server and the suffix on the last; `per_server` receives the layer counts.
  const auto expand = [&](const std::vector<int>& chain, const std::vector<int>& layers, std::vector<int>& per_server) {
    per_server.assign(static_cast<std::size_t>(p.size()), 0);
    std::vector<int> device_of;
    if (has_prefix) device_of.push_back(chain.front());
    for (std::size_t k = 0; k < chain.size(); ++k) {
      per_server[static_cast<std::size_t>(chain[k])] = layers[k];
      for (int i = 0; i < layers[k]; ++i) device_of.push_back(chain[k]);
    }
    if (has_suffix) device_of.push_back(chain.back());
    std::vector<int> order(static_cast<std::size_t>(g.size()));
    std::iota(order.begin(), order.end(), 0);
    Schedule schedule = simulate_assignment(g, p, device_of, order);
    schedule.objective = objective;
    return schedule;
  };
  // The servers holding prefix (first) and suffix (last) are chosen by class: each pair of
  // classes is one small program.
  // For throughput, servers left out of the pipeline can replicate its slowest stage (a head too
  // slow to split): each choice of how many servers per class to leave out is one more round.
  std::vector<std::vector<int>> reservations{std::vector<int>(static_cast<std::size_t>(K), 0)};
  if (objective == Objective::throughput)
    for (;;) {
      std::vector<int> next = reservations.back();
      int c = 0;
      while (c < K && ++next[static_cast<std::size_t>(c)] > pr.servers_per_class[static_cast<std::size_t>(c)]) next[static_cast<std::size_t>(c++)] = 0;
      if (c == K) break;
      reservations.push_back(next);
    }
  for (const std::vector<int>& reserved : reservations)
  for (int a = 0; a < K; ++a)
    for (int b = 0; b < K; ++b) {
      std::vector<int> avail(static_cast<std::size_t>(K));
      int servers = 0;
      for (int c = 0; c < K; ++c)
        servers += avail[static_cast<std::size_t>(c)] = pr.servers_per_class[static_cast<std::size_t>(c)] - reserved[static_cast<std::size_t>(c)];
      const int ka = avail[static_cast<std::size_t>(a)];
      const int kb = avail[static_cast<std::size_t>(b)];
      const bool one_server = servers == 1;
      if (ka < 1 || kb < 1 || (a == b && ka < 2 && !one_server)) continue;
      MilpProblem mp;
      const double tiny = 1e-6;
      std::vector<int> ordinary(static_cast<std::size_t>(K));
      for (int c = 0; c < K; ++c)
        ordinary[static_cast<std::size_t>(c)] = one_server ? 0 : avail[static_cast<std::size_t>(c)] - (c == a) - (c == b);
      if (objective == Objective::throughput) {
        std::vector<int> n(static_cast<std::size_t>(K));
        const int f = mp.add_variable(0, L, 0, true);  // layers on the first server
        const int l = mp.add_variable(0, L, 0, true);  // layers on the last server
        const int T = mp.add_variable(0, 1e30, 1, false);
        std::vector<std::pair<int, double>> total{{f, 1}, {l, 1}};
        for (int c = 0; c < K; ++c) {
          n[static_cast<std::size_t>(c)] = mp.add_variable(0, ordinary[static_cast<std::size_t>(c)] > 0 ? L : 0, tiny, true);
          total.push_back({n[static_cast<std::size_t>(c)], static_cast<double>(ordinary[static_cast<std::size_t>(c)])});
          mp.add_row({{T, 1}, {n[static_cast<std::size_t>(c)], -layer_time(c) * unit}}, 'G', 0);
          mp.add_row({{n[static_cast<std::size_t>(c)], w}}, 'L', cap(c));
        }
        mp.add_row(total, 'G', L);
        if (one_server) {
          mp.add_row({{T, 1}, {f, -layer_time(a) * unit}, {l, -layer_time(a) * unit}}, 'G', (pre_time(a) + suf_time(a)) * unit);
          mp.add_row({{f, w}, {l, w}}, 'L', cap(a) - w_pre - w_suf);
        } else {
          mp.add_row({{T, 1}, {f, -layer_time(a) * unit}}, 'G', pre_time(a) * unit);
          mp.add_row({{T, 1}, {l, -layer_time(b) * unit}}, 'G', suf_time(b) * unit);
          mp.add_row({{f, w}}, 'L', cap(a) - w_pre);
          mp.add_row({{l, w}}, 'L', cap(b) - w_suf);
          mp.add_row({{T, 1}}, 'G', hop * unit);
        }
        best.program_variables = std::max(best.program_variables, mp.variables());
        ++best.programs;
        const MilpResult r = mp.solve(time_limit_s);
        if (!r.has_solution()) continue;
        // Expand: first server, ordinary servers (faster classes first), last server; trim
        // surplus layers from the most loaded ordinary servers.
        std::vector<int> chain, layers;
        chain.push_back(take(chain, a));
        layers.push_back(static_cast<int>(std::lround(r.values[static_cast<std::size_t>(f)])));
        std::vector<int> classes(static_cast<std::size_t>(K));
        std::iota(classes.begin(), classes.end(), 0);
        std::stable_sort(classes.begin(), classes.end(), [&](int x, int y) { return layer_time(x) < layer_time(y); });
        for (int c : classes)
          for (int k = 0; k < ordinary[static_cast<std::size_t>(c)]; ++k) {
            chain.push_back(take(chain, c));
            layers.push_back(static_cast<int>(std::lround(r.values[static_cast<std::size_t>(n[static_cast<std::size_t>(c)])])));
          }
        if (!one_server) chain.push_back(take(chain, b));
        if (!one_server) layers.push_back(static_cast<int>(std::lround(r.values[static_cast<std::size_t>(l)])));
        else layers[0] += static_cast<int>(std::lround(r.values[static_cast<std::size_t>(l)]));
        int surplus = std::accumulate(layers.begin(), layers.end(), 0) - L;
        while (surplus > 0) {
          std::size_t most = 0;
          for (std::size_t k = 0; k < layers.size(); ++k)
            if (layers[k] > 0 && (layers[most] == 0 || layers[k] * layer_time(pr.class_of_server[static_cast<std::size_t>(chain[k])]) >
                                                           layers[most] * layer_time(pr.class_of_server[static_cast<std::size_t>(chain[most])])))
              most = k;
          --layers[most], --surplus;
        }
        std::vector<int> per_server;
        Schedule candidate = expand(chain, layers, per_server);
        replicate_stages(g, p, candidate);
        if (candidate.period_s * unit >= best_value) continue;
        best_value = candidate.period_s * unit;
        best.schedule = std::move(candidate);
        best.layers_per_server = per_server;
        continue;
      }
      // Latency: l_c layers on class c over u_c servers used; every hop between servers costs a
      // transfer. Memory is checked per class with one layer of slack for uneven shares.
      std::vector<int> lc(static_cast<std::size_t>(K)), uc(static_cast<std::size_t>(K));
      std::vector<std::pair<int, double>> all_layers;
      for (int c = 0; c < K; ++c) {
        const int kc = pr.servers_per_class[static_cast<std::size_t>(c)];
        lc[static_cast<std::size_t>(c)] = mp.add_variable(0, L, layer_time(c) * unit, true);
        uc[static_cast<std::size_t>(c)] = mp.add_variable((c == a) + (c == b && b != a ? 1 : 0), kc, hop * unit, true);
        all_layers.push_back({lc[static_cast<std::size_t>(c)], 1});
        const double special = (c == a ? w_pre : 0) + (c == b ? w_suf : 0);
        mp.add_row({{lc[static_cast<std::size_t>(c)], w}, {uc[static_cast<std::size_t>(c)], -(cap(c) - w)}}, 'L', -special);
      }
      mp.add_row(all_layers, 'E', L);
      best.program_variables = std::max(best.program_variables, mp.variables());
        ++best.programs;
      const MilpResult r = mp.solve(time_limit_s);
      if (!r.has_solution()) continue;
      const double value = r.objective + (pre_time(a) + suf_time(b) - hop) * unit;
      if (value >= best_value) continue;
      best_value = value;
      std::vector<int> chain, layers;
      // Class a first, class b last, the rest between.
      std::vector<int> classes{a};
      for (int c = 0; c < K; ++c)
        if (c != a && c != b) classes.push_back(c);
      if (b != a) classes.push_back(b);
      for (int c : classes) {
        const int u = static_cast<int>(std::lround(r.values[static_cast<std::size_t>(uc[static_cast<std::size_t>(c)])]));
        const int total = static_cast<int>(std::lround(r.values[static_cast<std::size_t>(lc[static_cast<std::size_t>(c)])]));
        for (int k = 0; k < u; ++k) {
          chain.push_back(take(chain, c));
          layers.push_back(total / u + (k < total % u ? 1 : 0));
        }
      }
      best.schedule = expand(chain, layers, best.layers_per_server);
    }
  best.schedule.method = "symmetric";
  best.schedule.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  best.schedule.status = best.schedule.found() ? "optimal among symmetric splits" : "no feasible split of the layers over the servers";
  return best;
}

}  // namespace dnnperf
