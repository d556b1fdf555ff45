#include "core/graph/tensor_shape.h"

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "core/graph/graph.h"

using dnnperf::InputError;
using dnnperf::TensorShape;

TEST_CASE("TensorShape counts elements and prints itself", "[graph]") {
  const TensorShape s{8, 3, 224, 224};
  CHECK(s.rank() == 4);
  CHECK(s.numel() == 8 * 3 * 224 * 224);
  CHECK(s.product(1, 3) == 3 * 224);
  CHECK(s.at(-1) == 224);
  CHECK(s.to_string() == "8x3x224x224");
  CHECK(TensorShape{}.numel() == 1);
  CHECK(TensorShape{}.to_string() == "scalar");
}

TEST_CASE("TensorShape rejects too many dimensions and bad axes", "[graph]") {
  TensorShape s{1, 1, 1, 1, 1, 1, 1, 1};
  CHECK_THROWS_AS(s.push_back(1), InputError);
  CHECK_THROWS_WITH(TensorShape({2, 3}).normalize_axis(2), Catch::Contains("axis 2 is out of range"));
  CHECK(TensorShape({2, 3}).normalize_axis(-2) == 0);
}

TEST_CASE("A shape's size is checked without overflow, however large its dimensions", "[graph]") {
  CHECK_NOTHROW(TensorShape({1 << 24, 1 << 24}).check_size("t"));  // 2^48 exactly
  CHECK_THROWS_WITH(TensorShape({(1 << 24) + 1, 1 << 24}).check_size("t"), Catch::Contains("t of shape 16777217x16777216 holds more than 2^48"));
  // 2^62 x 4 wraps int64 to 0: a product computed plainly would pass.
  CHECK_THROWS_WITH(TensorShape({std::int64_t{1} << 62, 4}).check_size("t"), Catch::Contains("holds more than 2^48"));
  CHECK_THROWS_WITH(TensorShape({3, 0}).check_size("t"), Catch::Contains("t has a non-positive dimension: 3x0"));
  CHECK(dnnperf::bounded_product(std::int64_t{1} << 40, 1 << 8) == std::int64_t{1} << 48);
  CHECK_FALSE(dnnperf::bounded_product(std::int64_t{1} << 40, 1 << 9));
  CHECK_FALSE(dnnperf::bounded_product(-1, 5));
}

TEST_CASE("A graph's tensors together hold at most 2^56 elements", "[graph]") {
  dnnperf::Graph g;
  const TensorShape largest{std::int64_t{1} << 24, std::int64_t{1} << 24};
  for (int i = 0; i < 256; ++i) g.add_tensor("w" + std::to_string(i), largest, dnnperf::DType::f32, dnnperf::TensorRole::parameter);
  CHECK(g.parameter_count() == dnnperf::Graph::kMaxGraphElements);
  CHECK_THROWS_WITH(g.add_tensor("one_more", TensorShape{1}, dnnperf::DType::f32, dnnperf::TensorRole::parameter),
                    Catch::Contains("tensor 'one_more': the network would hold more than 2^56"));
}
