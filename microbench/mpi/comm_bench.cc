#include "microbench/mpi/comm_bench.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <cstring>
#include <memory>
#include <new>

#include "microbench/mpi/allreduce_algorithms.h"
#include "core/common/progress.h"
#include "records/record_writer.h"
#include "core/common/error.h"

namespace dnnperf::bench {
namespace {

constexpr int kTag = 99;

/// Input values whose sums are exact in fp32 for thousands of ranks.
float input_value(int rank, std::int64_t i) { return static_cast<float>(rank % 7 + 1 + i % 5); }

struct Buffers {
  std::vector<float> in, out, work, scratch;
};

/// Allocates on every rank; false everywhere if any rank could not.
bool allocate(Buffers& b, std::int64_t in_count, std::int64_t out_count, bool work) {
  int ok = 1;
  try {
    b.in.assign(static_cast<std::size_t>(in_count), 0.0f);
    b.out.assign(static_cast<std::size_t>(out_count), 0.0f);
    if (work) b.work.assign(static_cast<std::size_t>(std::max(in_count, out_count)), 0.0f);
  } catch (const std::bad_alloc&) {
    b = Buffers{};
    ok = 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return ok == 1;
}

bool all_agree(bool mine) {
  int v = mine ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v == 1;
}

/// One collective call of a measurement.
struct Operation {
  std::string algorithm;  // label for the record
  std::int64_t in_count = 0, out_count = 0;
  std::function<void(Buffers&)> prepare;  // untimed, before each call
  std::function<void(Buffers&)> run;
  std::function<bool(const Buffers&)> check;
};

class CommBench {
 public:
  CommBench(MpiSession& mpi, const CommBenchOptions& o) : mpi_(mpi), o_(o), deadline_(o.time_budget_s) {}

  int run() {
    validate();
    // Rank 0 writes; an output it cannot open must stop every rank, not leave them waiting.
    std::unique_ptr<RecordWriter> writer;
    std::string failure;
    if (mpi_.rank() == 0) {
      try {
        writer = std::make_unique<RecordWriter>(o_.output, o_.resume, run_context({{"mpi", mpi_.library_version()}}));
      } catch (const InputError& e) {
        failure = e.what();
      }
    }
    int opened = failure.empty() ? 1 : 0;
    MPI_Bcast(&opened, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!opened) throw InputError(mpi_.rank() == 0 ? failure : "rank 0 could not open the output file");
    const std::vector<std::string> algorithms = chosen_algorithms();
    const std::vector<std::string> modes = chosen_modes();
    const std::size_t total = o_.sizes.size() * algorithms.size() * modes.size();
    Progress progress(total, o_.progress && mpi_.rank() == 0);
    int written = 0;
    for (std::int64_t bytes : o_.sizes) {
      for (const std::string& algorithm : algorithms) for (const std::string& mode : modes) {
        Record r = base_record(bytes, algorithm, mode);
        int skip = writer && writer->done(r.key()) ? 1 : 0;
        int stop = deadline_.expired() ? 1 : 0;
        MPI_Bcast(&skip, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (stop) {
          if (mpi_.rank() == 0) std::fprintf(stderr, "\ndnnperf bench: time budget reached after %zu of %zu measurements\n", progress.done(), total);
          return written;
        }
        if (!skip) {
          mpi_.start(o_.op + " " + algorithm + " (" + mode + ") of " + std::to_string(bytes) + " bytes");
          measure(r, bytes, algorithm, mode == "stream");
          mpi_.stop();
          if (writer) {
            try {
              writer->write(r);
            } catch (const InputError& e) {
              std::fprintf(stderr, "dnnperf bench: %s; stopping\n", e.what());
              MPI_Abort(MPI_COMM_WORLD, 1);
            }
            ++written;
          }
        }
        progress.step(o_.op + " " + algorithm + " " + mode + " " + std::to_string(bytes) + " B");
      }
    }
    progress.finish();
    return written;
  }

 private:
  void validate() const {
    static const std::vector<std::string> ops = {"p2p", "allreduce", "allgather", "reduce_scatter", "alltoall", "bcast"};
    if (std::find(ops.begin(), ops.end(), o_.op) == ops.end()) throw InputError("unknown communication benchmark '" + o_.op + "'");
    if (o_.sizes.empty()) throw InputError("--sizes: no message sizes");
    for (std::int64_t s : o_.sizes)
      if (s <= 0) throw InputError("--sizes: message sizes must be positive, got " + std::to_string(s));
    if (o_.output.empty()) throw InputError("-o: an output file is required");
    for (const std::string& m : o_.modes) {
      if (m != "isolated" && m != "stream") throw InputError("--mode: '" + m + "' is neither isolated nor stream");
      if (m == "stream" && o_.op == "p2p") throw InputError("--mode stream: p2p is timed as a ping-pong only (isolated)");
    }
    for (const std::string& a : o_.algorithms)
      if (a != "mpi" && !(o_.op == "allreduce" && parse_allreduce(a)))
        throw InputError("--algorithms: '" + a + "' is not an algorithm of " + o_.op +
                         (o_.op == "allreduce" ? " (mpi, ring, recursive_doubling, rabenseifner, binomial_tree, hierarchical)" : " (mpi)"));
  }

  std::vector<std::string> chosen_algorithms() const {
    if (!o_.algorithms.empty()) return o_.algorithms;
    std::vector<std::string> all = {"mpi"};
    if (o_.op == "allreduce")
      for (AllReduceAlgorithm a : kAllReduceAlgorithms) all.emplace_back(allreduce_name(a));
    return all;
  }

  std::vector<std::string> chosen_modes() const {
    if (!o_.modes.empty()) return o_.modes;
    if (o_.op == "p2p") return {"isolated"};
    return {"isolated", "stream"};
  }

  Record base_record(std::int64_t bytes, const std::string& algorithm, const std::string& mode) const {
    Record r;
    r.op = o_.op;
    r.params = {{"bytes", bytes}};
    r.dtype = "f32";
    r.algorithm = algorithm == "mpi" ? mpi_.mpi_algorithm_label() : "dnnperf:" + algorithm;
    r.layout = mpi_.layout();
    r.layout["mode"] = mode;
    r.library = "MPI";
    r.library_version = mpi_.library_version();
    r.host = hostname();
    return r;
  }

  void measure(Record& r, std::int64_t bytes, const std::string& algorithm, bool stream) {
    r.date = utc_now();
    const int p = mpi_.size(), rank = mpi_.rank();
    if (o_.op == "p2p" && p < 2) return skip(r, "ping-pong needs at least 2 ranks");
    const std::int64_t count = bytes / 4;
    if (count < 1) return skip(r, "message smaller than one float");
    if ((o_.op == "allgather" || o_.op == "reduce_scatter" || o_.op == "alltoall") && count % p != 0)
      return skip(r, "size is not a multiple of " + std::to_string(p) + " floats (one equal part per rank)");
    if (count > INT32_MAX) return skip(r, "more elements than an MPI count can hold");
    const Operation op = make_operation(count, algorithm);
    Buffers b;
    if (!allocate(b, op.in_count, op.out_count, true))
      return skip(r, "cannot allocate " + std::to_string(bytes) + " bytes on every rank");
    // Check the result before timing anything.
    op.prepare(b);
    op.run(b);
    const bool ok = all_agree(op.check(b));
    r.verified = ok;
    if (!ok) {
      r.status = "failed";
      r.reason = "wrong result: the reduction does not match the expected sum";
      return;
    }
    // Warm up, then pick the repetitions that fill the target time.
    double warm = 0;
    for (int i = 0; i < 2; ++i) warm = time_span(op, b, 1);
    // A stream's burst lasts about 10 ms, at least 4 calls: long enough that its two barriers are
    // a small part of it.
    int burst = stream ? std::clamp(static_cast<int>(0.01 / std::max(warm, 1e-7)), 4, 1000) : 1;
    MPI_Bcast(&burst, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (stream) warm = time_span(op, b, burst);
    int reps = std::clamp(static_cast<int>(o_.target_seconds / std::max(warm * burst, 1e-7)), o_.min_repetitions, o_.max_repetitions);
    MPI_Bcast(&reps, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) samples.push_back(time_span(op, b, burst));
    if (o_.op == "p2p")  // a round trip was timed: one way is half of it
      for (double& s : samples) s /= 2;
    if (rank != 0) return;
    r.timing = summarize(samples);
    const double t = r.timing->median, algbw = static_cast<double>(bytes) / t;
    // nccl-tests' bus bandwidth: what each link carries, comparable across rank counts.
    double factor = 1;
    if (o_.op == "allreduce") factor = 2.0 * (p - 1) / p;
    if (o_.op == "allgather" || o_.op == "reduce_scatter" || o_.op == "alltoall") factor = static_cast<double>(p - 1) / p;
    r.metrics = {{"algbw_bytes_per_s", algbw}, {"busbw_bytes_per_s", algbw * factor}, {"calls_per_span", burst}};
    if (o_.op == "p2p") r.metrics = {{"bandwidth_bytes_per_s", algbw}};
  }

  void skip(Record& r, const std::string& reason) {
    r.status = "skipped";
    r.reason = reason;
  }

  /// Seconds of one call in a span of `calls` back to back (1: an isolated call): the slowest
  /// rank's time from a barrier to the span's end, over `calls`. The input is written afresh
  /// before the span, as an application's gradients are, untimed.
  double time_span(const Operation& op, Buffers& b, int calls) {
    op.prepare(b);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int c = 0; c < calls; ++c) op.run(b);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t / calls;
  }

  Operation make_operation(std::int64_t count64, const std::string& algorithm) {
    const int p = mpi_.size(), rank = mpi_.rank(), n = static_cast<int>(count64);
    Operation op;
    op.algorithm = algorithm;
    const auto fill_in = [rank](Buffers& b) {
      for (std::size_t i = 0; i < b.in.size(); ++i) b.in[i] = input_value(rank, static_cast<std::int64_t>(i));
    };
    const auto sum_of = [p](std::int64_t i) {
      float s = 0;
      for (int r = 0; r < p; ++r) s += input_value(r, i);
      return s;
    };
    if (o_.op == "p2p") {
      op.in_count = op.out_count = n;
      op.prepare = [fill_in](Buffers& b) { fill_in(b); };
      op.run = [n, rank](Buffers& b) {
        if (rank == 0) {
          MPI_Send(b.in.data(), n, MPI_FLOAT, 1, kTag, MPI_COMM_WORLD);
          MPI_Recv(b.out.data(), n, MPI_FLOAT, 1, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(b.out.data(), n, MPI_FLOAT, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(b.out.data(), n, MPI_FLOAT, 0, kTag, MPI_COMM_WORLD);
        }
      };
      // Rank 0 gets its own message back; a round trip is timed, half of it is one way (below).
      op.check = [rank](const Buffers& b) { return rank != 0 || std::equal(b.in.begin(), b.in.end(), b.out.begin()); };
      return op;
    }
    if (o_.op == "allreduce") {
      op.in_count = op.out_count = n;
      op.check = [sum_of](const Buffers& b) {
        for (std::size_t i = 0; i < b.out.size(); ++i)
          if (b.out[i] != sum_of(static_cast<std::int64_t>(i % 5))) return false;  // sums repeat with period 5
        return true;
      };
      if (algorithm == "mpi") {
        op.prepare = [fill_in](Buffers& b) { fill_in(b); };
        op.run = [n](Buffers& b) { MPI_Allreduce(b.in.data(), b.out.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); };
      } else {
        const AllReduceAlgorithm a = *parse_allreduce(algorithm);
        MpiSession* mpi = &mpi_;
        op.prepare = [fill_in](Buffers& b) {
          fill_in(b);
          std::copy(b.in.begin(), b.in.end(), b.out.begin());
        };
        op.run = [a, n, mpi](Buffers& b) { allreduce(a, b.out.data(), n, MPI_COMM_WORLD, mpi->node(), mpi->leaders(), b.scratch); };
      }
      return op;
    }
    if (o_.op == "allgather") {
      const int part = n / p;
      op.in_count = part;
      op.out_count = n;
      op.prepare = [rank, part](Buffers& b) {
        for (int i = 0; i < part; ++i) b.in[static_cast<std::size_t>(i)] = input_value(rank, i);
      };
      op.run = [part](Buffers& b) { MPI_Allgather(b.in.data(), part, MPI_FLOAT, b.out.data(), part, MPI_FLOAT, MPI_COMM_WORLD); };
      op.check = [p, part](const Buffers& b) {
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < part; ++i)
            if (b.out[static_cast<std::size_t>(r * part + i)] != input_value(r, i)) return false;
        return true;
      };
      return op;
    }
    if (o_.op == "reduce_scatter") {
      const int part = n / p;
      op.in_count = n;
      op.out_count = part;
      op.prepare = [fill_in](Buffers& b) { fill_in(b); };
      op.run = [part](Buffers& b) { MPI_Reduce_scatter_block(b.in.data(), b.out.data(), part, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); };
      op.check = [rank, part, sum_of](const Buffers& b) {
        for (int i = 0; i < part; ++i)
          if (b.out[static_cast<std::size_t>(i)] != sum_of((static_cast<std::int64_t>(rank) * part + i) % 5)) return false;
        return true;
      };
      return op;
    }
    if (o_.op == "alltoall") {
      // Each rank sends n / p floats to every rank (bytes: what one rank sends in all, as the
      // model prices it: models/comm/collectives.h).
      const int part = n / p;
      op.in_count = op.out_count = n;
      op.prepare = [rank, n](Buffers& b) {
        for (int i = 0; i < n; ++i) b.in[static_cast<std::size_t>(i)] = input_value(rank, i);
      };
      op.run = [part](Buffers& b) { MPI_Alltoall(b.in.data(), part, MPI_FLOAT, b.out.data(), part, MPI_FLOAT, MPI_COMM_WORLD); };
      op.check = [p, rank, part](const Buffers& b) {
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < part; ++i)
            if (b.out[static_cast<std::size_t>(r * part + i)] != input_value(r, static_cast<std::int64_t>(rank) * part + i)) return false;
        return true;
      };
      return op;
    }
    // bcast from rank 0
    op.in_count = op.out_count = n;
    op.prepare = [rank](Buffers& b) {
      for (std::size_t i = 0; i < b.out.size(); ++i) b.out[i] = rank == 0 ? input_value(0, static_cast<std::int64_t>(i)) : -1.0f;
    };
    op.run = [n](Buffers& b) { MPI_Bcast(b.out.data(), n, MPI_FLOAT, 0, MPI_COMM_WORLD); };
    op.check = [](const Buffers& b) {
      for (std::size_t i = 0; i < b.out.size(); ++i)
        if (b.out[i] != input_value(0, static_cast<std::int64_t>(i))) return false;
      return true;
    };
    return op;
  }

  MpiSession& mpi_;
  const CommBenchOptions& o_;
  Deadline deadline_;
};

}  // namespace

std::vector<std::int64_t> default_message_sizes() {
  std::vector<std::int64_t> sizes;
  for (std::int64_t s = 4; s <= (256LL << 20); s *= 2) {
    sizes.push_back(s);
    if (s * 3 / 2 < (256LL << 20) && s >= 8) sizes.push_back(s * 3 / 2);
  }
  return sizes;
}

int run_comm_bench(MpiSession& mpi, const CommBenchOptions& options) { return CommBench(mpi, options).run(); }

}  // namespace dnnperf::bench
