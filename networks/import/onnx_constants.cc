#include "networks/import/onnx_constants.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/common/error.h"
#include "core/graph/tensor_shape.h"

namespace dnnperf::onnx_import {
namespace {

constexpr double kIntLimit = 4.611686018427387904e18;  // 2^62

// Saturates just past one tensor's bound (2^48) instead of overflowing: a constant that large is
// never folded, and the graph refuses it as a tensor. A zero dimension makes 0 wherever it is; a
// negative one (never valid) -1.
std::int64_t numel_of(const std::vector<std::int64_t>& shape) {
  constexpr std::int64_t kSaturated = kMaxTensorElements + 1;
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d == 0) return 0;
    if (d < 0) return -1;
  }
  for (std::int64_t d : shape) n = n > kSaturated / d ? kSaturated : std::min(n * d, kSaturated);
  return n;
}

ConstValue make(std::vector<std::int64_t> shape, DType dtype, std::vector<double> data) {
  ConstValue v;
  v.shape = std::move(shape);
  v.dtype = dtype;
  v.has_data = true;
  v.data = std::move(data);
  return v;
}

ConstValue vector_of(const std::vector<std::int64_t>& values) {
  return make({static_cast<std::int64_t>(values.size())}, DType::i64, std::vector<double>(values.begin(), values.end()));
}

[[noreturn]] void fail(const onnx::NodeProto& node, const std::string& message) {
  throw InputError("node '" + node.name() + "' (" + node.op_type() + "): " + message);
}

int normalize(std::int64_t axis, std::size_t rank, const onnx::NodeProto& node) {
  const std::int64_t r = static_cast<std::int64_t>(rank);
  const std::int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r) fail(node, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(a);
}

std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

std::optional<ConstValue> broadcast_binary(const onnx::NodeProto& node, const ConstValue& a, const ConstValue& b) {
  const std::string& op = node.op_type();
  const std::size_t rank = std::max(a.shape.size(), b.shape.size());
  std::vector<std::int64_t> shape(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i + a.shape.size() >= rank ? a.shape[i + a.shape.size() - rank] : 1;
    const std::int64_t db = i + b.shape.size() >= rank ? b.shape[i + b.shape.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) fail(node, "operand shapes do not broadcast");
    shape[i] = std::max(da, db);
  }
  const std::int64_t n = numel_of(shape);
  if (n > ConstValue::kMaxFoldedElements) return std::nullopt;
  const auto index = [&](const ConstValue& v, std::int64_t flat) {
    std::int64_t offset = 0, stride = 1;
    for (std::size_t i = rank; i-- > 0;) {
      const std::int64_t coord = flat % shape[i];
      flat /= shape[i];
      if (i + v.shape.size() >= rank) {
        const std::size_t vi = i + v.shape.size() - rank;
        if (v.shape[vi] != 1) offset += coord * stride;
        stride *= v.shape[vi];
      }
    }
    return v.data[static_cast<std::size_t>(offset)];
  };
  const bool integral = !is_floating(a.dtype);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = index(a, i), y = index(b, i);
    double r = 0;
    if (op == "Add") r = x + y;
    else if (op == "Sub") r = x - y;
    else if (op == "Mul") r = x * y;
    else if (op == "Div") {
      if (y == 0) fail(node, "division by zero in a constant expression");
      r = integral ? std::trunc(x / y) : x / y;
    } else if (op == "Pow") r = std::pow(x, y);
    else if (op == "Equal") r = x == y;
    else if (op == "Less") r = x < y;
    else if (op == "Greater") r = x > y;
    else if (op == "Max") r = std::max(x, y);
    else if (op == "Min") r = std::min(x, y);
    else return std::nullopt;
    out[static_cast<std::size_t>(i)] = r;
  }
  const bool boolean = op == "Equal" || op == "Less" || op == "Greater";
  return make(shape, boolean ? DType::boolean : a.dtype, std::move(out));
}

}  // namespace

std::int64_t ConstValue::numel() const { return numel_of(shape); }

std::int64_t ConstValue::integer(std::size_t i) const {
  return static_cast<std::int64_t>(std::clamp(data[i], -kIntLimit, kIntLimit));
}

std::vector<std::int64_t> ConstValue::integers() const {
  std::vector<std::int64_t> out(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) out[i] = integer(i);
  return out;
}

std::optional<DType> dtype_from_onnx(int t) {
  switch (t) {
    case onnx::TensorProto::FLOAT: return DType::f32;
    case onnx::TensorProto::DOUBLE: return DType::f64;
    case onnx::TensorProto::FLOAT16: return DType::f16;
    case onnx::TensorProto::BFLOAT16: return DType::bf16;
    case onnx::TensorProto::INT64: return DType::i64;
    case onnx::TensorProto::INT32: return DType::i32;
    case onnx::TensorProto::INT8: return DType::i8;
    case onnx::TensorProto::UINT8: return DType::u8;
    case onnx::TensorProto::BOOL: return DType::boolean;
    default: return std::nullopt;
  }
}

ConstValue read_tensor_proto(const onnx::TensorProto& t, const std::string& where) {
  ConstValue v;
  for (std::int64_t d : t.dims()) {
    if (d < 0) throw InputError(where + ": tensor '" + t.name() + "' has a negative dimension");
    v.shape.push_back(d);
  }
  const auto dtype = dtype_from_onnx(t.data_type());
  if (!dtype) throw InputError(where + ": tensor '" + t.name() + "' has unsupported element type " + std::to_string(t.data_type()));
  v.dtype = *dtype;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return v;  // weights in a side file: shape is enough
  const std::int64_t n = v.numel();
  if (n > ConstValue::kMaxFoldedElements) return v;
  const std::size_t count = static_cast<std::size_t>(n);
  std::vector<double> data(count);
  const std::string& raw = t.raw_data();
  const std::size_t width = static_cast<std::size_t>(dtype_bytes(v.dtype));
  if (!raw.empty()) {
    if (raw.size() != count * width) throw InputError(where + ": tensor '" + t.name() + "' holds " + std::to_string(raw.size()) + " bytes, its shape needs " + std::to_string(count * width));
    for (std::size_t i = 0; i < count; ++i) {
      const char* p = raw.data() + i * width;
      switch (v.dtype) {
        case DType::f32: { float f; std::memcpy(&f, p, 4); data[i] = f; break; }
        case DType::f64: { double d; std::memcpy(&d, p, 8); data[i] = d; break; }
        case DType::i64: { std::int64_t x; std::memcpy(&x, p, 8); data[i] = static_cast<double>(x); break; }
        case DType::i32: { std::int32_t x; std::memcpy(&x, p, 4); data[i] = x; break; }
        case DType::i8: data[i] = static_cast<std::int8_t>(*p); break;
        case DType::u8: case DType::boolean: data[i] = static_cast<std::uint8_t>(*p); break;
        default: return v;  // f16/bf16 values are never needed for shapes
      }
    }
  } else {
    const auto take = [&](const auto& field) {
      if (static_cast<std::size_t>(field.size()) != count) return false;
      for (std::size_t i = 0; i < count; ++i) data[i] = static_cast<double>(field.Get(static_cast<int>(i)));
      return true;
    };
    bool ok = false;
    switch (v.dtype) {
      case DType::f32: ok = take(t.float_data()); break;
      case DType::f64: ok = take(t.double_data()); break;
      case DType::i64: ok = take(t.int64_data()); break;
      case DType::i32: case DType::i8: case DType::u8: case DType::boolean: ok = take(t.int32_data()); break;
      default: break;
    }
    if (!ok) return v;
  }
  v.has_data = true;
  v.data = std::move(data);
  return v;
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->i() : fallback;
}

float float_attribute(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->f() : fallback;
}

std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name) {
  const auto* a = find_attribute(node, name);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}

std::optional<std::vector<ConstValue>> fold_node(const onnx::NodeProto& node,
                                                 const std::vector<const ConstValue*>& in, int opset) {
  const std::string& op = node.op_type();
  const auto known = [&](std::size_t i) { return i < in.size() && in[i] && in[i]->has_data; };
  const auto all_known = [&] {
    for (std::size_t i = 0; i < in.size(); ++i)
      if (!node.input(static_cast<int>(i)).empty() && !known(i)) return false;
    return true;
  };
  if (op == "Constant") {
    const auto* a = find_attribute(node, "value");
    if (a && a->has_t()) return std::vector<ConstValue>{read_tensor_proto(a->t(), "node '" + node.name() + "'")};
    if ((a = find_attribute(node, "value_int"))) return std::vector<ConstValue>{make({}, DType::i64, {static_cast<double>(a->i())})};
    if ((a = find_attribute(node, "value_float"))) return std::vector<ConstValue>{make({}, DType::f32, {a->f()})};
    if ((a = find_attribute(node, "value_ints"))) return std::vector<ConstValue>{vector_of({a->ints().begin(), a->ints().end()})};
    fail(node, "Constant without a supported value attribute");
  }
  if (op == "Shape") {  // needs only the input's shape
    if (!in[0]) return std::nullopt;
    const auto& s = in[0]->shape;
    const std::int64_t rank = static_cast<std::int64_t>(s.size());
    std::int64_t start = int_attribute(node, "start", 0), end = int_attribute(node, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<std::int64_t>(start, 0, rank);
    end = std::clamp<std::int64_t>(end, start, rank);
    return std::vector<ConstValue>{vector_of({s.begin() + start, s.begin() + end})};
  }
  if (op == "Size") {
    if (!in[0]) return std::nullopt;
    return std::vector<ConstValue>{make({}, DType::i64, {static_cast<double>(in[0]->numel())})};
  }
  if (in.empty() || !in[0] || !all_known()) return std::nullopt;
  const auto need = [&](std::size_t n) {
    if (in.size() < n) fail(node, "expects at least " + std::to_string(n) + " inputs, has " + std::to_string(in.size()));
    for (std::size_t i = 0; i < n; ++i)
      if (!in[i]) fail(node, "input " + std::to_string(i) + " is missing");
  };
  const auto scalar = [&](std::size_t i) {
    if (in[i]->data.empty()) fail(node, "input " + std::to_string(i) + " is empty");
    return in[i]->data[0];
  };
  const ConstValue& x = *in[0];
  if (op == "Identity") return std::vector<ConstValue>{x};
  if (op == "Cast") {
    const auto to = dtype_from_onnx(static_cast<int>(int_attribute(node, "to", 1)));
    if (!to) return std::nullopt;
    ConstValue y = x;
    y.dtype = *to;
    if (!is_floating(*to))
      for (double& d : y.data) d = std::trunc(d);
    return std::vector<ConstValue>{y};
  }
  if (op == "Sqrt" || op == "Neg" || op == "Reciprocal" || op == "Floor" || op == "Ceil") {
    ConstValue y = x;
    for (double& d : y.data)
      d = op == "Sqrt" ? std::sqrt(d) : op == "Neg" ? -d : op == "Reciprocal" ? 1.0 / d : op == "Floor" ? std::floor(d) : std::ceil(d);
    return std::vector<ConstValue>{y};
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Equal" ||
      op == "Less" || op == "Greater" || op == "Max" || op == "Min") {
    need(2);
    auto r = broadcast_binary(node, *in[0], *in[1]);
    if (!r) return std::nullopt;
    return std::vector<ConstValue>{*r};
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::vector<std::int64_t> axes = opset >= 13 && in.size() > 1 && in[1] ? in[1]->integers() : ints_attribute(node, "axes");
    std::vector<std::int64_t> shape = x.shape;
    if (op == "Unsqueeze") {
      const std::size_t rank = shape.size() + axes.size();
      for (auto& a : axes) a = normalize(a, rank, node);
      std::sort(axes.begin(), axes.end());
      for (std::int64_t a : axes) shape.insert(shape.begin() + a, 1);
    } else {
      if (axes.empty()) {
        shape.erase(std::remove(shape.begin(), shape.end(), 1), shape.end());
      } else {
        for (auto& a : axes) a = normalize(a, shape.size(), node);
        std::sort(axes.rbegin(), axes.rend());
        for (std::int64_t a : axes) shape.erase(shape.begin() + a);
      }
    }
    return std::vector<ConstValue>{make(shape, x.dtype, x.data)};
  }
  if (op == "Concat") {
    const int axis = normalize(int_attribute(node, "axis", 0), x.shape.size(), node);
    if (axis != 0 || x.shape.size() != 1) return std::nullopt;  // shape subgraphs concatenate vectors
    std::vector<double> data;
    for (const auto* v : in) {
      if (!v || v->shape.size() != 1) fail(node, "concatenates tensors of different ranks");
      data.insert(data.end(), v->data.begin(), v->data.end());
    }
    const std::int64_t size = static_cast<std::int64_t>(data.size());  // before data is moved
    return std::vector<ConstValue>{make({size}, x.dtype, std::move(data))};
  }
  if (op == "Gather") {
    need(2);
    const ConstValue& idx = *in[1];
    const int axis = normalize(int_attribute(node, "axis", 0), x.shape.size(), node);
    const std::int64_t n = x.shape[static_cast<std::size_t>(axis)];
    const auto stride = strides_of(x.shape);
    const std::int64_t outer = numel_of({x.shape.begin(), x.shape.begin() + axis});
    const std::int64_t inner = stride[static_cast<std::size_t>(axis)];
    std::vector<std::int64_t> shape(x.shape.begin(), x.shape.begin() + axis);
    shape.insert(shape.end(), idx.shape.begin(), idx.shape.end());
    shape.insert(shape.end(), x.shape.begin() + axis + 1, x.shape.end());
    std::vector<double> data;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::size_t k = 0; k < idx.data.size(); ++k) {
        std::int64_t i = idx.integer(k);
        if (i < 0) i += n;
        if (i < 0 || i >= n) fail(node, "index " + std::to_string(idx.integer(k)) + " is out of range for a dimension of " + std::to_string(n));
        for (std::int64_t j = 0; j < inner; ++j)
          data.push_back(x.data[static_cast<std::size_t>((o * n + i) * inner + j)]);
      }
    return std::vector<ConstValue>{make(shape, x.dtype, std::move(data))};
  }
  if (op == "Slice" && x.shape.size() == 1) {
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (opset >= 10) {
      need(3);
      starts = in[1]->integers();
      ends = in[2]->integers();
      if (in.size() > 3 && in[3]) axes = in[3]->integers();
      if (in.size() > 4 && in[4]) steps = in[4]->integers();
    } else {
      starts = ints_attribute(node, "starts");
      ends = ints_attribute(node, "ends");
      axes = ints_attribute(node, "axes");
    }
    if (starts.size() != 1 || ends.size() != 1) return std::nullopt;
    const std::int64_t n = x.shape[0];
    const std::int64_t step = steps.empty() ? 1 : steps[0];
    if (step == 0) fail(node, "slice step is 0");
    auto clampi = [n](std::int64_t v, std::int64_t lo, std::int64_t hi) { return std::clamp(v < 0 ? v + n : v, lo, hi); };
    std::vector<double> data;
    if (step > 0) {
      for (std::int64_t i = clampi(starts[0], 0, n), e = clampi(ends[0], 0, n); i < e; i += step) data.push_back(x.data[static_cast<std::size_t>(i)]);
    } else {
      for (std::int64_t i = clampi(starts[0], 0, n - 1), e = clampi(ends[0], -1, n - 1); i > e; i += step) data.push_back(x.data[static_cast<std::size_t>(i)]);
    }
    const std::int64_t size = static_cast<std::int64_t>(data.size());  // before data is moved
    return std::vector<ConstValue>{make({size}, x.dtype, std::move(data))};
  }
  if (op == "ConstantOfShape") {
    const auto shape = x.integers();
    for (std::int64_t d : shape)
      if (d < 0) fail(node, "negative dimension in the requested shape");
    const std::int64_t n = numel_of(shape);
    if (n > ConstValue::kMaxFoldedElements) return std::nullopt;
    double fill = 0;
    DType dtype = DType::f32;
    if (const auto* a = find_attribute(node, "value"); a && a->has_t()) {
      const ConstValue v = read_tensor_proto(a->t(), "node '" + node.name() + "'");
      dtype = v.dtype;
      if (v.has_data && !v.data.empty()) fill = v.data[0];
    }
    return std::vector<ConstValue>{make(shape, dtype, std::vector<double>(static_cast<std::size_t>(n), fill))};
  }
  if (op == "Range") {
    need(3);
    const double start = scalar(0), limit = scalar(1), delta = scalar(2);
    if (delta == 0) fail(node, "Range with delta 0");
    const double count = std::max(0.0, std::ceil((limit - start) / delta));
    if (count > ConstValue::kMaxFoldedElements) return std::nullopt;
    std::vector<double> data(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = start + static_cast<double>(i) * delta;
    const std::int64_t size = static_cast<std::int64_t>(data.size());  // before data is moved
    return std::vector<ConstValue>{make({size}, x.dtype, std::move(data))};
  }
  if (op == "Reshape") {
    need(2);
    std::vector<std::int64_t> target = in[1]->integers();
    std::int64_t fixed = 1;
    int infer = -1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (target[i] == 0 && i < x.shape.size()) target[i] = x.shape[i];
      if (target[i] == -1) infer = static_cast<int>(i);
      else fixed *= target[i];
    }
    if (infer >= 0) target[static_cast<std::size_t>(infer)] = fixed ? x.numel() / fixed : 0;
    if (numel_of(target) != x.numel()) fail(node, "reshape of a constant changes its element count");
    return std::vector<ConstValue>{make(target, x.dtype, x.data)};
  }
  if (op == "Where") {  // same-shaped branches and a matching or scalar condition only
    need(3);
    const ConstValue &cond = *in[0], &a = *in[1], &b = *in[2];
    if (a.shape != b.shape || (cond.numel() != 1 && cond.shape != a.shape)) return std::nullopt;
    ConstValue y = a;
    for (std::size_t i = 0; i < y.data.size(); ++i)
      y.data[i] = cond.data[cond.numel() == 1 ? 0 : i] != 0 ? a.data[i] : b.data[i];
    return std::vector<ConstValue>{y};
  }
  return std::nullopt;
}

}  // namespace dnnperf::onnx_import
