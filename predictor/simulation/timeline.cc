#include "predictor/simulation/timeline.h"

#include <algorithm>

#include "core/common/error.h"

namespace dnnperf {

int Timeline::add_stream(std::string name) {
  streams_.push_back({std::move(name), 0, 0});
  return static_cast<int>(streams_.size()) - 1;
}

int Timeline::add_task(int stream, double duration, std::span<const int> deps, TaskKind kind, int op, double not_before) {
  DNNPERF_CHECK(stream >= 0 && stream < static_cast<int>(streams_.size()));
  DNNPERF_CHECK(duration >= 0);
  Stream& s = streams_[static_cast<std::size_t>(stream)];
  double start = std::max(s.free_at, not_before);
  for (int d : deps) {
    DNNPERF_CHECK(d >= 0 && d < static_cast<int>(tasks_.size()));
    start = std::max(start, tasks_[static_cast<std::size_t>(d)].finish);
  }
  const Task t{stream, kind, op, start, start + duration};
  s.free_at = t.finish;
  s.busy += duration;
  makespan_ = std::max(makespan_, t.finish);
  tasks_.push_back(t);
  return static_cast<int>(tasks_.size()) - 1;
}

void Timeline::clear() {
  streams_.clear();
  tasks_.clear();
  makespan_ = 0;
}

}  // namespace dnnperf
