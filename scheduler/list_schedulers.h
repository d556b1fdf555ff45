#pragma once
// The baselines every exact or modular method is judged against. All place each task where it
// would finish earliest, among the devices that can run it and still hold its parameters.
//
//  - single: the whole network on one device, for each device that can hold it; the fastest.
//  - heft:  Topcuoglu, Hariri & Wu, "Performance-effective and low-complexity task scheduling for
//           heterogeneous computing", IEEE TPDS 13(3), 2002: tasks by decreasing upward rank
//           (mean cost over devices plus the longest mean-cost path to the exit), each into the
//           earliest idle slot (insertion) that finishes it first.
//  - cpop:  same paper: priority = upward + downward rank; the tasks of the critical path all go to
//           the one device that runs that path fastest, the others by earliest finish.
//  - greedy: a list scheduler without ranks: of all ready tasks, the one that can finish earliest
//           goes first, on the device where it does (no insertion).
#include "scheduler/schedule.h"

namespace dnnperf {

Schedule schedule_single_device(const TaskGraph& graph, const Platform& platform);
Schedule schedule_heft(const TaskGraph& graph, const Platform& platform);
Schedule schedule_cpop(const TaskGraph& graph, const Platform& platform);
Schedule schedule_greedy(const TaskGraph& graph, const Platform& platform);

}  // namespace dnnperf
