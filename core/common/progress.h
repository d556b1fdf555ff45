#pragma once
// Progress of a long run on the terminal (done/total, elapsed, an estimate of the time left), and
// the wall-time budget that stops it cleanly. Progress draws only where stderr is a terminal: in a
// pipe or a log file it stays quiet, so that what a run writes there is its results alone.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace dnnperf {

class Progress {
 public:
  /// Redraws one line in place on stderr when `enabled` and stderr is a terminal; silent otherwise.
  Progress(std::size_t total, bool enabled);
  void step(const std::string& what);
  /// Wipes the line drawn (before other output to the terminal); the next step draws it again.
  void clear();
  void finish();
  std::size_t done() const { return done_; }

 private:
  std::size_t total_, done_ = 0;
  bool enabled_, tty_;
  std::chrono::steady_clock::time_point start_;
};

class Deadline {
 public:
  /// No budget: never expires.
  explicit Deadline(std::optional<double> seconds);
  bool expired() const;
  /// Seconds left (infinity without a budget).
  double remaining() const;

 private:
  std::optional<std::chrono::steady_clock::time_point> end_;
};

}  // namespace dnnperf
