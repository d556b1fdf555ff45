#pragma once
// ParallelPlan: how one training iteration is spread over devices. Data parallelism now; tensor
// and pipeline degrees will join it and the same Timeline.
#include <optional>
#include <string>

#include "models/comm/allreduce.h"

namespace dnnperf {

struct HardwareProfile;

/// When gradients are all-reduced.
enum class GradientSync {
  bucketed,   // PyTorch DDP: buckets in reverse layer order, each as soon as its gradients exist,
              // overlapping the rest of backward
  per_layer,  // classic MPI trainers: a blocking all-reduce after each layer's backward
  at_end,     // one blocking all-reduce of all gradients after backward
};

struct ParallelPlan {
  int nodes = 1;
  int devices_per_node = 1;
  GradientSync sync = GradientSync::bucketed;
  double bucket_bytes = 25.0 * 1024 * 1024;       // DDP's bucket_cap_mb default
  double first_bucket_bytes = 1.0 * 1024 * 1024;  // DDP's smaller first bucket
  /// Unset: the cheapest algorithm for each all-reduce.
  std::optional<AllReduceAlgorithm> allreduce;
  /// Instead of an algorithm, a library's own choice as measured: "mpi" (MPI's default), "gloo" or
  /// "nccl" (torch.distributed, as DDP calls it). Needs a profile with that fitted model.
  std::string allreduce_library;
  /// The collectives' copies and reductions run on the cores that compute (CPU devices: gloo's and
  /// MPI's progress threads share the sockets), so gradient all-reduces overlap no computation:
  /// they start when backward ends. predict() sets it for CPU profiles.
  bool communication_on_compute_cores = false;

  int data_parallel() const { return nodes * devices_per_node; }
  /// Throws InputError naming the field for a plan the hardware cannot run.
  void validate(const HardwareProfile& hardware) const;
};

}  // namespace dnnperf
