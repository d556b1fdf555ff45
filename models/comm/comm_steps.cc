#include "models/comm/comm_steps.h"

namespace dnnperf {
namespace {

/// Ranks active in each step of a binomial tree over p ranks, leaves first: at distance d the
/// ranks d mod 2d send to their partner d below (where there is one).
std::vector<int> binomial_active(int p) {
  std::vector<int> active;
  for (int d = 1; d < p; d *= 2) {
    int senders = 0;
    for (int r = d; r < p; r += 2 * d) ++senders;
    active.push_back(2 * senders);
  }
  return active;
}

}  // namespace

std::vector<CommStep> allreduce_steps(std::string_view a, double n, int p) {
  if (a.substr(0, 4) == "mpi:") a.remove_prefix(4);  // a forced library algorithm takes its steps
  if (a.substr(0, 8) == "dnnperf:") a.remove_prefix(8);
  // torch.distributed's libraries reduce large messages around a ring (gloo's default allreduce;
  // NCCL's ring algorithm for bandwidth-bound sizes); their fitted parameters absorb the rest.
  if (a == "gloo:default" || a == "nccl:default") a = "ring";
  std::vector<CommStep> s;
  if (p <= 1) return s;
  const int p2 = 1 << floor_log2(p);
  const bool fold = p2 != p;
  // A fold pairs each rank beyond the largest power of two with one below it; the power of two
  // then runs alone.
  const int folding = 2 * (p - p2), butterfly = fold ? p2 : 0;
  if (a == "ring") {
    s.push_back({p - 1, n / p, n / p});
    s.push_back({p - 1, n / p, 0});
  } else if (a == "rabenseifner") {
    if (fold) s.push_back({1, n, n, folding});
    for (int part = 2; part <= p2; part *= 2) {  // recursive halving, mirrored by the allgather
      s.push_back({1, n / part, n / part, butterfly});
      s.push_back({1, n / part, 0, butterfly});
    }
    if (fold) s.push_back({1, n, 0, folding});
  } else if (a == "binomial_tree" || a == "hierarchical") {
    for (const int active : binomial_active(p)) s.push_back({1, n, n, active});  // reduce to rank 0
    for (const int active : binomial_active(p)) s.push_back({1, n, 0, active});  // and broadcast back
  } else if (a == "recursive_doubling") {
    if (fold) s.push_back({1, n, n, folding});
    s.push_back({floor_log2(p), n, n, butterfly});
    if (fold) s.push_back({1, n, 0, folding});
  } else {  // default: the library's steps are unknown, so no rank is assumed idle
    if (fold) s.push_back({1, n, n});
    s.push_back({floor_log2(p), n, n});
    if (fold) s.push_back({1, n, 0});
  }
  return s;
}

}  // namespace dnnperf
