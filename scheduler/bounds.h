#pragma once
// Lower bounds on what any schedule can achieve, to judge heuristics when the exact program
// cannot be solved to optimality.
//
// Latency >= the longest path with every task at its fastest device and free transfers, and
//         >= the fractional load bound: the least T such that the work, split fractionally over
//            the devices (each part at that device's speed, within its memory), fits in T on
//            every device (a linear program, solved by CLP through CBC).
// Throughput: the period >= the fractional load bound (replication is one way of splitting work).
// With grouping, a task's share of a device is at least max(busy + launch / 2, time / 2): a pair
// run together never takes less than either part, nor than their busy times and one launch.
#include "scheduler/schedule.h"

namespace dnnperf {

struct LowerBound {
  double critical_path_s = 0;
  double load_s = 0;
  double value(Objective objective) const { return objective == Objective::latency ? std::max(critical_path_s, load_s) : load_s; }
};

LowerBound lower_bound(const TaskGraph& graph, const Platform& platform, bool groups);

}  // namespace dnnperf
