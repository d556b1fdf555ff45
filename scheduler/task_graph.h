#pragma once
// TaskGraph: a network's operator graph as a scheduling problem on a platform — one task per op
// (or per fused chain of ops after coarsening), its inference time on every device from that
// device's cost model, and the bytes each edge carries between tasks.
//
//   TaskGraph tasks = build_task_graph(load_network("inception_v3", {.with_loss = false}), platform);
//   coarsen(tasks, 200);  // fuse chains until at most 200 tasks remain
//
// Tasks are in topological order (every edge goes from a lower to a higher index).
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "predictor/prediction/run_config.h"
#include "scheduler/platform.h"

namespace dnnperf {

inline constexpr double kCannotRun = std::numeric_limits<double>::infinity();

struct TaskNode {
  std::string name;      // the op's name; "first .. last" for a fused chain
  std::vector<int> ops;  // indices into the network's ops
  /// Seconds on each platform device; kCannotRun where the device lacks one of its ops.
  std::vector<double> seconds;
  /// Per device: the part of `seconds` during which the task keeps the device's units busy
  /// (time x occupancy from the analytic model) and its kernel launch overhead. A task that
  /// leaves units idle can share the device with an independent task (see group_seconds).
  std::vector<double> busy, launch;
  double weight_bytes = 0;  // parameters that must reside on the device that runs it
  double output_bytes = 0;
  bool runs_on(int device) const { return seconds[static_cast<std::size_t>(device)] < kCannotRun; }
  double fastest() const;
};

struct TaskEdge {
  int from = 0, to = 0;
  double bytes = 0;  // tensors `to` reads from `from`
};

class TaskGraph {
 public:
  std::string network;
  int devices = 0;
  std::vector<TaskNode> tasks;
  std::vector<TaskEdge> edges;

  int size() const { return static_cast<int>(tasks.size()); }
  const TaskNode& task(int i) const { return tasks[static_cast<std::size_t>(i)]; }
  double seconds(int task, int device) const { return tasks[static_cast<std::size_t>(task)].seconds[static_cast<std::size_t>(device)]; }
  /// Edge indices into and out of each task; valid after index().
  const std::vector<int>& in_edges(int task) const { return in_[static_cast<std::size_t>(task)]; }
  const std::vector<int>& out_edges(int task) const { return out_[static_cast<std::size_t>(task)]; }
  /// Rebuilds the adjacency after tasks or edges changed; merges parallel edges. Throws
  /// InputError if an edge goes backwards or names a missing task.
  void index();
  /// For each task, the set of tasks reachable from it (as a bitset of words); O(n^2 / 64) memory.
  std::vector<std::vector<std::uint64_t>> reachability() const;

 private:
  std::vector<std::vector<int>> in_, out_;
};

/// Time of two independent tasks run together on `device` (on separate streams or thread pools):
/// never less than the longer one alone, nor than the sum of their busy times plus one launch.
double group_seconds(const TaskNode& a, const TaskNode& b, int device);

struct TaskGraphOptions {
  Precision precision = Precision::fp32;
};

/// Prices every op of `graph` (an inference) on every device of `platform`. Throws InputError if
/// some op can run on no device, naming the op.
TaskGraph build_task_graph(const Graph& graph, const Platform& platform, const TaskGraphOptions& options = {});

/// Fuses chains (a task with one successor that has one predecessor) until at most
/// `target_tasks` remain or no chain is left, cheapest fused pair first. A fused task runs where
/// both parts can; its time is the sum of theirs, and the edge between them disappears.
void coarsen(TaskGraph& graph, int target_tasks);

}  // namespace dnnperf
