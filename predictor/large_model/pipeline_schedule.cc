#include "predictor/large_model/pipeline_schedule.h"

#include <algorithm>
#include <string>

#include "core/common/error.h"

namespace dnnperf {

std::vector<PipelineStep> pipeline_order(int p, int v, std::int64_t m, int r) {
  std::vector<PipelineStep> order;
  const std::int64_t total = m * v;
  order.reserve(static_cast<std::size_t>(2 * total));
  // Megatron's interleaved schedule walks micro-batches in groups of p per chunk; with one chunk
  // it is plain 1F1B.
  const auto step = [&](std::int64_t k, bool forward) {
    const std::int64_t group = k % (static_cast<std::int64_t>(p) * v);
    int local = static_cast<int>(group / p);
    if (!forward) local = v - 1 - local;
    const std::int64_t mb = (k / (static_cast<std::int64_t>(p) * v)) * p + group % p;
    return PipelineStep{local * p + r, v == 1 ? k : mb, forward};
  };
  const std::int64_t warmup = std::min<std::int64_t>(v == 1 ? p - r - 1 : static_cast<std::int64_t>(p - r - 1) * 2 + static_cast<std::int64_t>(v - 1) * p, total);
  for (std::int64_t k = 0; k < warmup; ++k) order.push_back(step(k, true));
  for (std::int64_t i = 0; i < total - warmup; ++i) {
    order.push_back(step(warmup + i, true));
    order.push_back(step(i, false));
  }
  for (std::int64_t i = total - warmup; i < total; ++i) order.push_back(step(i, false));
  return order;
}

const std::vector<std::vector<PipelineStep>>& PipelineSimulator::orders(int p, int v, std::int64_t m) {
  auto [it, fresh] = orders_.try_emplace({p, v, m});
  if (fresh)
    for (int r = 0; r < p; ++r) it->second.push_back(pipeline_order(p, v, m, r));
  return it->second;
}

double PipelineSimulator::peak_activation_bytes(const PipelineSchedule& s, int stage) {
  double held = 0, peak = 0;
  for (const PipelineStep& st : orders(s.stages, s.virtual_stages, s.micro_batches)[static_cast<std::size_t>(stage)]) {
    held += (st.forward ? 1 : -1) * s.chunks[static_cast<std::size_t>(st.chunk)].activation_bytes;
    peak = std::max(peak, held);
  }
  return peak;
}

PipelineResult PipelineSimulator::run(const PipelineSchedule& s) {
  const int p = s.stages, v = s.virtual_stages;
  const std::int64_t m = s.micro_batches;
  const int chunks = p * v;
  DNNPERF_CHECK(p >= 1 && v >= 1 && m >= 1 && static_cast<int>(s.chunks.size()) == chunks);
  Timeline& t = timeline_;
  t.clear();
  t.reserve(static_cast<std::size_t>(chunks * m * 3 + 4 * p));
  // Streams of GPU r: compute 2r, data-parallel communication 2r + 1.
  for (int r = 0; r < p; ++r) {
    t.add_stream("compute");
    t.add_stream("data_parallel");
  }
  const std::vector<std::vector<PipelineStep>>& order = orders(p, v, m);
  const auto at = [m](int chunk, std::int64_t mb) { return static_cast<std::size_t>(chunk * m + mb); };
  forward_task_.assign(static_cast<std::size_t>(chunks * m), -1);
  backward_task_.assign(forward_task_.size(), -1);
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<int> last_backward(static_cast<std::size_t>(p), -1);
  std::vector<std::vector<int>> syncs(static_cast<std::size_t>(p));
  PipelineResult result;
  result.peak_activation_bytes.assign(static_cast<std::size_t>(p), 0.0);
  std::vector<double> held(static_cast<std::size_t>(p), 0.0), sending(static_cast<std::size_t>(p), 0.0);
  std::size_t remaining = 0;
  for (const auto& o : order) remaining += o.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int r = 0; r < p; ++r) {
      const auto& steps = order[static_cast<std::size_t>(r)];
      std::size_t& i = next[static_cast<std::size_t>(r)];
      // Issue this GPU's steps until one waits on a neighbour not issued yet.
      while (i < steps.size()) {
        const PipelineStep& st = steps[i];
        const ChunkWork& w = s.chunks[static_cast<std::size_t>(st.chunk)];
        // What this step waits for, and whether it comes over the wire from another GPU.
        int dep = -1;
        bool sent = false;
        if (st.forward && st.chunk > 0) dep = forward_task_[at(st.chunk - 1, st.micro_batch)], sent = true;
        if (!st.forward) {
          const bool last = st.chunk == chunks - 1;
          dep = last ? forward_task_[at(st.chunk, st.micro_batch)] : backward_task_[at(st.chunk + 1, st.micro_batch)];
          sent = !last;
        }
        if ((st.forward && st.chunk > 0) || !st.forward)
          if (dep < 0) break;
        const int compute = 2 * r;
        const double ready = dep >= 0 ? t.task(dep).finish + (sent && p > 1 && !s.blocking_sends ? s.send_s : 0.0) : 0.0;
        int gather[1];
        std::size_t gathers = 0;
        if (w.parameter_gather_s > 0) gather[gathers++] = t.add_task(compute + 1, w.parameter_gather_s, std::span<const int>{}, TaskKind::communication);
        const int task = t.add_task(compute, st.forward ? w.forward_s : w.backward_s, std::span<const int>(gather, gathers), TaskKind::compute,
                                    st.chunk, ready);
        double& h = held[static_cast<std::size_t>(r)];
        // A blocking send holds this GPU's stream; what the neighbour waits for is its end.
        const bool sends = p > 1 && s.send_s > 0 && (st.forward ? st.chunk < chunks - 1 : st.chunk > 0);
        const int handed = sends && s.blocking_sends ? t.add_task(compute, s.send_s, {task}, TaskKind::communication) : task;
        if (handed != task) sending[static_cast<std::size_t>(r)] += s.send_s;
        if (st.forward) {
          forward_task_[at(st.chunk, st.micro_batch)] = handed;
          h += w.activation_bytes;
          result.peak_activation_bytes[static_cast<std::size_t>(r)] = std::max(result.peak_activation_bytes[static_cast<std::size_t>(r)], h);
        } else {
          backward_task_[at(st.chunk, st.micro_batch)] = handed;
          h -= w.activation_bytes;
          last_backward[static_cast<std::size_t>(r)] = handed;
          if (s.overlap_gradient_sync && st.micro_batch == m - 1 && w.gradient_sync_s > 0)
            syncs[static_cast<std::size_t>(r)].push_back(t.add_task(compute + 1, w.gradient_sync_s, {task}, TaskKind::communication));
        }
        ++i;
        --remaining;
        progressed = true;
      }
    }
    DNNPERF_CHECK(progressed);  // the schedule's dependencies form no cycle
  }
  double end = 0;
  for (int r = 0; r < p; ++r) {
    const int last = last_backward[static_cast<std::size_t>(r)];
    std::vector<int>& deps = syncs[static_cast<std::size_t>(r)];
    if (!s.overlap_gradient_sync)
      for (int local = 0; local < v; ++local) {
        const double sync = s.chunks[static_cast<std::size_t>(local * p + r)].gradient_sync_s;
        if (sync > 0) deps.push_back(t.add_task(2 * r + 1, sync, {last}, TaskKind::communication));
      }
    deps.push_back(last);
    const double optimizer = s.optimizer_s.empty() ? 0.0 : s.optimizer_s[static_cast<std::size_t>(r)];
    const int step = t.add_task(2 * r, optimizer, deps, TaskKind::compute);
    const double finish = t.task(step).finish;
    if (finish >= end) {
      end = finish;
      const double backward_end = t.task(last).finish;
      result.critical_stage = r;
      result.busy_s = t.busy(2 * r) - optimizer;
      result.sending_s = sending[static_cast<std::size_t>(r)];
      result.idle_s = backward_end - result.busy_s;  // from the iteration's start: the last stage waits for its first input
      result.gradient_sync_exposed_s = t.task(step).start - backward_end;
      result.optimizer_s = optimizer;
    }
  }
  result.iteration_s = t.makespan();
  return result;
}

}  // namespace dnnperf
