#pragma once
// Progress of a long run on the terminal (done/total, elapsed, ETA), and the wall-time budget
// that stops it cleanly.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace dnnperf::bench {

class Progress {
 public:
  /// Prints to stderr when `enabled`; redraws in place on a terminal, else a line every 10%.
  Progress(std::size_t total, bool enabled);
  void step(const std::string& what);
  void finish();
  std::size_t done() const { return done_; }

 private:
  std::size_t total_, done_ = 0;
  bool enabled_, tty_;
  int last_decile_ = -1;
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

}  // namespace dnnperf::bench
