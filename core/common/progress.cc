#include "core/common/progress.h"

#include <unistd.h>

#include <limits>

namespace dnnperf {

Progress::Progress(std::size_t total, bool enabled)
    : total_(total), enabled_(enabled), tty_(isatty(fileno(stderr)) != 0), start_(std::chrono::steady_clock::now()) {}

void Progress::step(const std::string& what) {
  ++done_;
  if (!enabled_ || !tty_ || total_ == 0) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0.0;
  std::fprintf(stderr, "\r[%zu/%zu] %.0f s elapsed, about %.0f s left  %-48.48s", done_, total_, elapsed, eta, what.c_str());
  std::fflush(stderr);
}

void Progress::clear() {
  if (enabled_ && tty_ && done_ > 0) std::fprintf(stderr, "\r\033[K");
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

}  // namespace dnnperf
