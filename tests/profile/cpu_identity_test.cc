#include "profile/cpu_identity.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/common/error.h"

using namespace dnnperf;

namespace {

// As machine.cc and machine.py write them: the dev VM on 2026-12-02, and a family-26 host.
nlohmann::json family_25() {
  return {{"vendor", "AuthenticAMD"}, {"name", "AMD EPYC"}, {"family", 25}, {"model", 17}, {"stepping", 1}, {"logical_cpus", 2},
          {"caches", {{"l1d", 32768}, {"l2", 1048576}, {"l3", 33554432}}}, {"isa", {"avx", "avx2", "fma", "avx512f"}}, {"virtualized", true}};
}

}  // namespace

TEST_CASE("A CPU is described on one line, and two descriptions are compared chip field by field", "[hardware][cpu]") {
  const nlohmann::json a = family_25();
  CHECK(describe_cpu(a) == "AMD EPYC (AuthenticAMD family 25 model 17 stepping 1), L2 1 MiB, L3 32 MiB, AVX-512, virtualized");
  CHECK(describe_cpu(nlohmann::json::object()) == "unknown CPU");
  CHECK(cpu_differences(a, a).empty());

  nlohmann::json b = a;
  b["logical_cpus"] = 64;  // an allocation, not the chip
  CHECK(cpu_differences(a, b).empty());
  b["family"] = 26;
  b["model"] = 2;
  b["caches"]["l2"] = 2097152;
  b["isa"] = {"avx", "avx2", "fma", "avx512f", "avx512_bf16"};
  CHECK(cpu_differences(a, b) == std::vector<std::string>{"family 25 -> 26", "model 17 -> 2", "l2 1 MiB -> 2 MiB", "with avx512_bf16"});
  CHECK(cpu_differences(b, a).back() == "without avx512_bf16");

  // What either side does not tell is not compared.
  nlohmann::json partial = {{"vendor", "AuthenticAMD"}, {"family", 25}};
  CHECK(cpu_differences(a, partial).empty());
  CHECK(cpu_differences(nullptr, a).empty());
}

TEST_CASE("A CPU description with a malformed field is refused, naming it", "[hardware][cpu][errors]") {
  CHECK(read_cpu_identity(family_25(), "p.json: measured_on.cpu") == family_25());
  const auto bad = [](const char* field, const nlohmann::json& value) {
    nlohmann::json c = family_25();
    c[field] = value;
    return c;
  };
  CHECK_THROWS_WITH(read_cpu_identity(bad("family", "zen"), "p.json: measured_on.cpu"), Catch::Contains("p.json: measured_on.cpu") && Catch::Contains("family"));
  CHECK_THROWS_WITH(read_cpu_identity(bad("model", -1), "w"), Catch::Contains("model") && Catch::Contains("negative"));
  CHECK_THROWS_WITH(read_cpu_identity(bad("isa", "avx2"), "w"), Catch::Contains("isa") && Catch::Contains("list of strings"));
  CHECK_THROWS_WITH(read_cpu_identity(bad("caches", {{"l2", 0}}), "w"), Catch::Contains("caches") && Catch::Contains("l2"));
  CHECK_THROWS_WITH(read_cpu_identity(bad("virtualized", "yes"), "w"), Catch::Contains("virtualized"));
  CHECK_THROWS_WITH(read_cpu_identity(bad("colour", "green"), "w"), Catch::Contains("colour"));
  CHECK_THROWS_AS(read_cpu_identity(nlohmann::json::array(), "w"), InputError);
}
