#include "core/graph/tensor_shape.h"

#include <catch2/catch.hpp>

#include "core/common/error.h"

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
