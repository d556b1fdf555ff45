#include "microbench/records/progress.h"

#include <unistd.h>

#include <limits>

namespace dnnperf::bench {

Progress::Progress(std::size_t total, bool enabled)
    : total_(total), enabled_(enabled), tty_(isatty(fileno(stderr)) != 0), start_(std::chrono::steady_clock::now()) {}

void Progress::step(const std::string& what) {
  ++done_;
  if (!enabled_ || total_ == 0) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0.0;
  const int decile = static_cast<int>(10 * done_ / total_);
  if (tty_) {
    std::fprintf(stderr, "\r[%zu/%zu] %.0f s elapsed, ETA %.0f s  %-48.48s", done_, total_, elapsed, eta, what.c_str());
  } else if (decile != last_decile_) {
    std::fprintf(stderr, "[%zu/%zu] %.0f s elapsed, ETA %.0f s  %s\n", done_, total_, elapsed, eta, what.c_str());
  }
  last_decile_ = decile;
}

void Progress::finish() {
  if (enabled_ && tty_) std::fprintf(stderr, "\n");
}

Deadline::Deadline(std::optional<double> seconds) {
  if (seconds) end_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(*seconds));
}

bool Deadline::expired() const { return end_ && std::chrono::steady_clock::now() >= *end_; }

double Deadline::remaining() const {
  if (!end_) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(*end_ - std::chrono::steady_clock::now()).count();
}

}  // namespace dnnperf::bench
