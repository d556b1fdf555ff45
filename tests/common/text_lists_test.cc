#include "core/common/text_lists.h"

#include <catch2/catch.hpp>

#include "core/common/error.h"

using namespace dnnperf;

TEST_CASE("A list splits on its separator and drops empty items", "[common]") {
  CHECK(split_list("f32,bf16", "--dtypes") == std::vector<std::string>{"f32", "bf16"});
  CHECK(split_list("x;y", "--list", ';') == std::vector<std::string>{"x", "y"});
  // A stray separator is a typo, not a request for the default (issue 54).
  CHECK_THROWS_WITH(split_list("4,,8", "--sizes"), "--sizes: an empty item in '4,,8'");
  CHECK_THROWS_WITH(split_list("8,", "--sizes"), "--sizes: an empty item in '8,'");
  CHECK_THROWS_WITH(split_list("", "--sizes"), "--sizes: the list is empty");
}

TEST_CASE("Byte sizes take binary suffixes; anything else is named with its option", "[common]") {
  CHECK(parse_byte_size("4", "--sizes") == 4);
  CHECK(parse_byte_size("64B", "--sizes") == 64);
  CHECK(parse_byte_size("1K", "--sizes") == 1024);
  CHECK(parse_byte_size("4KiB", "--sizes") == 4096);
  CHECK(parse_byte_size("1M", "--sizes") == 1 << 20);
  CHECK(parse_byte_size("2GiB", "--sizes") == std::int64_t{2} << 30);
  CHECK_THROWS_WITH(parse_byte_size("4X", "--sizes"), Catch::Contains("--sizes: '4X' is not a positive size"));
  CHECK_THROWS_AS(parse_byte_size("0", "--sizes"), InputError);
  CHECK_THROWS_AS(parse_byte_size("-4K", "--sizes"), InputError);
  CHECK_THROWS_AS(parse_byte_size("99999999999999GiB", "--sizes"), InputError);  // beyond 64 bits
}
