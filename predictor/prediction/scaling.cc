#include "predictor/prediction/scaling.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/common/error.h"
#include "core/common/text_lists.h"

namespace dnnperf {
namespace {

// A curve of more points than a plot can show is a typo (1..1000000:1), and costs minutes.
constexpr int kMaxSweepPoints = 10000;

int parse_count(std::string_view text, const std::string& whole) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v <= 0)
    throw InputError("node counts '" + whole + "': '" + std::string(text) + "' is not a positive integer");
  if (v > kMaxRanks) throw InputError("node counts '" + whole + "': " + std::string(text) + " is beyond the " + std::to_string(kMaxRanks) + " devices dnnperf prices");
  return v;
}

}  // namespace

std::vector<int> parse_node_counts(const std::string& text) {
  std::vector<int> out;
  const std::size_t dots = text.find("..");
  if (dots != std::string::npos) {
    const std::size_t colon = text.find(':', dots);
    const int first = parse_count(std::string_view(text).substr(0, dots), text);
    const int last = parse_count(std::string_view(text).substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2), text);
    if (last < first) throw InputError("node counts '" + text + "': the range ends before it starts");
    if (colon == std::string::npos) {
      for (long v = first; v <= last; v *= 2) out.push_back(static_cast<int>(v));
    } else {
      const int step = parse_count(std::string_view(text).substr(colon + 1), text);
      if ((last - first) / step >= kMaxSweepPoints)
        throw InputError("node counts '" + text + "': more than " + std::to_string(kMaxSweepPoints) + " points; take a larger step");
      for (long v = first; v <= last; v += step) out.push_back(static_cast<int>(v));
    }
    return out;
  }
  for (const std::string& item : split_list(text, "node counts")) out.push_back(parse_count(item, text));
  if (out.size() > static_cast<std::size_t>(kMaxSweepPoints)) throw InputError("node counts: more than " + std::to_string(kMaxSweepPoints) + " of them");
  return out;
}

std::vector<ScalePoint> scale(const std::function<Graph(std::int64_t)>& build, const HardwareProfile& hw,
                              const RunConfig& base, std::int64_t batch, const std::vector<int>& nodes, Scaling scaling) {
  if (batch <= 0) throw InputError("batch must be positive, is " + std::to_string(batch));
  if (nodes.empty()) throw InputError("no node counts to sweep");
  std::vector<ScalePoint> points;
  std::optional<Graph> graph;
  std::optional<PricedStep> step;
  std::int64_t priced_batch = 0;
  // Strong scaling with gradient accumulation keeps the first point's micro-batch, as runs with a
  // fixed global batch do: more devices take fewer micro-batches each, down to one.
  std::int64_t micro = 0;
  for (int n : nodes) {
    RunConfig config = base;
    config.plan.nodes = n;
    config.plan.validate(hw);
    const std::int64_t devices = config.plan.data_parallel();
    std::int64_t per_device = batch;
    if (scaling == Scaling::strong) {
      const auto refuse = [&](const std::string& why) {
        throw InputError("strong scaling: the global batch " + std::to_string(batch) + " does not divide over " + std::to_string(devices) +
                         " devices (" + std::to_string(n) + " nodes x " + std::to_string(config.plan.devices_per_node) + ")" + why);
      };
      if (batch % devices != 0) refuse("");
      const std::int64_t per_step = batch / devices;
      if (micro == 0) {
        const int k = std::max(1, base.accumulation_steps);
        if (per_step % k != 0) refuse(" x " + std::to_string(k) + " micro-batches");
        micro = per_step / k;
      }
      if (per_step > micro && per_step % micro != 0)
        refuse(" into micro-batches of " + std::to_string(micro) + " (the first point's)");
      per_device = std::min(per_step, micro);
      if (per_step / per_device > std::numeric_limits<int>::max())
        refuse(" into at most " + std::to_string(std::numeric_limits<int>::max()) + " micro-batches of " + std::to_string(micro));
      config.accumulation_steps = static_cast<int>(per_step / per_device);
    }
    if (!graph || per_device != priced_batch) {  // weak scaling prices the step once
      graph = build(per_device);
      step = price_step(*graph, hw, config);
      priced_batch = per_device;
    }
    ScalePoint point;
    point.nodes = n;
    point.prediction = simulate_step(*graph, *step, hw, config);
    point.limit = step_limit(point.prediction, hw);
    points.push_back(std::move(point));
  }
  const Prediction& first = points.front().prediction;
  for (ScalePoint& p : points) {
    p.speedup = p.prediction.samples_per_s / first.samples_per_s;
    p.efficiency = p.speedup / (static_cast<double>(p.prediction.devices) / first.devices);
  }
  return points;
}

}  // namespace dnnperf
