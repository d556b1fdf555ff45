// The pipeline simulator (predictor/large_model/pipeline_schedule.h) runs one pass over a
// precomputed order of steps with flat arrays, for speed. Here the same schedule is built task by
// task on the general Timeline (in-order streams, dependencies, one compute and one communication
// stream per GPU), the straightforward way, and the two must agree on generated schedules: stage,
// chunk and micro-batch counts, durations (zero included), blocking or overlapped sends, gradient
// syncs after the last backward or overlapped, ZeRO-3 gathers and optimizer steps. The old
// simulator was this reference; a plan search now runs the fast one 10^5 times a second.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <cmath>

#include "predictor/large_model/pipeline_schedule.h"
#include "predictor/simulation/timeline.h"

using namespace dnnperf;

namespace {

struct Reference {
  double iteration_s = 0;
  std::vector<double> finish, busy, sending, idle, exposed;  // per GPU
};

// Every step a task on its GPU's compute stream, issued GPU by GPU as far as what it waits for has
// been issued; sends a task of their own after it (blocking) or a delay before the receiver.
Reference on_timeline(const PipelineSchedule& s) {
  const int p = s.stages, v = s.virtual_stages, chunks = p * v;
  const std::int64_t m = s.micro_batches;
  Timeline t;
  for (int r = 0; r < p; ++r) {
    t.add_stream("compute");
    t.add_stream("communication");
  }
  std::vector<std::vector<PipelineStep>> order;
  for (int r = 0; r < p; ++r) order.push_back(pipeline_order(p, v, m, r));
  const auto at = [m](int chunk, std::int64_t mb) { return static_cast<std::size_t>(chunk * m + mb); };
  std::vector<int> forward(static_cast<std::size_t>(chunks * m), -1), backward(forward.size(), -1);
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<int> last(static_cast<std::size_t>(p), -1);
  std::vector<std::vector<int>> syncs(static_cast<std::size_t>(p));
  Reference ref;
  ref.sending.assign(static_cast<std::size_t>(p), 0.0);
  std::size_t remaining = 0;
  for (const auto& o : order) remaining += o.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int r = 0; r < p; ++r) {
      const auto& steps = order[static_cast<std::size_t>(r)];
      for (std::size_t& i = next[static_cast<std::size_t>(r)]; i < steps.size(); ++i) {
        const PipelineStep& st = steps[i];
        const ChunkWork& w = s.chunks[static_cast<std::size_t>(st.chunk)];
        int dep = -1;
        bool sent = false;
        if (st.forward && st.chunk > 0) dep = forward[at(st.chunk - 1, st.micro_batch)], sent = true;
        if (!st.forward) {
          const bool last_chunk = st.chunk == chunks - 1;
          dep = last_chunk ? forward[at(st.chunk, st.micro_batch)] : backward[at(st.chunk + 1, st.micro_batch)];
          sent = !last_chunk;
        }
        if (((st.forward && st.chunk > 0) || !st.forward) && dep < 0) break;
        const double ready = dep >= 0 ? t.task(dep).finish + (sent && p > 1 && !s.blocking_sends ? s.send_s : 0.0) : 0.0;
        std::vector<int> gather;
        if (w.parameter_gather_s > 0) gather.push_back(t.add_task(2 * r + 1, w.parameter_gather_s, std::span<const int>{}, TaskKind::communication));
        const int task = t.add_task(2 * r, st.forward ? w.forward_s : w.backward_s, gather, TaskKind::compute, st.chunk, ready);
        const bool sends = p > 1 && s.send_s > 0 && (st.forward ? st.chunk < chunks - 1 : st.chunk > 0);
        const int handed = sends && s.blocking_sends ? t.add_task(2 * r, s.send_s, {task}, TaskKind::communication) : task;
        if (handed != task) ref.sending[static_cast<std::size_t>(r)] += s.send_s;
        (st.forward ? forward : backward)[at(st.chunk, st.micro_batch)] = handed;
        if (!st.forward) {
          last[static_cast<std::size_t>(r)] = handed;
          if (s.overlap_gradient_sync && st.micro_batch == m - 1 && w.gradient_sync_s > 0)
            syncs[static_cast<std::size_t>(r)].push_back(t.add_task(2 * r + 1, w.gradient_sync_s, {task}, TaskKind::communication));
        }
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("cyclic schedule");
  }
  for (int r = 0; r < p; ++r) {
    std::vector<int>& deps = syncs[static_cast<std::size_t>(r)];
    const int l = last[static_cast<std::size_t>(r)];
    if (!s.overlap_gradient_sync)
      for (int local = 0; local < v; ++local) {
        const double sync = s.chunks[static_cast<std::size_t>(local * p + r)].gradient_sync_s;
        if (sync > 0) deps.push_back(t.add_task(2 * r + 1, sync, {l}, TaskKind::communication));
      }
    deps.push_back(l);
    const double busy = t.busy(2 * r);
    const int step = t.add_task(2 * r, s.optimizer_s.empty() ? 0.0 : s.optimizer_s[static_cast<std::size_t>(r)], deps, TaskKind::compute);
    ref.finish.push_back(t.task(step).finish);
    ref.busy.push_back(busy);
    ref.idle.push_back(t.task(l).finish - busy);
    ref.exposed.push_back(t.task(step).start - t.task(l).finish);
  }
  ref.iteration_s = t.makespan();
  return ref;
}

double duration() { return *rc::gen::element(0.0, 0.25, 1.0, 1.5, 3.0, 7.0); }

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

TEST_CASE("The pipeline simulator agrees with the schedule built on Timeline") {
  rc::prop("same iteration and critical stage breakdown", [] {
    PipelineSchedule s;
    s.stages = *rc::gen::inRange(1, 7);
    // Megatron interleaves only pipelines of 2 or more stages and micro-batches a multiple of them.
    s.virtual_stages = s.stages > 1 ? *rc::gen::inRange(1, 4) : 1;
    s.micro_batches = *rc::gen::inRange(1, 13);
    if (s.virtual_stages > 1) s.micro_batches = s.stages * *rc::gen::inRange(1, 5);
    const bool zero3 = *rc::gen::inRange(0, 4) == 0, syncs = *rc::gen::arbitrary<bool>();
    for (int j = 0; j < s.stages * s.virtual_stages; ++j)
      s.chunks.push_back({duration(), duration(), 1.0, syncs ? duration() : 0.0, zero3 ? duration() / 8 : 0.0});
    s.send_s = *rc::gen::element(0.0, 0.1, 0.5);
    s.blocking_sends = *rc::gen::arbitrary<bool>();
    s.overlap_gradient_sync = zero3 || *rc::gen::arbitrary<bool>();
    if (*rc::gen::arbitrary<bool>())
      for (int r = 0; r < s.stages; ++r) s.optimizer_s.push_back(duration());
    const Reference ref = on_timeline(s);
    PipelineSimulator simulator;
    const PipelineResult got = simulator.run(s);
    RC_ASSERT(close(got.iteration_s, ref.iteration_s));
    const auto r = static_cast<std::size_t>(got.critical_stage);
    RC_ASSERT(close(ref.finish[r], *std::max_element(ref.finish.begin(), ref.finish.end())));
    RC_ASSERT(close(got.busy_s, ref.busy[r]));
    RC_ASSERT(close(got.sending_s, ref.sending[r]));
    RC_ASSERT(close(got.idle_s, ref.idle[r]));
    RC_ASSERT(close(got.gradient_sync_exposed_s, ref.exposed[r]));
    // A second run of the same simulator (its orders and buffers reused) gives the same.
    RC_ASSERT(simulator.run(s).iteration_s == got.iteration_s);
  });
}
