#include "core/graph/graph.h"

#include "core/common/error.h"
#include "core/graph/shape_inference.h"

namespace dnnperf {

int Graph::add_tensor(std::string name, TensorShape shape, DType dtype, TensorRole role) {
  DNNPERF_CHECK(role != TensorRole::activation);
  shape.check_size("tensor '" + name + "'");
  count_elements(shape, "tensor '" + name + "'");
  Tensor t;
  t.name = std::move(name);
  t.shape = shape;
  t.dtype = dtype;
  t.role = role;
  t.requires_grad = role == TensorRole::parameter;
  tensors_.push_back(std::move(t));
  return static_cast<int>(tensors_.size()) - 1;
}

void Graph::check_op_count(std::int64_t ops, const std::string& where) {
  if (ops > kMaxOps)
    throw InputError(where + ": " + std::to_string(ops) + " ops, more than the " + std::to_string(kMaxOps) + " a network may hold (docs/network-format.md, Limits)");
}

std::span<const int> Graph::add_op(OpKind kind, std::string name, OpAttrs attrs, std::vector<int> inputs) {
  if (static_cast<std::int64_t>(ops_.size()) >= kMaxOps) check_op_count(static_cast<std::int64_t>(ops_.size()) + 1, "network '" + name_ + "'");
  thread_local std::vector<const Tensor*> in;
  thread_local std::vector<OutputSpec> out;
  in.clear();
  Op op{kind, std::move(name), std::move(attrs), std::move(inputs), {}};
  const auto context = [&] { return "op '" + op.name + "' (" + std::string(op_kind_name(kind)) + ")"; };
  bool requires_grad = false;
  for (int index : op.inputs) {
    if (index < 0 || index >= static_cast<int>(tensors_.size()))
      throw InputError(context() + ": input tensor index " + std::to_string(index) + " does not exist");
    in.push_back(&tensors_[static_cast<std::size_t>(index)]);
    requires_grad = requires_grad || tensors_[static_cast<std::size_t>(index)].requires_grad;
  }
  try {
    infer_output_shapes(op, in, out);
    const std::int64_t before = elements_;
    try {
      for (const OutputSpec& spec : out) {
        spec.shape.check_size("output");
        count_elements(spec.shape, "output");
      }
    } catch (const InputError&) {
      elements_ = before;  // the graph is left unchanged
      throw;
    }
  } catch (const InputError& e) {
    throw with_context(context(), e);
  }
  const int op_index = static_cast<int>(ops_.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    Tensor t;
    t.name = out.size() == 1 ? op.name : op.name + ":" + std::to_string(i);
    t.shape = out[i].shape;
    t.dtype = out[i].dtype;
    t.role = TensorRole::activation;
    t.producer = op_index;
    t.requires_grad = requires_grad && is_floating(out[i].dtype);
    tensors_.push_back(std::move(t));
    op.outputs.push_back(static_cast<int>(tensors_.size()) - 1);
  }
  ops_.push_back(std::move(op));
  return ops_.back().outputs;
}

void Graph::count_elements(const TensorShape& shape, const std::string& what) {
  const std::int64_t n = shape.numel();
  if (n > kMaxGraphElements - elements_)
    throw InputError(what + ": the network would hold more than 2^56 (" + std::to_string(kMaxGraphElements) +
                     ") tensor elements in all, the most one network may hold");
  elements_ += n;
}

std::vector<int> Graph::consumer_counts() const {
  std::vector<int> counts(tensors_.size(), 0);
  for (const Op& op : ops_)
    for (int index : op.inputs) ++counts[static_cast<std::size_t>(index)];
  return counts;
}

std::int64_t Graph::parameter_count() const {
  std::int64_t n = 0;
  for (const Tensor& t : tensors_)
    if (t.role == TensorRole::parameter) n += t.shape.numel();
  return n;
}

}  // namespace dnnperf
