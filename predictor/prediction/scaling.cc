#include "predictor/prediction/scaling.h"

#include <charconv>

#include "core/common/error.h"

namespace dnnperf {
namespace {

int parse_count(std::string_view text, const std::string& whole) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v <= 0)
    throw InputError("node counts '" + whole + "': '" + std::string(text) + "' is not a positive integer");
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
      for (long v = first; v <= last; v += step) out.push_back(static_cast<int>(v));
    }
    return out;
  }
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    out.push_back(parse_count(rest.substr(0, comma), text));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  if (out.empty()) throw InputError("node counts are empty");
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
  for (int n : nodes) {
    RunConfig config = base;
    config.plan.nodes = n;
    config.plan.validate(hw);
    const std::int64_t devices = config.plan.data_parallel();
    std::int64_t per_device = batch;
    if (scaling == Scaling::strong) {
      if (batch % devices != 0)
        throw InputError("strong scaling: the global batch " + std::to_string(batch) + " does not divide over " +
                         std::to_string(devices) + " devices (" + std::to_string(n) + " nodes x " +
                         std::to_string(config.plan.devices_per_node) + ")");
      per_device = batch / devices;
    }
    if (!graph || per_device != priced_batch) {  // weak scaling prices the step once
      graph = build(per_device);
      step = price_step(*graph, hw, config);
      priced_batch = per_device;
    }
    ScalePoint point;
    point.nodes = n;
    point.prediction = simulate_step(*graph, *step, hw, config);
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
