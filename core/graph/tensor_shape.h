#pragma once
// TensorShape: the dimensions of a tensor, stored inline (no heap allocation) because graphs of
// large models hold thousands of them and are rebuilt inside sweeps.
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>

namespace dnnperf {

/// The most elements one tensor may hold: 2^48 (2.8e14, a petabyte of fp32), far past any
/// tensor of a real network (GPT-3's logits at batch 1536 hold 1.6e14). Every count derived from
/// shapes (elements, bytes, FLOPs, sums over a network) then stays exact in int64 and double.
inline constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 48;

/// a*b, or nullopt where the product passes kMaxTensorElements (or a factor is not positive).
std::optional<std::int64_t> bounded_product(std::int64_t a, std::int64_t b);

class TensorShape {
 public:
  static constexpr int kMaxRank = 8;

  TensorShape() = default;
  /// Throws InputError if there are more than kMaxRank dimensions.
  TensorShape(std::initializer_list<std::int64_t> dims);
  explicit TensorShape(std::span<const std::int64_t> dims);

  int rank() const { return rank_; }
  std::int64_t operator[](int i) const { return dims_[static_cast<std::size_t>(i)]; }
  std::int64_t& operator[](int i) { return dims_[static_cast<std::size_t>(i)]; }
  /// Dimension by axis, negative axes counting from the end (-1 is the last).
  std::int64_t at(int axis) const { return dims_[static_cast<std::size_t>(normalize_axis(axis))]; }
  std::int64_t back() const { return dims_[static_cast<std::size_t>(rank_ - 1)]; }
  std::span<const std::int64_t> dims() const { return {dims_.data(), static_cast<std::size_t>(rank_)}; }

  /// Number of elements; 1 for a scalar (rank 0). Exact for the shapes a Graph holds, which
  /// check_size() has bounded.
  std::int64_t numel() const;
  /// Throws InputError naming `what` unless every dimension is positive and the elements number
  /// at most kMaxTensorElements (computed without overflow, however large the dimensions).
  void check_size(const std::string& what) const;
  /// Product of dimensions [begin, end).
  std::int64_t product(int begin, int end) const;

  /// Appends a dimension; throws InputError past kMaxRank.
  void push_back(std::int64_t dim);
  /// Maps a possibly negative axis into [0, rank); throws InputError when out of range.
  int normalize_axis(int axis) const;

  /// "8x3x224x224"; "scalar" for rank 0.
  std::string to_string() const;

  friend bool operator==(const TensorShape& a, const TensorShape& b) {
    return a.dims().size() == b.dims().size() &&
           std::equal(a.dims().begin(), a.dims().end(), b.dims().begin());
  }

 private:
  std::array<std::int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

}  // namespace dnnperf
