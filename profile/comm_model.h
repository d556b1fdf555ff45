#pragma once
// The communication section of a profile: the vocabulary of collective models and algorithms
// (names a profile file spells), and FittedCommModel, the parameters `dnnperf fit` found for one
// collective and algorithm. Plain data: how a FittedCommModel prices a message (comm_seconds,
// comm_prediction, comm_seconds_with) is models/comm/fitted_comm_model.h.
//
// The model forms, as models/comm/fitted_comm_model.h evaluates them:
// Communication models fitted to measurements (fitting/comm/ fits them), one per collective and
// algorithm, all pricing the algorithm's steps (comm_steps.h):
//
//   hockney  step = alpha + k beta + r gamma                       (Hockney 1994, with reduction)
//   loggp    step = (L + 2o) + max(g, k G) + r gamma               (Alexandrov et al. 1995)
//   dnnperf  step = ([k < E ? a_e + [k >= F] a_f + k b_e : a_r + k b_r] + max(0, k - C) b_c
//                    + max(0, k - D) b_d + r gamma) (1 + l w_b) + x w_a,   x = max(0, p - P)
//            call = sum of steps + max(0, p - P) w_c
//            l = max(0, q - P), or ceil(q / P) - 1 (the busiest core's extra ranks); q = p, or
//            the step's active ranks (comm_steps.h); each where the fit finds it fits the
//            algorithm clearly better
//
// k: message bytes, r: bytes reduced, p: ranks. dnnperf's model adds what the classics miss on
// real MPI stacks: the eager/rendezvous protocol switch at E (a second latency and bandwidth; a
// message of exactly E bytes goes rendezvous, as Open MPI counts its match header in the limit),
// the fast path below F that small messages take (Open MPI's shared-memory transport writes
// messages of up to a few hundred bytes straight into a per-peer "fast box"; larger eager ones
// take a fragment from a shared pool, a_f more: on the VM 0.1-0.15 us a step from 512 bytes),
// messages that outgrow a cache level C and then D (copies slow down twice: mid-level cache, then
// last-level cache to memory), and ranks beyond P sharing cores or links
// (oversubscription, contention): each step then waits for a peer to be scheduled (w_a per extra
// rank) and copies at a shared rate (w_b), and the call waits once for the last rank to arrive
// (w_c per extra rank: ranks time-sharing cores enter it skewed) — how much the copies slow
// depends on the algorithm: a ring step waits for every rank, so 3 ranks on 2 cores copy as slowly
// as 4 (the VM: ring at 3 ranks 0.93-0.95x its time at 4 for 0.8-12 MB, not the 0.6x that counting
// extra ranks gives), while a fold of recursive doubling keeps a rank idle, and a rank that waits
// yields its core: only a step's active ranks share the cores (Rabenseifner on 3 ranks of the
// 2-core VM takes 3.0-3.1x its 2-rank time from 1 to 16 MB, its steps' sum without any
// oversubscription; counted over all 3 ranks it was priced up to 76% slow) — E as the library reports it
// (MPI_T) and P as the node's CPUs where the records carry them, else chosen from the data like F,
// C and D; the rest fitted.
//
// The library's own choice ("default") runs different algorithms at different sizes and rank
// counts (Open MPI 4.1 on 2 ranks: recursive doubling below 4 KB, ring to 8 KB, recursive doubling
// again to 16 KB, then ring). Where dnnperf's own algorithms were timed beside it, `fit` finds
// which one the library's times match at each measured size; where that map predicts held-out
// sizes better it keeps it (`library_choices`), and the default is priced with the steps of the
// algorithm it runs there, by parameters fitted to its own times.
//
// Parameters were fitted in log space (relative error); their covariance and the residual spread
// give prediction intervals.
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnnperf {

enum class AllReduceAlgorithm { ring, recursive_doubling, rabenseifner, binomial_tree, hierarchical };
inline constexpr AllReduceAlgorithm kAllReduceAlgorithms[] = {
    AllReduceAlgorithm::ring, AllReduceAlgorithm::recursive_doubling, AllReduceAlgorithm::rabenseifner,
    AllReduceAlgorithm::binomial_tree, AllReduceAlgorithm::hierarchical};

std::string_view allreduce_name(AllReduceAlgorithm algorithm);
std::optional<AllReduceAlgorithm> parse_allreduce(std::string_view name);

enum class CommModelKind { hockney, loggp, dnnperf };
std::string_view comm_model_name(CommModelKind kind);

/// True for a library's own algorithm choice as measured ("default": MPI's; "mpi:…", "gloo:…",
/// "nccl:…") rather than an algorithm dnnperf can run: such models are never picked as "best".
bool is_library_choice(std::string_view algorithm);

/// True for the libraries whose own choice a profile may hold: "mpi", "gloo", "nccl".
bool is_library_name(std::string_view name);

/// The fitted model name of a library's own choice: "mpi" -> "default", "gloo" -> "gloo:default".
std::string library_choice_name(std::string_view library);
std::optional<CommModelKind> parse_comm_model(std::string_view name);
/// Names of the fitted parameters of a kind, in order.
const std::vector<std::string>& comm_model_parameters(CommModelKind kind);
/// How many of those, last in the order, profiles fitted before them lack (read as 0: no such cost).
int comm_model_later_parameters(CommModelKind kind);

/// A range of sizes over which a library's own choice runs one algorithm: on `ranks` ranks, from
/// `from_bytes` up to the next range of the same rank count.
struct LibraryChoice {
  int ranks = 0;
  double from_bytes = 0;
  std::string algorithm;  // ring, recursive_doubling, ...: steps as comm_steps.h takes them
};

/// Where a fitted form missed one measured size of one rank count: log(measured / form).
struct SizeCorrection {
  int ranks = 0;
  double bytes = 0;
  double log_ratio = 0;
};

struct CommPrediction {
  double seconds = 0;
  double low = 0;   // 95% prediction interval
  double high = 0;
};

/// How the calls a model was fitted to were issued (`dnnperf bench --mode`, a record's
/// layout.mode): one after a barrier, timed to its slowest rank's end (a latency), or back to
/// back, a burst's time over its calls (a throughput: consecutive calls overlap their start-up
/// and skew, as DDP's gradient buckets do).
enum class CommMode { isolated, stream };
std::string_view comm_mode_name(CommMode mode);
std::optional<CommMode> parse_comm_mode(std::string_view name);

struct FittedCommModel {
  CommModelKind kind = CommModelKind::hockney;
  std::string collective = "allreduce";
  std::string algorithm;           // ring, ..., or default (the library's own choice)
  CommMode mode = CommMode::isolated;  // records without a mode were isolated calls
  std::vector<double> params;      // comm_model_parameters(kind)
  double eager_limit = 0;          // dnnperf: E (bytes): messages below it go eagerly
  double fast_limit = std::numeric_limits<double>::infinity();  // dnnperf: F (bytes): below it, the fast path
  double cache_bytes = 0;          // dnnperf: C (bytes)
  double memory_bytes = 0;         // dnnperf: D (bytes), where copies leave the last cache level
  double oversubscribed_from = 0;  // dnnperf: P (ranks)
  /// dnnperf: the copies slow with the busiest core's extra ranks, ceil(p / P) - 1, rather than
  /// with all extra ranks, p - P (l in the formula above).
  bool busiest_core_load = false;
  /// dnnperf: the copies of a step compete only with its active ranks (CommStep::active) rather
  /// than with all; ranks that wait yield their cores.
  bool active_ranks_load = false;
  /// For a library's own choice: which algorithm it runs where, sorted by ranks, then from_bytes;
  /// empty: unknown (priced as recursive doubling with every rank active).
  std::vector<LibraryChoice> library_choices;
  /// What the form missed at each size it was fitted to (fit's "+sizes" variants, kept where they
  /// predict held-out sizes better), sorted by ranks, then bytes; empty: none. A size between two
  /// measured ones of its rank count takes the correction interpolated linearly in log(bytes),
  /// beyond the measured range the nearest end's; other rank counts none. Narrow features no
  /// smooth form places (a protocol's switch, a band of the library's table where it runs another
  /// algorithm, a cache edge) are then priced where the grid measured them, and the form carries
  /// the shape between and beyond.
  std::vector<SizeCorrection> size_corrections;
  std::vector<double> covariance;  // of params, row-major; empty if unknown
  double residual_sigma = 0;       // standard deviation of log(measured / fitted)
  /// Each rank count the calibration measured, fitted alone (same kind and algorithm; parameters,
  /// thresholds and map of its own), sorted by `fitted_ranks`: `seconds` and `predict` price a measured
  /// rank count by its own model, every other one by this model's parameters, fitted to all rank
  /// counts. Ranks sharing cores interfere in ways that differ from one count to the next (on the
  /// 2-core VM, 3 ranks are not halfway between 2 and 4); one formula over all counts leaves
  /// 11-21% in log at the counts it was fitted to, each count alone 2-9%.
  std::vector<FittedCommModel> at_ranks;
  int fitted_ranks = 0;  // in at_ranks: the rank count it was fitted to
  /// The spread, in log, of this model's errors on rank counts it was not fitted to (`fit` holds
  /// each measured count out in turn): added to the interval of a count priced without a model of
  /// its own, whose error the parameters' covariance does not know. 0: unknown.
  double unmeasured_ranks_sigma = 0;

  /// The model fitted to `ranks` alone, or this one.
  const FittedCommModel& for_ranks(int count) const;

  /// The algorithm whose steps price `bytes` over `ranks`: `algorithm`, or for a library's choice
  /// with a map, the one it runs there (the map's nearest rank count; the lower on a tie).
  std::string_view steps_of(double bytes, int ranks) const;
};

}  // namespace dnnperf
