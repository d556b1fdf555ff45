#include "core/graph/tensor_shape.h"

#include "core/common/error.h"

namespace dnnperf {

TensorShape::TensorShape(std::initializer_list<std::int64_t> dims) {
  for (std::int64_t d : dims) push_back(d);
}

TensorShape::TensorShape(std::span<const std::int64_t> dims) {
  for (std::int64_t d : dims) push_back(d);
}

std::optional<std::int64_t> bounded_product(std::int64_t a, std::int64_t b) {
  if (a <= 0 || b <= 0 || a > kMaxTensorElements / b) return std::nullopt;
  return a * b;
}

std::int64_t TensorShape::numel() const { return product(0, rank_); }

void TensorShape::check_size(const std::string& what) const {
  std::int64_t n = 1;
  for (int i = 0; i < rank_; ++i) {
    const std::int64_t d = dims_[static_cast<std::size_t>(i)];
    if (d <= 0) throw InputError(what + " has a non-positive dimension: " + to_string());
    const auto product = bounded_product(n, d);
    if (!product)
      throw InputError(what + " of shape " + to_string() + " holds more than 2^48 (" + std::to_string(kMaxTensorElements) +
                       ") elements, the most one tensor may hold");
    n = *product;
  }
}

std::int64_t TensorShape::product(int begin, int end) const {
  std::int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= dims_[static_cast<std::size_t>(i)];
  return n;
}

void TensorShape::push_back(std::int64_t dim) {
  if (rank_ == kMaxRank)
    throw InputError("tensor rank exceeds the supported maximum of " + std::to_string(kMaxRank));
  dims_[static_cast<std::size_t>(rank_++)] = dim;
}

int TensorShape::normalize_axis(int axis) const {
  const int a = axis < 0 ? axis + rank_ : axis;
  if (a < 0 || a >= rank_)
    throw InputError("axis " + std::to_string(axis) + " is out of range for a tensor of shape " +
                     to_string());
  return a;
}

std::string TensorShape::to_string() const {
  if (rank_ == 0) return "scalar";
  std::string s;
  for (int i = 0; i < rank_; ++i) {
    if (i) s += 'x';
    s += std::to_string(dims_[static_cast<std::size_t>(i)]);
  }
  return s;
}

}  // namespace dnnperf
