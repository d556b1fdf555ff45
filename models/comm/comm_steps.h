#pragma once
// The steps an AllReduce algorithm takes on p ranks for an n-byte vector: how many messages of
// which size each rank sends one after another, and how many bytes it reduces with each. Every
// communication model (Hockney, LogGP, dnnperf's own) prices the same steps; they differ in the
// price of one step.
#include <string_view>
#include <vector>

namespace dnnperf {

/// floor(log2 p) and ceil(log2 p) for p >= 1: the step counts of tree and butterfly algorithms.
inline int floor_log2(int p) {
  int k = 0;
  while ((2 << k) <= p) ++k;
  return k;
}
inline int ceil_log2(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}

struct CommStep {
  int count = 0;         // consecutive steps of this shape
  double bytes = 0;      // message size of each
  double reduced = 0;    // bytes reduced after each
  /// Ranks sending or receiving during it; the others wait. 0: all. Where ranks share cores, a
  /// waiting rank yields its core (Open MPI does when oversubscribed), so only the active ones
  /// compete: recursive doubling on 3 ranks folds one rank into a partner and then runs on 2.
  int active = 0;
};

/// Steps of `algorithm` ("ring", "recursive_doubling", "rabenseifner", "binomial_tree",
/// "hierarchical" on one node, or "default": the library's choice, modelled as recursive doubling
/// with every rank active, for lack of knowing it) on `ranks` ranks.
std::vector<CommStep> allreduce_steps(std::string_view algorithm, double bytes, int ranks);

}  // namespace dnnperf
