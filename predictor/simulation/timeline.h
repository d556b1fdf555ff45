#pragma once
// Timeline: a discrete-event simulation of in-order streams.
//
// Each device has streams (a compute stream, a communication stream, ...); a stream runs its tasks
// one after another in the order they were issued, and a task also waits for the tasks it depends
// on, on any stream of any device. Because dependencies must be issued first, each task's start is
// known when it is added — max(its stream is free, its dependencies are done) — so the simulation
// runs in one pass, in time linear in the number of tasks.
//
// Data-parallel training builds one device's streams (all devices are alike); tensor and pipeline
// parallelism add devices and cross-device dependencies (sends, receives) to the same timeline.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dnnperf {

enum class TaskKind : std::uint8_t { compute, communication };

struct Task {
  int stream = 0;
  TaskKind kind = TaskKind::compute;
  int op = -1;       // the op it belongs to, -1 for none
  double start = 0;
  double finish = 0;
};

class Timeline {
 public:
  int add_stream(std::string name);
  /// Issues a task of `duration` seconds on `stream` after `deps`, and not before `not_before`
  /// (what arrives over a wire: a dependency's finish plus the message's time); returns its index.
  int add_task(int stream, double duration, std::span<const int> deps, TaskKind kind, int op = -1, double not_before = 0);
  int add_task(int stream, double duration, std::initializer_list<int> deps, TaskKind kind, int op = -1, double not_before = 0) {
    return add_task(stream, duration, std::span<const int>(deps.begin(), deps.size()), kind, op, not_before);
  }

  const Task& task(int index) const { return tasks_[static_cast<std::size_t>(index)]; }
  const std::vector<Task>& tasks() const { return tasks_; }
  const std::string& stream_name(int stream) const { return streams_[static_cast<std::size_t>(stream)].name; }
  int stream_count() const { return static_cast<int>(streams_.size()); }

  /// When the last task finishes.
  double makespan() const { return makespan_; }
  /// Seconds a stream spends running tasks.
  double busy(int stream) const { return streams_[static_cast<std::size_t>(stream)].busy; }
  /// When a stream's last task finishes (0 if it has none).
  double free_at(int stream) const { return streams_[static_cast<std::size_t>(stream)].free_at; }

  void reserve(std::size_t tasks) { tasks_.reserve(tasks); }
  void clear();

 private:
  struct Stream {
    std::string name;
    double free_at = 0;
    double busy = 0;
  };
  std::vector<Stream> streams_;
  std::vector<Task> tasks_;
  double makespan_ = 0;
};

}  // namespace dnnperf
