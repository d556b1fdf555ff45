#pragma once
// Graph: the network IR, a DAG of ops over tensors.
//
// Ops are appended in topological order by construction: an op may read only tensors that already
// exist, so a Graph can never hold a cycle (importers sort their nodes first and report cycles).
// add_op() infers and checks the output shapes at once; an op that does not fit its inputs throws
// InputError naming the op, and the graph is left unchanged.
//
// Prefer NetworkBuilder (network_builder.h) to build networks: it creates each op's parameters.
#include <span>
#include <string>
#include <vector>

#include "core/graph/op.h"
#include "core/graph/tensor.h"

namespace dnnperf {

class Graph {
 public:
  explicit Graph(std::string name = "network") : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  /// The most elements all of a graph's tensors may hold together: 2^56, so that any sum over a
  /// network (parameters, activation bytes at 8 bytes an element) stays exact in int64.
  static constexpr std::int64_t kMaxGraphElements = std::int64_t{1} << 56;
  /// The most ops a graph may hold: 2^18 (262,144). The zoo's largest decoder (4096 layers) has
  /// 123,000; a graph's ops, their kernels and a step's summary take about 2 kB each, so that
  /// every command stays within 1 GB.
  static constexpr std::int64_t kMaxOps = std::int64_t{1} << 18;
  /// Throws InputError naming `where` when a network of `ops` ops would pass kMaxOps: importers
  /// call it before building, so that a file of a million layers is refused at once.
  static void check_op_count(std::int64_t ops, const std::string& where);

  /// Adds a tensor that no op produces (role input, parameter, buffer or constant). Parameters
  /// get requires_grad. Throws InputError on a non-positive dimension or a size past
  /// kMaxTensorElements (one tensor) or kMaxGraphElements (all of them).
  int add_tensor(std::string name, TensorShape shape, DType dtype, TensorRole role);

  /// Appends an op reading `inputs`, infers its outputs and returns their indices.
  /// Throws InputError (naming the op) if the inputs do not fit the kind and attributes.
  std::span<const int> add_op(OpKind kind, std::string name, OpAttrs attrs, std::vector<int> inputs);

  /// Appends an op whose single output is returned.
  int add_op1(OpKind kind, std::string name, OpAttrs attrs, std::vector<int> inputs) {
    return add_op(kind, std::move(name), std::move(attrs), std::move(inputs)).front();
  }

  const std::vector<Tensor>& tensors() const { return tensors_; }
  const Tensor& tensor(int index) const { return tensors_[static_cast<std::size_t>(index)]; }
  const std::vector<Op>& ops() const { return ops_; }
  const Op& op(int index) const { return ops_[static_cast<std::size_t>(index)]; }

  /// Makes an input tensor one whose gradient the step computes: the activation entering a layer
  /// cut out of a network (large-model planning prices one layer alone). Call before any op reads it.
  void mark_requires_grad(int tensor) { tensors_[static_cast<std::size_t>(tensor)].requires_grad = true; }

  /// Marks a tensor as a result of the network (the loss, the logits).
  void mark_output(int tensor) { outputs_.push_back(tensor); }
  const std::vector<int>& outputs() const { return outputs_; }

  /// Number of ops reading each tensor (indexed like tensors()).
  std::vector<int> consumer_counts() const;
  /// Total elements of all parameter tensors.
  std::int64_t parameter_count() const;

  void reserve(std::size_t ops, std::size_t tensors) {
    ops_.reserve(ops);
    tensors_.reserve(tensors);
  }

 private:
  std::string name_;
  std::vector<Tensor> tensors_;
  std::vector<Op> ops_;
  std::vector<int> outputs_;
  std::int64_t elements_ = 0;  // over every tensor, bounded by kMaxGraphElements

  void count_elements(const TensorShape& shape, const std::string& what);
};

}  // namespace dnnperf
