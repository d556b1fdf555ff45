#include "fitting/compute/compute_score.h"

#include <cmath>
#include <map>

#include "models/compute/profile_model.h"

namespace dnnperf::fitting {
namespace {

struct Tally {
  std::vector<std::pair<double, double>> pairs;  // measured, predicted
  int inside = 0;
  double measured = 0, predicted = 0;
  std::map<std::string, int> priced_by;

  void add(double measured_s, double predicted_s, std::pair<double, double> interval, const std::string& by) {
    pairs.emplace_back(measured_s, predicted_s);
    inside += measured_s >= interval.first && measured_s <= interval.second;
    measured += measured_s;
    predicted += predicted_s;
    ++priced_by[by];
  }

  ClassScore score(const std::string& cls) const {
    ClassScore s;
    s.kernel_class = cls;
    s.errors = error_stats(pairs, inside);
    s.measured_seconds = measured;
    s.predicted_seconds = predicted;
    int most = 0;
    for (const auto& [by, n] : priced_by)
      if (n > most) most = n, s.priced_by = by;
    return s;
  }
};

}  // namespace

std::vector<ClassScore> score_compute(const HardwareProfile& profile, const ComputeData& data, std::vector<ScoredKernel>* kernels) {
  const ProfileComputeModel model(profile);
  std::vector<std::string> order;
  std::map<std::string, Tally> tallies;
  Tally all;
  for (const ComputeSample& s : data.samples) {
    const double predicted = model.seconds(s.kernel, {});
    const std::pair<double, double> interval = model.interval(s.kernel, {});
    const std::string by(model.priced_by(s.kernel));
    // Convolutions priced as per-image GEMMs are a population of their own: scored apart.
    const std::string cls = s.kernel_class + (by.rfind("GEMMs", 0) == 0 ? " as GEMMs" : "");
    if (!tallies.count(cls)) order.push_back(cls);
    tallies[cls].add(s.seconds, predicted, interval, by);
    all.add(s.seconds, predicted, interval, by);
    if (kernels) kernels->push_back({&s, by, predicted, interval.first, interval.second});
  }
  std::vector<ClassScore> out;
  for (const std::string& cls : order) out.push_back(tallies.at(cls).score(cls));
  if (!data.samples.empty()) out.push_back(all.score("all"));
  return out;
}

}  // namespace dnnperf::fitting
