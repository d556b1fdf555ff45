#include "models/comm/comm_steps.h"

namespace dnnperf {
namespace {

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
  if (a == "ring") {
    s.push_back({p - 1, n / p, n / p});
    s.push_back({p - 1, n / p, 0});
  } else if (a == "rabenseifner") {
    if (fold) s.push_back({1, n, n});
    for (int part = 2; part <= p2; part *= 2) {  // recursive halving, mirrored by the allgather
      s.push_back({1, n / part, n / part});
      s.push_back({1, n / part, 0});
    }
    if (fold) s.push_back({1, n, 0});
  } else if (a == "binomial_tree" || a == "hierarchical") {
    s.push_back({ceil_log2(p), n, n});
    s.push_back({ceil_log2(p), n, 0});
  } else {  // recursive_doubling, default
    if (fold) s.push_back({1, n, n});
    s.push_back({floor_log2(p), n, n});
    if (fold) s.push_back({1, n, 0});
  }
  return s;
}

}  // namespace dnnperf
