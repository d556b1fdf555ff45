#pragma once
// How fast the machine ran in each measurement session, relative to the others.
//
// A shared machine does not run at one speed: on the dev VM the same 1,200 kernels took 1.6x
// (GEMMs) to 2.0x (convolutions) longer on one day than on the day before. A fit that merges
// files measured in such sessions fits the sessions' speeds as if they were the shapes' costs. Two
// sessions that timed some of the same kernels can be put on one scale: the median, over those
// kernels, of the ratio of their times is the second session's speed against the first, per
// kernel class (contention slows memory-heavy kernels more than compute-bound ones). Sessions
// that share no kernels cannot be told apart from the shapes they measured and are left as timed.
#include <map>
#include <string>
#include <vector>

namespace dnnperf::fitting {

/// One kernel timed in one session (a measurement file).
struct SessionTime {
  std::string session;       // the file
  std::string kernel;        // the kernel's identity: op, parameters, element type
  std::string kernel_class;  // calibration class: each class gets its own factor where it can
  double seconds = 0;
};

/// One ratio of a session's times to another's, and what is made of it.
struct SessionFactor {
  double measured = 1;        // median, over the shared kernels, of this session's time over the other's
  double standard_error = 0;  // of log(measured): 1.25 sd / sqrt(n) of the kernels' log ratios
  int kernels = 0;             // shared kernels it rests on (0: a class's, taken from the overall ratio)
  /// Against the group's reference session: `measured` chained through the session compared
  /// with, or that session's own factor where `measured` is within two standard errors of 1 (a
  /// difference the kernels' own noise explains is not scaled away).
  double applied = 1;
  /// `measured` within two standard errors of 1: a difference the kernels' own noise explains.
  bool within_noise() const;
};

/// A session's times against those of its reference session: divide a time by `factor(class)`
/// to put it on the reference's scale.
struct SessionSpeed {
  std::string session;
  std::string reference;  // the session it is scaled to (itself for a reference session)
  std::string compared;   // the session whose times it was compared with (empty for a reference)
  SessionFactor overall;  // over all shared kernels
  /// Per class with at least kMinSharedKernels shared kernels, its own ratio; per class that
  /// `compared` has a factor for and this link too few kernels, the overall ratio (kernels 0).
  std::map<std::string, SessionFactor> per_class;
  /// The applied factor of the class, else the overall one.
  double factor(const std::string& kernel_class) const;
};

/// Fewer shared kernels than this give no factor: a median of a handful of noisy ratios (each
/// kernel repeats within 5-20% across sessions on the dev VM) is no better than none.
inline constexpr int kMinSharedKernels = 8;

/// Every session's speed. Sessions connected by at least kMinSharedKernels shared kernels form a
/// group, scaled to its session with the most kernels (the first given, on a tie), each compared
/// to the already scaled session it shares most kernels with; a session in a group of its own is
/// its own reference (factor 1). Sessions come out in the order they first appear in `times`.
std::vector<SessionSpeed> session_speeds(const std::vector<SessionTime>& times);

}  // namespace dnnperf::fitting
