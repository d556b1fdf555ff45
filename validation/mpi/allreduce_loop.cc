// An AllReduce timing loop that shares no code with `dnnperf bench`: the independent measurement
// a fitted communication model is judged against (docs/validation.md, "Collectives over MPI").
// Each knob that could make a benchmark see something an application does not is a flag, so
// their effects can be measured one at a time:
//
//   --mode isolated   a barrier before each call; the call's time is its slowest rank's (or
//                     rank 0's with --clock rank0). What one lone call costs: a latency.
//   --mode stream     `--burst` calls back to back between two barriers, as a framework issues
//                     gradient buckets; the time of one is the burst's slowest rank's over its
//                     length. What a call costs when calls follow each other: a throughput.
//   --buffers rotate  each call uses the next of enough buffer pairs to outgrow the last-level
//                     cache (cold operands), instead of one pair (warm operands).
//   --no-refill       leave the input as the last call left it, instead of writing it afresh
//                     before each span, untimed (an application's gradients are freshly written).
//   --thread LEVEL    the MPI thread level asked of MPI_Init_thread: single (the default, as
//                     MPI_Init gives a plain program), funneled, serialized or multiple.
//
// The defaults are the modes as docs/measurement-format.md defines them; each flag departs from
// them in one respect.
// Prints the record format of docs/measurement-format.md (one context line, then a record per
// size; library "MPI", algorithm "mpi:default", layout.mode), so `dnnperf score` prices it.
//   mpirun -np 2 dnnperf-allreduce-loop --sizes 12,700,3000000 [--mode stream] > loop.jsonl
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

struct Options {
  std::vector<long long> sizes;
  std::string mode = "isolated", clock = "slowest", buffers = "reuse", thread = "single";
  bool refill = true;
  int warmup = 3, reps = 0, burst = 0;  // 0: chosen from the size
  double target_s = 0.2;                 // time spent timing one size
};

[[noreturn]] void usage(const char* why) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::fprintf(stderr,
                 "allreduce_loop: %s\nusage: allreduce_loop --sizes B[,B...] [--mode isolated|stream] [--clock slowest|rank0]\n"
                 "       [--buffers reuse|rotate] [--no-refill] [--thread single|funneled|serialized|multiple] [--warmup N]\n"
                 "       [--reps N] [--burst N] [--target-s S]\n",
                 why);
  MPI_Finalize();
  std::exit(2);
}

long long parse_count(const char* text, const char* flag) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < 0) usage((std::string(flag) + ": not a non-negative integer: " + text).c_str());
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--sizes") {
      std::string list = value();
      for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const long long s = parse_count(list.substr(start, comma - start).c_str(), "--sizes");
        if (s < 4 || s % 4) usage("--sizes: each size must be a positive multiple of 4 bytes (floats)");
        o.sizes.push_back(s);
        start = comma + 1;
      }
    } else if (a == "--mode") o.mode = value();
    else if (a == "--clock") o.clock = value();
    else if (a == "--buffers") o.buffers = value();
    else if (a == "--no-refill") o.refill = false;
    else if (a == "--thread") o.thread = value();
    else if (a == "--warmup") o.warmup = static_cast<int>(parse_count(value(), "--warmup"));
    else if (a == "--reps") o.reps = static_cast<int>(parse_count(value(), "--reps"));
    else if (a == "--burst") o.burst = static_cast<int>(parse_count(value(), "--burst"));
    else if (a == "--target-s") o.target_s = std::atof(value());
    else usage(("unknown option " + a).c_str());
  }
  if (o.sizes.empty()) usage("--sizes is required");
  if (o.mode != "isolated" && o.mode != "stream") usage("--mode must be isolated or stream");
  if (o.clock != "slowest" && o.clock != "rank0") usage("--clock must be slowest or rank0");
  if (o.buffers != "reuse" && o.buffers != "rotate") usage("--buffers must be reuse or rotate");
  if (!(o.target_s > 0 && o.target_s < 600)) usage("--target-s must be in (0, 600)");
  if (o.thread != "single" && o.thread != "funneled" && o.thread != "serialized" && o.thread != "multiple")
    usage("--thread must be single, funneled, serialized or multiple");
  return o;
}

/// The time a rank reports for a span: the slowest rank's, or rank 0's.
double reported(double mine, const Options& o) {
  if (o.clock == "slowest") MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  else MPI_Bcast(&mine, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return mine;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

}  // namespace

/// The thread level named on the command line, read before MPI starts (usage() needs MPI, so a
/// bad name is left to parse() to refuse).
int requested_level(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--thread") {
      const std::string v = argv[i + 1];
      return v == "funneled" ? MPI_THREAD_FUNNELED : v == "serialized" ? MPI_THREAD_SERIALIZED : v == "multiple" ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    }
  return MPI_THREAD_SINGLE;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, requested_level(argc, argv), &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const Options o = parse(argc, argv);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string library(version, static_cast<std::size_t>(length));
  library = library.substr(0, library.find_first_of(",\n"));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int per_node = 1;
  MPI_Comm_size(node, &per_node);
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const std::string date = utc_now();
  const std::string layout = "{\"ranks\":" + std::to_string(ranks) + ",\"nodes\":" + std::to_string(ranks / per_node) +
                             ",\"ranks_per_node\":" + std::to_string(per_node) + ",\"cpus_per_node\":" + std::to_string(cpus) +
                             ",\"mode\":\"" + o.mode + "\",\"mpi_threads\":\"" +
                             (provided >= MPI_THREAD_MULTIPLE ? "multiple" : provided >= MPI_THREAD_SERIALIZED ? "serialized"
                              : provided >= MPI_THREAD_FUNNELED ? "funneled" : "single") + "\"}";
  if (rank == 0)
    std::printf("{\"type\":\"context\",\"schema\":\"dnnperf.measurements/1\",\"tool\":\"allreduce_loop (validation/mpi)\",\"host\":\"%s\","
                "\"date\":\"%s\",\"libraries\":{\"mpi\":\"%s\"},\"settings\":{\"clock\":\"%s\",\"buffers\":\"%s\",\"refill\":%s,\"warmup\":%d}}\n",
                host, date.c_str(), library.c_str(), o.clock.c_str(), o.buffers.c_str(), o.refill ? "true" : "false", o.warmup);
  for (const long long bytes : o.sizes) {
    const int n = static_cast<int>(bytes / 4);
    // Rotated buffers: enough pairs that the ones a call meets were last touched 64 MiB ago.
    const int pairs = o.buffers == "rotate" ? static_cast<int>(std::max(1LL, (64LL << 20) / (2 * bytes)) + 1) : 1;
    std::vector<std::vector<float>> in(static_cast<std::size_t>(pairs)), out(static_cast<std::size_t>(pairs));
    for (int b = 0; b < pairs; ++b) {
      in[static_cast<std::size_t>(b)].assign(static_cast<std::size_t>(n), static_cast<float>(rank + 1));
      out[static_cast<std::size_t>(b)].assign(static_cast<std::size_t>(n), 0.0f);
    }
    int next = 0;
    const auto call = [&] {
      const std::size_t b = static_cast<std::size_t>(next);
      next = (next + 1) % pairs;
      MPI_Allreduce(in[b].data(), out[b].data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    };
    const auto refill = [&](int b) {
      if (o.refill) std::fill(in[static_cast<std::size_t>(b)].begin(), in[static_cast<std::size_t>(b)].end(), static_cast<float>(rank + 1));
    };
    // Check once: every element is 1 + 2 + ... + ranks.
    call();
    const float expected = static_cast<float>(ranks) * static_cast<float>(ranks + 1) / 2;
    int ok = std::all_of(out[0].begin(), out[0].end(), [&](float v) { return v == expected; }) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
      if (rank == 0) std::fprintf(stderr, "allreduce_loop: wrong sum at %lld bytes\n", bytes);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    // One timed span: a call (isolated) or a burst of calls (stream), between barriers.
    const auto span = [&](int calls) {
      refill(next);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int c = 0; c < calls; ++c) call();
      return reported(MPI_Wtime() - t0, o) / calls;
    };
    double first = 0;
    for (int w = 0; w < std::max(o.warmup, 1); ++w) first = span(1);
    int burst = o.mode == "stream" ? (o.burst > 0 ? o.burst : std::clamp(static_cast<int>(0.01 / std::max(first, 1e-7)), 4, 1000)) : 1;
    MPI_Bcast(&burst, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int reps = o.reps > 0 ? o.reps : std::clamp(static_cast<int>(o.target_s / (burst * std::max(first, 1e-7))), 8, 20000);
    MPI_Bcast(&reps, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) t.push_back(span(burst));
    if (rank != 0) continue;
    std::sort(t.begin(), t.end());
    const double median = t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
    double mean = 0, var = 0;
    for (double x : t) mean += x;
    mean /= static_cast<double>(t.size());
    for (double x : t) var += (x - mean) * (x - mean);
    const double sd = t.size() > 1 ? std::sqrt(var / static_cast<double>(t.size() - 1)) : 0;
    std::printf("{\"type\":\"record\",\"op\":\"allreduce\",\"params\":{\"bytes\":%lld},\"dtype\":\"f32\",\"algorithm\":\"mpi:default\","
                "\"layout\":%s,\"library\":\"MPI\",\"library_version\":\"%s\",\"host\":\"%s\",\"date\":\"%s\",\"status\":\"ok\",\"verified\":true,"
                "\"repetitions\":%zu,\"seconds\":{\"median\":%.9g,\"min\":%.9g,\"max\":%.9g,\"stddev\":%.9g},\"metrics\":{\"calls_per_span\":%d}}\n",
                bytes, layout.c_str(), library.c_str(), host, date.c_str(), t.size(), median, t.front(), t.back(), sd, burst);
    std::fflush(stdout);
  }
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
