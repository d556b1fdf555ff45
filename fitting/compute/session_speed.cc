#include "fitting/compute/session_speed.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "records/measurement.h"

namespace dnnperf::fitting {

bool SessionFactor::within_noise() const { return std::abs(std::log(measured)) <= 2 * standard_error; }

double SessionSpeed::factor(const std::string& kernel_class) const {
  const auto it = per_class.find(kernel_class);
  return it != per_class.end() ? it->second.applied : overall.applied;
}

namespace {

struct Timed {
  std::string kernel_class;
  double seconds;
};
using Session = std::map<std::string, Timed>;  // per kernel

/// Per class and over all: the log ratios of `b`'s times to `a`'s on the kernels both timed.
std::map<std::string, std::vector<double>> log_ratios(const Session& a, const Session& b, std::vector<double>& all) {
  std::map<std::string, std::vector<double>> per_class;
  for (const auto& [kernel, t] : b)
    if (const auto it = a.find(kernel); it != a.end()) {
      const double r = std::log(t.seconds / it->second.seconds);
      per_class[t.kernel_class].push_back(r);
      all.push_back(r);
    }
  return per_class;
}

int shared_kernels(const Session& a, const Session& b) {
  int n = 0;
  for (const auto& [kernel, t] : b) n += a.count(kernel) > 0;
  return n;
}

/// The factor the kernels' log time ratios `r` give, on top of `base` (the compared session's
/// factor for the class). Fewer than two ratios have no spread to judge them by: never applied.
SessionFactor ratio_of(const std::vector<double>& r, double base) {
  SessionFactor f;
  f.kernels = static_cast<int>(r.size());
  const double median = bench::summarize(r).median;
  f.measured = std::exp(median);
  f.standard_error = std::numeric_limits<double>::infinity();
  if (r.size() > 1) {
    double mean = 0, var = 0;
    for (const double x : r) mean += x / static_cast<double>(r.size());
    for (const double x : r) var += (x - mean) * (x - mean) / static_cast<double>(r.size() - 1);
    f.standard_error = 1.2533 * std::sqrt(var / static_cast<double>(r.size()));  // the median's, for normal scatter
  }
  f.applied = base * (f.within_noise() ? 1.0 : f.measured);
  return f;
}

}  // namespace

std::vector<SessionSpeed> session_speeds(const std::vector<SessionTime>& times) {
  std::vector<std::string> order;
  std::map<std::string, Session> sessions;
  for (const SessionTime& t : times) {
    if (!(t.seconds > 0) || !std::isfinite(t.seconds)) continue;
    auto [it, fresh] = sessions.try_emplace(t.session);
    if (fresh) order.push_back(t.session);
    it->second.try_emplace(t.kernel, Timed{t.kernel_class, t.seconds});  // a kernel's first time in the session
  }
  std::map<std::string, SessionSpeed> speed;
  // References: the largest sessions first, so that each group is scaled to its largest.
  std::vector<std::string> by_size = order;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](const std::string& a, const std::string& b) { return sessions.at(a).size() > sessions.at(b).size(); });
  for (const std::string& reference : by_size) {
    if (speed.count(reference)) continue;
    speed[reference] = SessionSpeed{reference, reference, "", {}, {}};
    std::vector<std::string> group{reference};
    // Grow the group one session at a time, always by the best-connected pair: each factor rests
    // on as many shared kernels as the data allows.
    for (;;) {
      int best = 0;
      std::string from, to;
      for (const std::string& u : group)
        for (const std::string& v : order) {
          if (speed.count(v)) continue;
          const int n = shared_kernels(sessions.at(u), sessions.at(v));
          if (n > best) best = n, from = u, to = v;
        }
      if (best < kMinSharedKernels) break;
      const SessionSpeed& base = speed.at(from);
      std::vector<double> all;
      const auto per_class = log_ratios(sessions.at(from), sessions.at(to), all);
      SessionSpeed s{to, reference, from, ratio_of(all, base.overall.applied), {}};
      for (const auto& [cls, r] : per_class)
        if (static_cast<int>(r.size()) >= kMinSharedKernels) s.per_class[cls] = ratio_of(r, base.factor(cls));
      // A class `from` has its own factor for and this link too few kernels of: `from`'s factor,
      // moved by this link's overall ratio.
      for (const auto& [cls, f] : base.per_class)
        if (!s.per_class.count(cls)) {
          SessionFactor inherited = s.overall;
          inherited.kernels = 0;
          inherited.applied = f.applied * (s.overall.applied / base.overall.applied);
          s.per_class[cls] = inherited;
        }
      speed[to] = std::move(s);
      group.push_back(to);
    }
  }
  std::vector<SessionSpeed> out;
  for (const std::string& s : order) out.push_back(speed.at(s));
  return out;
}

}  // namespace dnnperf::fitting
