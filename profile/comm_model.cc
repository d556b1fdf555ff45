#include "profile/comm_model.h"

#include <cmath>

namespace dnnperf {

std::string_view allreduce_name(AllReduceAlgorithm a) {
  switch (a) {
    case AllReduceAlgorithm::ring: return "ring";
    case AllReduceAlgorithm::recursive_doubling: return "recursive_doubling";
    case AllReduceAlgorithm::rabenseifner: return "rabenseifner";
    case AllReduceAlgorithm::binomial_tree: return "binomial_tree";
    case AllReduceAlgorithm::hierarchical: return "hierarchical";
  }
  return "?";
}

std::optional<AllReduceAlgorithm> parse_allreduce(std::string_view name) {
  for (AllReduceAlgorithm a : kAllReduceAlgorithms)
    if (allreduce_name(a) == name) return a;
  if (name == "tree" || name == "binomial") return AllReduceAlgorithm::binomial_tree;
  if (name == "rd") return AllReduceAlgorithm::recursive_doubling;
  return std::nullopt;
}

bool is_library_choice(std::string_view algorithm) {
  return algorithm == "default" || algorithm.find(':') != std::string_view::npos;
}

bool is_library_name(std::string_view name) { return name == "mpi" || name == "gloo" || name == "nccl"; }

std::string library_choice_name(std::string_view library) {
  return library == "mpi" ? "default" : std::string(library) + ":default";
}

std::string_view comm_model_name(CommModelKind kind) {
  switch (kind) {
    case CommModelKind::hockney: return "hockney";
    case CommModelKind::loggp: return "loggp";
    case CommModelKind::dnnperf: return "dnnperf";
  }
  return "?";
}

std::string_view comm_mode_name(CommMode mode) { return mode == CommMode::stream ? "stream" : "isolated"; }

std::optional<CommMode> parse_comm_mode(std::string_view name) {
  if (name == "isolated") return CommMode::isolated;
  if (name == "stream") return CommMode::stream;
  return std::nullopt;
}

std::optional<CommModelKind> parse_comm_model(std::string_view name) {
  for (CommModelKind k : {CommModelKind::hockney, CommModelKind::loggp, CommModelKind::dnnperf})
    if (comm_model_name(k) == name) return k;
  return std::nullopt;
}

const std::vector<std::string>& comm_model_parameters(CommModelKind kind) {
  static const std::vector<std::string> hockney = {"alpha_s", "beta_s_per_byte", "gamma_s_per_byte"};
  static const std::vector<std::string> loggp = {"latency_s", "gap_s", "G_s_per_byte", "gamma_s_per_byte"};
  static const std::vector<std::string> dnnperf = {"alpha_eager_s", "beta_eager_s_per_byte", "alpha_rendezvous_s",
                                                   "beta_rendezvous_s_per_byte", "beta_out_of_cache_s_per_byte",
                                                   "gamma_s_per_byte", "oversubscribed_latency_s_per_rank",
                                                   "oversubscribed_slowdown_per_rank", "beta_out_of_last_cache_s_per_byte", "oversubscribed_call_latency_s_per_rank",
                                                   "alpha_past_fast_path_s"};
  switch (kind) {
    case CommModelKind::hockney: return hockney;
    case CommModelKind::loggp: return loggp;
    case CommModelKind::dnnperf: return dnnperf;
  }
  return hockney;
}

int comm_model_later_parameters(CommModelKind kind) { return kind == CommModelKind::dnnperf ? 2 : 0; }

std::string_view FittedCommModel::steps_of(double bytes, int ranks) const {
  if (library_choices.empty()) return algorithm;
  int nearest = library_choices.front().ranks;
  for (const LibraryChoice& c : library_choices)
    if (std::abs(c.ranks - ranks) < std::abs(nearest - ranks)) nearest = c.ranks;
  std::string_view pick = algorithm;
  for (const LibraryChoice& c : library_choices)
    if (c.ranks == nearest && (c.from_bytes <= bytes || pick == algorithm)) pick = c.algorithm;
  return pick;
}

const FittedCommModel& FittedCommModel::for_ranks(int count) const {
  for (const FittedCommModel& m : at_ranks)
    if (m.fitted_ranks == count) return m;
  return *this;
}

}  // namespace dnnperf
