#include "fitting/comm/comm_score.h"

#include <map>
#include <tuple>

#include "models/comm/fitted_comm_model.h"

namespace dnnperf::fitting {

std::vector<CommScore> score_comm(const HardwareProfile& profile, CommData& data, const std::string& collective) {
  std::map<std::tuple<std::string, CommMode, int>, CommScore> by_model;
  for (const CommSample& s : data.samples) {
    const FittedCommModel* m = find_comm_model(profile, collective, s.algorithm, s.mode);
    if (!m) {
      data.excluded.push_back({s.algorithm + " (" + std::string(comm_mode_name(s.mode)) + ") " + std::to_string(static_cast<long long>(s.bytes)) +
                                   " B on " + std::to_string(s.ranks) + " ranks",
                               "profile '" + profile.name + "' has no " + collective + " model of this algorithm in this mode"});
      continue;
    }
    CommScore& score = by_model[{s.algorithm, s.mode, s.ranks}];
    score.algorithm = s.algorithm;
    score.mode = s.mode;
    score.ranks = s.ranks;
    score.model = std::string(comm_model_name(m->kind));
    score.messages.push_back({s, comm_prediction(*m, s.bytes, s.ranks)});
  }
  std::vector<CommScore> out;
  for (auto& [key, score] : by_model) {
    std::vector<std::pair<double, double>> pairs;
    int inside = 0;
    for (const ScoredMessage& m : score.messages) {
      pairs.emplace_back(m.sample.seconds, m.prediction.seconds);
      inside += m.sample.seconds >= m.prediction.low && m.sample.seconds <= m.prediction.high;
    }
    score.errors = error_stats(pairs, inside);
    out.push_back(std::move(score));
  }
  return out;
}

}  // namespace dnnperf::fitting
