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

const PipelineSimulator::Orders& PipelineSimulator::orders(int p, int v, std::int64_t m) {
  auto [it, fresh] = orders_.try_emplace({p, v, m});
  Orders& o = it->second;
  if (!fresh) return o;
  const int chunks = p * v;
  const std::uint64_t slots = 2 * static_cast<std::uint64_t>(chunks) * static_cast<std::uint64_t>(m);
  DNNPERF_CHECK(slots < UINT32_MAX);  // plans bound their micro-batches well below this
  const auto none = static_cast<std::uint32_t>(slots);
  for (int r = 0; r < p; ++r) o.per_gpu.push_back(pipeline_order(p, v, m, r));
  // Issue each GPU's steps in turn until one waits on a step not issued yet: an order in which
  // every step follows what it waits for and its GPU's earlier steps.
  std::vector<bool> issued(slots + 1, false);
  issued[none] = true;
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  o.steps.reserve(slots);
  while (o.steps.size() < slots) {
    const std::size_t before = o.steps.size();
    for (int r = 0; r < p; ++r) {
      const std::vector<PipelineStep>& own = o.per_gpu[static_cast<std::size_t>(r)];
      for (std::size_t& i = next[static_cast<std::size_t>(r)]; i < own.size(); ++i) {
        const PipelineStep& st = own[i];
        const auto slot = static_cast<std::uint32_t>(st.chunk * m + st.micro_batch);
        const auto chunk_slots = static_cast<std::uint32_t>(m);
        std::uint32_t waits = none;
        bool sent = true;
        if (st.forward) {
          if (st.chunk > 0) waits = 2 * (slot - chunk_slots);
          else sent = false;
        } else if (st.chunk == chunks - 1) {
          waits = 2 * slot, sent = false;
        } else {
          waits = 2 * (slot + chunk_slots) + 1;
        }
        if (!issued[waits]) break;
        const std::uint32_t done = 2 * slot + (st.forward ? 0 : 1);
        issued[done] = true;
        o.steps.push_back({done, waits, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(2 * st.chunk + (st.forward ? 0 : 1)), sent,
                           !st.forward && st.micro_batch == m - 1});
      }
    }
    DNNPERF_CHECK(o.steps.size() > before);  // the schedule's dependencies form no cycle
  }
  for (const std::vector<PipelineStep>& own : o.per_gpu)
    o.last_slot.push_back(static_cast<std::uint32_t>(2 * (own.back().chunk * m + own.back().micro_batch) + (own.back().forward ? 0 : 1)));
  return o;
}

double PipelineSimulator::peak_activation_bytes(const PipelineSchedule& s, int stage) {
  double held = 0, peak = 0;
  for (const PipelineStep& st : orders(s.stages, s.virtual_stages, s.micro_batches).per_gpu[static_cast<std::size_t>(stage)]) {
    held += (st.forward ? 1 : -1) * s.chunks[static_cast<std::size_t>(st.chunk)].activation_bytes;
    peak = std::max(peak, held);
  }
  return peak;
}

// Each step starts when its GPU's compute stream is free and what it waits for has arrived, and
// holds the stream for its kernels and any blocking send. The rare parts are compiled in only
// where a schedule has them: ZeRO-3's gathers ahead of each step on the communication stream, and
// gradient syncs that start as each chunk's last backward ends.
template <bool kGathers, bool kOverlapSync>
void PipelineSimulator::simulate(const PipelineSchedule& s, const Orders& o) {
  const double wire[2] = {0.0, s.stages > 1 && !s.blocking_sends ? s.send_s : 0.0};  // overlapped: the message's own delay
  double* const done = done_.data();
  double* const free = compute_free_.data();
  double* const comm = comm_free_.data();
  const double* const holds = holds_.data();
  for (const Step& st : o.steps) {
    double start = std::max(free[st.gpu], done[st.waits] + wire[st.sent]);
    if constexpr (kGathers) {
      const double gather = s.chunks[st.holds / 2].parameter_gather_s;
      if (gather > 0) {
        comm[st.gpu] += gather;
        start = std::max(start, comm[st.gpu]);
      }
    }
    const double end = start + holds[st.holds];
    free[st.gpu] = end;
    done[st.done] = end;
    if constexpr (kOverlapSync) {
      const ChunkWork& w = s.chunks[st.holds / 2];
      if (st.last_backward && w.gradient_sync_s > 0) {
        comm[st.gpu] = std::max(comm[st.gpu], start + w.backward_s) + w.gradient_sync_s;  // after its kernels, not its send
        synced_[st.gpu] = comm[st.gpu];
      }
    }
  }
}

PipelineResult PipelineSimulator::run(const PipelineSchedule& s) {
  const int p = s.stages, v = s.virtual_stages;
  const std::int64_t m = s.micro_batches;
  const int chunks = p * v;
  DNNPERF_CHECK(p >= 1 && v >= 1 && m >= 1 && static_cast<int>(s.chunks.size()) == chunks);
  DNNPERF_CHECK(s.send_s >= 0);
  for (const double o : s.optimizer_s) DNNPERF_CHECK(o >= 0);
  const Orders& o = orders(p, v, m);
  const auto up = static_cast<std::size_t>(p);
  // Every sum over a GPU's steps (busy, sending) follows from the durations without simulating.
  const bool blocking = p > 1 && s.blocking_sends;
  holds_.resize(static_cast<std::size_t>(2 * chunks));
  std::vector<double> busy(up, 0.0), sending(up, 0.0);
  bool gathers = false;
  for (int j = 0; j < chunks; ++j) {
    const ChunkWork& w = s.chunks[static_cast<std::size_t>(j)];
    DNNPERF_CHECK(w.forward_s >= 0 && w.backward_s >= 0 && w.gradient_sync_s >= 0 && w.parameter_gather_s >= 0);
    const double forward_send = blocking && j < chunks - 1 ? s.send_s : 0.0, backward_send = blocking && j > 0 ? s.send_s : 0.0;
    holds_[static_cast<std::size_t>(2 * j)] = w.forward_s + forward_send;
    holds_[static_cast<std::size_t>(2 * j + 1)] = w.backward_s + backward_send;
    const auto r = static_cast<std::size_t>(j % p);
    busy[r] += static_cast<double>(m) * (w.forward_s + w.backward_s + forward_send + backward_send);
    sending[r] += static_cast<double>(m) * (forward_send + backward_send);
    gathers = gathers || w.parameter_gather_s > 0;
  }
  done_.resize(o.steps.size() + 1);
  done_.back() = 0;  // what a step that waits for nothing waits for
  compute_free_.assign(up, 0.0);
  comm_free_.assign(up, 0.0);
  synced_.assign(up, 0.0);
  if (gathers) s.overlap_gradient_sync ? simulate<true, true>(s, o) : simulate<true, false>(s, o);
  else s.overlap_gradient_sync ? simulate<false, true>(s, o) : simulate<false, false>(s, o);
  // Each stream runs in order, so the last task of any stream is its free time at the end.
  PipelineResult result;
  double end = 0, makespan = 0;
  for (std::size_t r = 0; r < up; ++r) {
    const double backward_end = done_[o.last_slot[r]];
    if (!s.overlap_gradient_sync)
      for (int local = 0; local < v; ++local) {
        const double sync = s.chunks[static_cast<std::size_t>(local * p) + r].gradient_sync_s;
        if (sync > 0) synced_[r] = comm_free_[r] = std::max(comm_free_[r], backward_end) + sync;
      }
    const double optimizer = s.optimizer_s.empty() ? 0.0 : s.optimizer_s[r];
    const double step = std::max({compute_free_[r], backward_end, synced_[r]});
    const double finish = step + optimizer;
    makespan = std::max({makespan, comm_free_[r], finish});
    if (finish >= end) {
      end = finish;
      result.critical_stage = static_cast<int>(r);
      result.busy_s = busy[r];
      result.sending_s = sending[r];
      result.idle_s = backward_end - busy[r];  // from the iteration's start: the last stage waits for its first input
      result.gradient_sync_exposed_s = step - backward_end;
      result.optimizer_s = optimizer;
    }
  }
  result.iteration_s = makespan;
  return result;
}

}  // namespace dnnperf
