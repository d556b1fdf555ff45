#include "networks/import/onnx_import.h"

#include <fstream>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "core/common/input_file.h"
#include "core/common/error.h"
#include "networks/import/onnx_constants.h"

namespace dnnperf {
namespace {

using onnx_import::ConstValue;
using onnx_import::float_attribute;
using onnx_import::int_attribute;
using onnx_import::ints_attribute;

struct Value {
  int tensor = -1;      // IR tensor, once the value is one
  ConstValue known;     // shape, dtype and (small) data of a value that is not an IR tensor yet
  bool weight = false;  // a float initializer: a parameter or buffer when an op reads it
  // Spatial padding (top, left, bottom, right) that a Pad node put in front of this value; only a
  // convolution or pooling may read it, and it takes the padding over as its own.
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
  bool padded = false;
};

class Importer {
 public:
  Importer(const onnx::ModelProto& model, std::string source, const ImportOptions& options)
      : model_(model), source_(std::move(source)), options_(options), graph_(model.graph().name().empty() ? "onnx" : model.graph().name()) {
    for (const auto& o : model.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") {
        // An opset this importer does not know may change what an operator's inputs mean.
        if (o.version() < 1 || o.version() > kNewestOpset)
          throw InputError(source_ + ": opset " + std::to_string(o.version()) + " is outside the opsets 1 to " + std::to_string(kNewestOpset) +
                           " this importer reads");
        opset_ = static_cast<int>(o.version());
      }
  }

  Graph run() {
    const onnx::GraphProto& g = model_.graph();
    for (const auto& init : g.initializer()) {
      Value v;
      v.known = onnx_import::read_tensor_proto(init, source_);
      v.weight = is_floating(v.known.dtype) && v.known.numel() > 1;
      values_[init.name()] = std::move(v);
    }
    for (const auto& in : g.input()) {
      if (values_.count(in.name())) continue;  // an initializer listed as an input (old exporters)
      add_graph_input(in);
    }
    for (int index : topological_order()) convert(g.node(index));
    // Without its outputs a graph says nothing of what is computed; a checker would refuse it.
    if (g.output_size() == 0) throw InputError(source_ + ": the graph declares no outputs");
    for (const auto& out : g.output()) {
      const auto it = values_.find(out.name());
      if (it == values_.end()) throw InputError(source_ + ": graph output '" + out.name() + "' is produced by no node, input or initializer");
      if (it->second.tensor >= 0) graph_.mark_output(it->second.tensor);
    }
    if (graph_.ops().empty()) throw InputError(source_ + ": the graph has no operators dnnperf can price");
    return std::move(graph_);
  }

 private:
  [[noreturn]] void fail(const onnx::NodeProto& node, const std::string& message) const {
    throw InputError(source_ + ": node '" + node_name(node) + "' (" + node.op_type() + "): " + message);
  }

  static std::string node_name(const onnx::NodeProto& node) {
    if (!node.name().empty()) return node.name();
    return node.output_size() ? node.output(0) : node.op_type();
  }

  void add_graph_input(const onnx::ValueInfoProto& in) {
    const std::string where = source_ + ": graph input '" + in.name() + "'";
    if (!in.type().has_tensor_type()) throw InputError(where + " is not a tensor");
    const auto& tt = in.type().tensor_type();
    if (!tt.has_shape()) throw InputError(where + " has no shape; export the model with its input shapes");
    const auto dtype = onnx_import::dtype_from_onnx(tt.elem_type());
    if (!dtype) throw InputError(where + " has unsupported element type " + std::to_string(tt.elem_type()));
    TensorShape shape;
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      std::int64_t size = d.has_dim_value() ? d.dim_value() : -1;
      if (i == 0 && options_.batch) size = *options_.batch;
      if (size < 0 && i == 0) size = 1;  // a symbolic batch defaults to 1
      if (size <= 0)
        throw InputError(where + ": dimension " + std::to_string(i) + " is " +
                         (d.has_dim_param() ? "symbolic ('" + d.dim_param() + "')" : "not positive") +
                         "; export the model with fixed sizes");
      shape.push_back(size);
    }
    Value v;
    v.tensor = graph_.add_tensor(in.name(), shape, *dtype, TensorRole::input);
    values_[in.name()] = std::move(v);
  }

  std::vector<int> topological_order() const {
    const onnx::GraphProto& g = model_.graph();
    Graph::check_op_count(g.node_size(), source_ + ": graph.node");
    std::map<std::string, int> producer;
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& out : g.node(i).output())
        if (!out.empty()) producer[out] = i;
    std::vector<int> pending(static_cast<std::size_t>(g.node_size()), 0);
    std::vector<std::vector<int>> dependents(static_cast<std::size_t>(g.node_size()));
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& in : g.node(i).input()) {
        if (in.empty() || values_.count(in)) continue;
        const auto it = producer.find(in);
        if (it == producer.end()) fail(g.node(i), "input '" + in + "' is produced by no node, input or initializer");
        ++pending[static_cast<std::size_t>(i)];
        dependents[static_cast<std::size_t>(it->second)].push_back(i);
      }
    std::vector<int> order;
    for (int i = 0; i < g.node_size(); ++i)
      if (pending[static_cast<std::size_t>(i)] == 0) order.push_back(i);
    for (std::size_t head = 0; head < order.size(); ++head)
      for (int d : dependents[static_cast<std::size_t>(order[head])])
        if (--pending[static_cast<std::size_t>(d)] == 0) order.push_back(d);
    if (order.size() != static_cast<std::size_t>(g.node_size()))
      for (int i = 0; i < g.node_size(); ++i)
        if (pending[static_cast<std::size_t>(i)] > 0) fail(g.node(i), "the graph has a cycle through this node");
    return order;
  }

  Value& value(const onnx::NodeProto& node, int i) {
    if (i >= node.input_size() || node.input(i).empty()) fail(node, "input " + std::to_string(i) + " is missing");
    const auto it = values_.find(node.input(i));
    if (it == values_.end()) fail(node, "input '" + node.input(i) + "' is not available (an output dnnperf does not model?)");
    return it->second;
  }
  bool has_input(const onnx::NodeProto& node, int i) const { return i < node.input_size() && !node.input(i).empty(); }

  /// The IR tensor for input i, creating it for an initializer or constant on first use.
  int tensor(const onnx::NodeProto& node, int i, TensorRole weight_role = TensorRole::parameter) {
    Value& v = value(node, i);
    if (v.padded) fail(node, "reads the output of a Pad node; only Conv and pooling can absorb padding");
    if (v.tensor >= 0) return v.tensor;
    const TensorRole role = v.weight ? weight_role : TensorRole::constant;
    v.tensor = graph_.add_tensor(node.input(i), TensorShape(std::span<const std::int64_t>(v.known.shape)), v.known.dtype, role);
    return v.tensor;
  }

  /// Values of a constant input (shape arguments); fails when it is not a known constant.
  std::vector<std::int64_t> constant_ints(const onnx::NodeProto& node, int i) {
    const Value& v = value(node, i);
    if (v.tensor >= 0 || !v.known.has_data)
      fail(node, "input '" + node.input(i) + "' must be a constant the importer can compute");
    return v.known.integers();
  }
  double constant_scalar(const onnx::NodeProto& node, int i) {
    const Value& v = value(node, i);
    if (v.tensor >= 0 || !v.known.has_data || v.known.data.empty()) fail(node, "input '" + node.input(i) + "' must be a constant");
    return v.known.data[0];
  }

  const TensorShape& shape_of(int tensor) const { return graph_.tensor(tensor).shape; }

  void define(const onnx::NodeProto& node, int output, int tensor) {
    if (output >= node.output_size() || node.output(output).empty()) return;
    Value v;
    v.tensor = tensor;
    values_[node.output(output)] = std::move(v);
  }

  int add(const onnx::NodeProto& node, OpKind kind, const OpAttrs& attrs, std::vector<int> inputs, const std::string& suffix = "") {
    try {
      return graph_.add_op1(kind, node_name(node) + suffix, attrs, std::move(inputs));
    } catch (const InputError& e) {
      const std::string hint = options_.batch && kind == OpKind::reshape
                                   ? " (with the batch overridden: was the model exported with a fixed batch baked into "
                                     "its reshapes? export it with a dynamic batch axis)"
                                   : "";
      throw InputError(source_ + ": node '" + node_name(node) + "' (" + node.op_type() + "): " + e.what() + hint);
    }
  }

  void check_unused_outputs(const onnx::NodeProto& node, int used) {
    for (int i = used; i < node.output_size(); ++i)
      if (!node.output(i).empty()) unmodelled_.insert(node.output(i));
  }

  bool try_fold(const onnx::NodeProto& node) {
    std::vector<const ConstValue*> in;
    std::vector<ConstValue> shapes;  // shape-only views of IR tensors, for Shape and Size
    shapes.reserve(static_cast<std::size_t>(node.input_size()));
    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i).empty()) {
        in.push_back(nullptr);
        continue;
      }
      const Value& v = value(node, i);
      if (v.weight && node.op_type() != "Shape" && node.op_type() != "Size") return false;
      if (v.tensor >= 0) {
        ConstValue s;
        const TensorShape& shape = shape_of(v.tensor);
        s.shape.assign(shape.dims().begin(), shape.dims().end());
        s.dtype = graph_.tensor(v.tensor).dtype;
        shapes.push_back(std::move(s));
        in.push_back(&shapes.back());
      } else {
        in.push_back(&v.known);
      }
    }
    std::optional<std::vector<ConstValue>> out;
    try {
      out = onnx_import::fold_node(node, in, opset_);
    } catch (const InputError& e) {
      throw with_context(source_, e);
    }
    if (!out) return false;
    for (std::size_t i = 0; i < out->size() && i < static_cast<std::size_t>(node.output_size()); ++i) {
      Value v;
      v.known = std::move((*out)[i]);
      values_[node.output(static_cast<int>(i))] = std::move(v);
    }
    return true;
  }

  void convert(const onnx::NodeProto& node) {
    for (const auto& in : node.input())
      if (unmodelled_.count(in)) fail(node, "reads '" + in + "', an output dnnperf does not model (e.g. a Dropout mask or MaxPool indices)");
    if (!node.domain().empty() && node.domain() != "ai.onnx") fail(node, "operator domain '" + node.domain() + "' is not supported");
    if (try_fold(node)) return;
    const std::string& op = node.op_type();
    if (op == "Conv") return conv(node);
    if (op == "Gemm") return gemm(node);
    if (op == "MatMul") return binary_op(node, OpKind::matmul);
    if (op == "BatchNormalization") return batch_norm(node);
    if (op == "LayerNormalization") return layer_norm(node);
    if (op == "MaxPool" || op == "AveragePool") return pool(node);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
      OpAttrs a;
      define(node, 0, add(node, op == "GlobalAveragePool" ? OpKind::adaptive_avg_pool2d : OpKind::adaptive_max_pool2d, a, {tensor(node, 0)}));
      return;
    }
    static const std::map<std::string, OpKind> kUnary = {
        {"Relu", OpKind::relu}, {"Sigmoid", OpKind::sigmoid}, {"Tanh", OpKind::tanh}, {"Erf", OpKind::erf},
        {"Sqrt", OpKind::sqrt}, {"Exp", OpKind::exp}, {"Neg", OpKind::neg}, {"Reciprocal", OpKind::reciprocal},
        {"HardSwish", OpKind::hardswish}, {"HardSigmoid", OpKind::hardsigmoid}, {"Gelu", OpKind::gelu},
        {"Clip", OpKind::relu6}};
    if (const auto it = kUnary.find(op); it != kUnary.end()) {
      define(node, 0, add(node, it->second, {}, {tensor(node, 0)}));
      return;
    }
    static const std::map<std::string, OpKind> kBinary = {
        {"Add", OpKind::add}, {"Sub", OpKind::sub}, {"Mul", OpKind::mul}, {"Div", OpKind::div}, {"Pow", OpKind::pow}};
    if (const auto it = kBinary.find(op); it != kBinary.end()) return binary_op(node, it->second);
    if (op == "Softmax" || op == "LogSoftmax") {
      OpAttrs a;
      a.axis = int_attribute(node, "axis", opset_ >= 13 ? -1 : 1);
      define(node, 0, add(node, op == "Softmax" ? OpKind::softmax : OpKind::log_softmax, a, {tensor(node, 0)}));
      return;
    }
    if (op == "ReduceMean") {
      OpAttrs a;
      a.axes = has_input(node, 1) ? constant_ints(node, 1) : ints_attribute(node, "axes");
      a.keepdims = int_attribute(node, "keepdims", 1) != 0;
      define(node, 0, add(node, OpKind::reduce_mean, a, {tensor(node, 0)}));
      return;
    }
    if (op == "Dropout") return dropout(node);
    if (op == "Identity") {
      // The exporter deduplicates equal initializers (identical copies of a layer) and hands each
      // copy out through an Identity: every such copy is a parameter of its own in PyTorch.
      const Value& in = value(node, 0);
      if (in.tensor < 0 && in.weight) {
        values_[node.output(0)] = in;
        return;
      }
      define(node, 0, tensor(node, 0));
      return;
    }
    if (op == "Pad") return pad(node);
    if (op == "Cast") {
      const auto to = onnx_import::dtype_from_onnx(static_cast<int>(int_attribute(node, "to", 1)));
      if (!to) fail(node, "casts to an unsupported element type");
      const int x = tensor(node, 0);
      if (graph_.tensor(x).dtype == *to) return define(node, 0, x);
      OpAttrs a;
      a.to = *to;
      define(node, 0, add(node, OpKind::cast, a, {x}));
      return;
    }
    if (op == "Concat") {
      OpAttrs a;
      a.axis = int_attribute(node, "axis", 0);
      std::vector<int> in;
      for (int i = 0; i < node.input_size(); ++i) in.push_back(tensor(node, i));
      define(node, 0, add(node, OpKind::concat, a, in));
      return;
    }
    if (op == "Split") return split(node);
    if (op == "Flatten") {
      OpAttrs a;
      a.axis = int_attribute(node, "axis", 1);
      define(node, 0, add(node, OpKind::flatten, a, {tensor(node, 0)}));
      return;
    }
    if (op == "Reshape") {
      OpAttrs a;
      a.shape = constant_ints(node, 1);
      if (int_attribute(node, "allowzero", 0) != 0 && std::count(a.shape.begin(), a.shape.end(), 0))
        fail(node, "allowzero=1 with a zero in the target shape is not supported");
      define(node, 0, add(node, OpKind::reshape, a, {tensor(node, 0)}));
      return;
    }
    if (op == "Squeeze" || op == "Unsqueeze") return squeeze(node);
    if (op == "Transpose") return transpose(node);
    if (op == "Slice") return slice(node);
    if (op == "Gather") return gather(node);
    fail(node, "operator not supported: dnnperf cannot price it");
  }

  /// The input of a Conv or pooling node; `absorbed` receives the padding of a preceding Pad node.
  int padded_input(const onnx::NodeProto& node, std::array<std::int64_t, 4>& absorbed) {
    Value& v = value(node, 0);
    absorbed = {0, 0, 0, 0};
    if (!v.padded) return tensor(node, 0);
    if (node.op_type() == "MaxPool") fail(node, "a Pad before MaxPool (padding with zeros, not -inf) is not supported");
    absorbed = v.pads;
    return v.tensor;
  }

  static void absorb(OpAttrs& a, const std::array<std::int64_t, 4>& pads) {
    for (std::size_t i = 0; i < 2; ++i) {
      a.pad_begin[i] += pads[i];
      a.pad_end[i] += pads[i + 2];
    }
  }

  void pad(const onnx::NodeProto& node) {
    const auto* mode = onnx_import::find_attribute(node, "mode");
    if (mode && mode->s() != "constant") fail(node, "only constant padding is supported, not '" + mode->s() + "'");
    const std::vector<std::int64_t> pads = opset_ >= 11 ? constant_ints(node, 1) : ints_attribute(node, "pads");
    if (has_input(node, 2) && constant_scalar(node, 2) != 0) fail(node, "padding with a non-zero value is not supported");
    const int x = tensor(node, 0);
    const int rank = shape_of(x).rank();
    if (static_cast<int>(pads.size()) != 2 * rank) fail(node, "pads must have 2 x rank entries");
    for (int d = 0; d < rank; ++d)
      if (pads[static_cast<std::size_t>(d)] < 0 || pads[static_cast<std::size_t>(d + rank)] < 0 ||
          (d < rank - 2 && (pads[static_cast<std::size_t>(d)] != 0 || pads[static_cast<std::size_t>(d + rank)] != 0)))
        fail(node, "only non-negative padding of the two spatial dimensions is supported");
    Value v;
    v.tensor = x;
    if (rank == 4) {
      v.pads = {pads[2], pads[3], pads[6], pads[7]};
      v.padded = v.pads != std::array<std::int64_t, 4>{0, 0, 0, 0};
    }
    values_[node.output(0)] = v;
  }

  /// A 2-D attribute (strides, dilations): `fallback` where absent; two values otherwise, or an
  /// error (a 1-D or 3-D list would otherwise be dropped without a word).
  std::array<std::int64_t, 2> pair_attribute(const onnx::NodeProto& node, const char* name, std::array<std::int64_t, 2> fallback) const {
    const auto v = ints_attribute(node, name);
    if (v.empty()) return fallback;
    if (v.size() != 2) fail(node, std::string(name) + " must hold 2 values for a 2-D operator, holds " + std::to_string(v.size()));
    return {v[0], v[1]};
  }

  void conv(const onnx::NodeProto& node) {
    OpAttrs a;
    std::array<std::int64_t, 4> absorbed{};
    const int x = padded_input(node, absorbed);
    const int w = tensor(node, 1);
    const TensorShape& ws = shape_of(w);
    const TensorShape& xs = shape_of(x);
    if (ws.rank() != 4 || xs.rank() != 4) fail(node, "only 2-D convolutions are supported (input " + xs.to_string() + ", weight " + ws.to_string() + ")");
    a.out_features = ws[0];
    a.kernel = {ws[2], ws[3]};
    if (const auto kernel = ints_attribute(node, "kernel_shape"); !kernel.empty() && kernel != std::vector<std::int64_t>{ws[2], ws[3]})
      fail(node, "kernel_shape " + TensorShape(kernel).to_string() + " does not match the weight's " + std::to_string(ws[2]) + "x" + std::to_string(ws[3]));
    a.groups = int_attribute(node, "group", 1);
    a.stride = pair_attribute(node, "strides", a.stride);
    a.dilation = pair_attribute(node, "dilations", a.dilation);
    set_pads(node, a, xs);
    absorb(a, absorbed);
    a.bias = has_input(node, 2);
    std::vector<int> in{x, w};
    if (a.bias) in.push_back(tensor(node, 2));
    define(node, 0, add(node, OpKind::conv2d, a, in));
  }

  void set_pads(const onnx::NodeProto& node, OpAttrs& a, const TensorShape& xs) {
    const auto* auto_pad = onnx_import::find_attribute(node, "auto_pad");
    const std::string mode = auto_pad ? auto_pad->s() : "NOTSET";
    if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      for (std::size_t i = 0; i < 2; ++i) {
        const std::int64_t in = xs[static_cast<int>(i) + 2], s = a.stride[i];
        const std::int64_t out = (in + s - 1) / s;
        const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s + (a.kernel[i] - 1) * a.dilation[i] + 1 - in);
        a.pad_begin[i] = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
        a.pad_end[i] = total - a.pad_begin[i];
      }
      return;
    }
    if (mode != "NOTSET" && mode != "VALID") fail(node, "auto_pad '" + mode + "' is not supported");
    const auto pads = ints_attribute(node, "pads");
    if (pads.size() == 4) {
      a.pad_begin = {pads[0], pads[1]};
      a.pad_end = {pads[2], pads[3]};
    } else if (!pads.empty()) {
      fail(node, "pads must have 4 entries for a 2-D window");
    }
  }

  void gemm(const onnx::NodeProto& node) {
    if (int_attribute(node, "transA", 0) != 0) fail(node, "transA=1 is not supported");
    const int x = tensor(node, 0);
    const bool trans_b = int_attribute(node, "transB", 0) != 0;
    const int w = tensor(node, 1);
    int y = -1;
    const bool bias = has_input(node, 2);
    const int c = bias ? tensor(node, 2) : -1;
    if (trans_b) {
      OpAttrs a;
      a.out_features = shape_of(w)[0];
      const bool fused_bias = bias && shape_of(c) == TensorShape{a.out_features};
      a.bias = fused_bias;
      std::vector<int> in{x, w};
      if (fused_bias) in.push_back(c);
      y = add(node, OpKind::linear, a, in);
      if (bias && !fused_bias) y = add(node, OpKind::add, {}, {y, c}, "/bias");
    } else {
      y = add(node, OpKind::matmul, {}, {x, w});
      if (bias) y = add(node, OpKind::add, {}, {y, c}, "/bias");
    }
    define(node, 0, y);
  }

  void binary_op(const onnx::NodeProto& node, OpKind kind) {
    define(node, 0, add(node, kind, {}, {tensor(node, 0), tensor(node, 1)}));
  }

  void batch_norm(const onnx::NodeProto& node) {
    OpAttrs a;
    a.eps = float_attribute(node, "epsilon", 1e-5f);
    std::vector<int> in{tensor(node, 0), tensor(node, 1), tensor(node, 2), tensor(node, 3, TensorRole::buffer),
                        tensor(node, 4, TensorRole::buffer)};
    define(node, 0, add(node, OpKind::batch_norm, a, in));
    check_unused_outputs(node, 1);
  }

  void layer_norm(const onnx::NodeProto& node) {
    const int x = tensor(node, 0);
    const int rank = shape_of(x).rank();
    std::int64_t axis = int_attribute(node, "axis", -1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) fail(node, "axis is out of range");
    OpAttrs a;
    a.eps = float_attribute(node, "epsilon", 1e-5f);
    a.normalized_dims = rank - axis;
    a.bias = has_input(node, 2);
    std::vector<int> in{x, tensor(node, 1)};
    if (a.bias) in.push_back(tensor(node, 2));
    define(node, 0, add(node, OpKind::layer_norm, a, in));
    check_unused_outputs(node, 1);
  }

  void pool(const onnx::NodeProto& node) {
    OpAttrs a;
    std::array<std::int64_t, 4> absorbed{};
    const int x = padded_input(node, absorbed);
    const auto kernel = ints_attribute(node, "kernel_shape");
    if (kernel.size() != 2) fail(node, "only 2-D pooling is supported");
    a.kernel = {kernel[0], kernel[1]};
    a.stride = pair_attribute(node, "strides", a.stride);
    a.dilation = pair_attribute(node, "dilations", a.dilation);
    a.ceil_mode = int_attribute(node, "ceil_mode", 0) != 0;
    // Zeros padded by a Pad node are counted by the average, as count_include_pad does.
    a.count_include_pad = int_attribute(node, "count_include_pad", 0) != 0 || absorbed != std::array<std::int64_t, 4>{};
    set_pads(node, a, shape_of(x));
    absorb(a, absorbed);
    define(node, 0, add(node, node.op_type() == "MaxPool" ? OpKind::max_pool2d : OpKind::avg_pool2d, a, {x}));
    check_unused_outputs(node, 1);
  }

  void dropout(const onnx::NodeProto& node) {
    const int x = tensor(node, 0);
    double p = opset_ >= 12 ? (has_input(node, 1) ? constant_scalar(node, 1) : 0.5) : float_attribute(node, "ratio", 0.5f);
    const bool training = opset_ >= 12 && has_input(node, 2) && constant_scalar(node, 2) != 0;
    check_unused_outputs(node, 1);
    if (!training || p == 0) return define(node, 0, x);
    OpAttrs a;
    a.p = p;
    define(node, 0, add(node, OpKind::dropout, a, {x}));
  }

  void split(const onnx::NodeProto& node) {
    const int x = tensor(node, 0);
    OpAttrs a;
    a.axis = int_attribute(node, "axis", 0);
    a.split_sizes = opset_ >= 13 ? (has_input(node, 1) ? constant_ints(node, 1) : std::vector<std::int64_t>{}) : ints_attribute(node, "split");
    if (a.split_sizes.empty()) {
      const int axis = shape_of(x).normalize_axis(static_cast<int>(a.axis));
      const std::int64_t n = node.output_size(), dim = shape_of(x)[axis], part = (dim + n - 1) / n;
      for (std::int64_t i = 0; i < n; ++i) a.split_sizes.push_back(std::min(part, dim - part * i));
    }
    std::span<const int> out;
    try {
      out = graph_.add_op(OpKind::split, node_name(node), a, {x});
    } catch (const InputError& e) {
      throw with_context(source_ + ": node '" + node_name(node) + "' (Split)", e);
    }
    const std::vector<int> outputs(out.begin(), out.end());
    for (std::size_t i = 0; i < outputs.size(); ++i) define(node, static_cast<int>(i), outputs[i]);
  }

  void squeeze(const onnx::NodeProto& node) {
    const int x = tensor(node, 0);
    const TensorShape& s = shape_of(x);
    std::vector<std::int64_t> axes = opset_ >= 13 ? (has_input(node, 1) ? constant_ints(node, 1) : std::vector<std::int64_t>{}) : ints_attribute(node, "axes");
    std::vector<std::int64_t> dims(s.dims().begin(), s.dims().end());
    if (node.op_type() == "Unsqueeze") {
      const int rank = s.rank() + static_cast<int>(axes.size());
      for (auto& a : axes) a = a < 0 ? a + rank : a;
      std::sort(axes.begin(), axes.end());
      for (std::int64_t a : axes) {
        if (a < 0 || a > static_cast<std::int64_t>(dims.size())) fail(node, "axis out of range");
        dims.insert(dims.begin() + a, 1);
      }
    } else if (axes.empty()) {
      dims.erase(std::remove(dims.begin(), dims.end(), 1), dims.end());
    } else {
      for (auto& a : axes) a = s.normalize_axis(static_cast<int>(a));
      std::sort(axes.rbegin(), axes.rend());
      for (std::int64_t a : axes) {
        if (dims[static_cast<std::size_t>(a)] != 1) fail(node, "squeezes axis " + std::to_string(a) + " of size " + std::to_string(dims[static_cast<std::size_t>(a)]));
        dims.erase(dims.begin() + a);
      }
    }
    OpAttrs a;
    a.shape = dims;
    define(node, 0, add(node, OpKind::reshape, a, {x}));
  }

  void transpose(const onnx::NodeProto& node) {
    Value& in = value(node, 0);
    OpAttrs a;
    a.perm = ints_attribute(node, "perm");
    const std::size_t rank = in.tensor >= 0 ? static_cast<std::size_t>(shape_of(in.tensor).rank()) : in.known.shape.size();
    if (a.perm.empty())
      for (std::size_t i = rank; i-- > 0;) a.perm.push_back(static_cast<std::int64_t>(i));
    if (in.tensor < 0 && in.weight) {
      // A transposed weight (an exporter's layout change, not work done every step): the weight
      // stays a parameter, seen with the permuted shape.
      if (a.perm.size() != rank) fail(node, "perm does not match the rank of '" + node.input(0) + "'");
      std::vector<bool> taken(rank, false);
      for (std::int64_t axis : a.perm) {
        if (axis < 0 || axis >= static_cast<std::int64_t>(rank) || taken[static_cast<std::size_t>(axis)])
          fail(node, "perm is not a permutation of the axes of '" + node.input(0) + "'");
        taken[static_cast<std::size_t>(axis)] = true;
      }
      Value v = in;
      for (std::size_t i = 0; i < rank; ++i) v.known.shape[i] = in.known.shape[static_cast<std::size_t>(a.perm[i])];
      v.known.has_data = false;
      v.known.data.clear();
      in.weight = false;  // its elements are now counted through the transposed value
      values_[node.output(0)] = std::move(v);
      return;
    }
    define(node, 0, add(node, OpKind::transpose, a, {tensor(node, 0)}));
  }

  void slice(const onnx::NodeProto& node) {
    int x = tensor(node, 0);
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (opset_ >= 10) {
      starts = constant_ints(node, 1);
      ends = constant_ints(node, 2);
      if (has_input(node, 3)) axes = constant_ints(node, 3);
      if (has_input(node, 4)) steps = constant_ints(node, 4);
    } else {
      starts = ints_attribute(node, "starts");
      ends = ints_attribute(node, "ends");
      axes = ints_attribute(node, "axes");
    }
    if (starts.size() != ends.size() || starts.empty()) fail(node, "starts and ends must have the same, non-zero length");
    for (std::size_t i = 0; i < starts.size(); ++i) {
      OpAttrs a;
      a.axis = axes.empty() ? static_cast<std::int64_t>(i) : axes[i];
      a.start = starts[i];
      a.end = ends[i];
      a.step = steps.empty() ? 1 : steps[i];
      if (a.step < 0) fail(node, "negative slice steps are not supported");
      x = add(node, OpKind::slice, a, {x}, starts.size() > 1 ? std::to_string(i).insert(0, 1, '/') : "");
    }
    define(node, 0, x);
  }

  void gather(const onnx::NodeProto& node) {
    Value& data = value(node, 0);
    const std::int64_t axis = int_attribute(node, "axis", 0);
    if (data.tensor < 0 && data.weight) {  // an embedding lookup
      if (axis != 0) fail(node, "an embedding gather must use axis 0");
      if (data.known.shape.size() != 2) fail(node, "embedding table '" + node.input(0) + "' must be 2-D");
      OpAttrs a;
      a.num_embeddings = data.known.shape[0];
      a.embedding_dim = data.known.shape[1];
      const int ids = tensor(node, 1);
      define(node, 0, add(node, OpKind::embedding, a, {ids, tensor(node, 0)}));
      return;
    }
    const int x = tensor(node, 0);
    const Value& idx = value(node, 1);
    if (idx.tensor >= 0 || !idx.known.has_data || idx.known.numel() != 1 || !idx.known.shape.empty())
      fail(node, "only embedding lookups and gathers of one constant index are supported");
    const TensorShape& s = shape_of(x);
    const int ax = s.normalize_axis(static_cast<int>(axis));
    std::int64_t i = idx.known.integer(0);
    if (i < 0) i += s[ax];
    OpAttrs a;
    a.axis = ax;
    a.start = i;
    a.end = i + 1;
    const int sliced = add(node, OpKind::slice, a, {x}, "/select");
    OpAttrs r;
    for (int d = 0; d < s.rank(); ++d)
      if (d != ax) r.shape.push_back(s[d]);
    define(node, 0, add(node, OpKind::reshape, r, {sliced}));
  }

  const onnx::ModelProto& model_;
  std::string source_;
  ImportOptions options_;
  Graph graph_;
  // The newest opset of the ONNX this importer is built and tested with (Debian's onnx 1.12: 17;
  // opsets 18 to 21 changed no operator it reads in a way that matters to shapes or costs).
  static constexpr std::int64_t kNewestOpset = 21;
  int opset_ = 13;
  std::map<std::string, Value> values_;
  std::set<std::string> unmodelled_;
};

}  // namespace

Graph onnx_network_from_bytes(const std::string& bytes, const std::string& source, const ImportOptions& options) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes)) throw InputError(source + ": not a valid ONNX model (protobuf parse failed)");
  if (!model.has_graph()) throw InputError(source + ": the ONNX model has no graph");
  if (options.batch && *options.batch <= 0) throw InputError("batch must be positive, is " + std::to_string(*options.batch));
  try {
    return Importer(model, source, options).run();
  } catch (const InputError& e) {
    // Most messages name the file and node already; a shape's own checks do not.
    if (std::string_view(e.what()).starts_with(source + ":")) throw;
    throw with_context(source, e);
  }
}

Graph load_onnx_network(const std::string& path, const ImportOptions& options) {
  std::ifstream in = open_input_file(path, "ONNX file", std::ios::in | std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return onnx_network_from_bytes(buffer.str(), path, options);
}

}  // namespace dnnperf
