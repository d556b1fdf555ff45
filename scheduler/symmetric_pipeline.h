#pragma once
// Multi-server scheduling of deep stacks of identical layers (GPT-style decoders) on platforms of
// several identical servers per generation, kept small by symmetry.
//
// Within a server, a layer runs tensor-parallel over all its devices (Megatron-LM: each layer's
// GEMMs split over the devices, two all-reduces of the layer's activations per layer in the
// forward pass; Shoeybi et al. 2019); across servers, layers form a pipeline, activations crossing
// the network in shards, one per device and NIC. The server-level problem is then a chain: prefix
// (embedding), L identical layers, suffix (final norm, head).
//
// Without symmetry a program assigns every layer to every server: L x S binaries. With it, two
// facts shrink it to a few integers per server class: identical layers are interchangeable (only
// how many a server gets matters) and identical servers are interchangeable (for the period,
// servers of one class take equal shares, the last of them possibly one fewer). The program
// chooses per class the layers per server and, for latency, how many servers to use.
#include <optional>
#include <string>
#include <vector>

#include "scheduler/schedule.h"

namespace dnnperf {

/// A network as prefix, repeated layers and suffix, in task indices; layers empty if none repeat.
struct LayerStructure {
  std::vector<int> prefix, suffix;
  std::vector<std::vector<int>> layers;
};

/// Finds the longest run of identical consecutive segments (cut at cut points; identical = same
/// tasks with the same costs, parameters and tensors) that repeats at least twice and holds at
/// least half of the network's work.
LayerStructure find_repeated_layers(const TaskGraph& graph);

/// The server-level problem: one pseudo-device per server (its devices working tensor-parallel),
/// tasks prefix, layer 1..L, suffix in a chain.
struct ServerLevelProblem {
  TaskGraph graph;
  Platform platform;
  std::vector<int> class_of_server;
  std::vector<int> servers_per_class;
};

/// Throws InputError if the network has no repeated layers.
ServerLevelProblem server_level_problem(const TaskGraph& graph, const Platform& platform, const LayerStructure& layers);

struct SymmetricResult {
  Schedule schedule;              // on the server-level problem
  std::vector<int> layers_per_server;
  int program_variables = 0;      // of the largest symmetric program
  int programs = 0;               // small programs solved (choices of end servers and spare servers)
  int full_program_binaries = 0;  // L x S: what the program without symmetry would assign
};

/// Solves the symmetric program — one per choice of the classes of the first server (which also
/// runs the prefix) and the last (the suffix), and for throughput per choice of servers kept out
/// of the pipeline to replicate its slowest stage — and expands the best answer into a
/// server-level schedule, layers contiguous per server.
SymmetricResult schedule_symmetric(const ServerLevelProblem& problem, Objective objective, double time_limit_s);

}  // namespace dnnperf
