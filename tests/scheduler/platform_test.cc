// Platform files: what they describe, and the errors a bad one gets.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "core/common/error.h"
#include "networks/import/network_loader.h"
#include "scheduler/platform.h"
#include "scheduler/task_graph.h"
#include "tests/scheduler/test_instances.h"

using namespace dnnperf;
using Catch::Matchers::Contains;

namespace {

std::string write_platform(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("dnnperf_platform_" + name + ".json");
  std::ofstream(path) << text;
  return path.string();
}

std::string with(const std::string& devices, const std::string& links, const std::string& extra = "") {
  return R"({"format": "dnnperf.platform", "version": 1, "name": "t", "servers": [{"name": "s", "devices": )" + devices + links + "}]" + extra + "}";
}

const std::string kDevices = R"([{"name": "cpu", "hardware": "cpu"}, {"name": "gpu", "hardware": "a100"}, {"name": "gpu2", "hardware": "v100"}])";
const std::string kLinks = R"(, "links": [{"between": ["cpu", "gpu"], "bandwidth": 1e10, "latency_s": 1e-5},
                                         {"between": ["cpu", "gpu2"], "bandwidth": 2e10, "latency_s": 2e-5}])";

}  // namespace

TEST_CASE("a platform file gives devices, memory and multi-hop transfer costs") {
  const Platform p = load_platform(write_platform("ok", with(kDevices, kLinks)));
  REQUIRE(p.size() == 3);
  CHECK(p.devices[1].hardware.name == "a100-sxm4-80gb");
  CHECK(p.devices[1].memory_bytes == Approx(p.devices[1].hardware.device.memory_bytes - p.devices[1].hardware.device.reserved_bytes));
  CHECK(p.transfer_seconds(0, 1, 1e6) == Approx(1e-5 + 1e6 / 1e10));
  CHECK(p.transfer_seconds(1, 1, 1e6) == 0);
  // gpu -> gpu2 goes through the cpu, store and forward: latencies and per-byte times add.
  CHECK(p.transfer_seconds(1, 2, 1e6) == Approx(3e-5 + 1e6 / 1e10 + 1e6 / 2e10));
  CHECK(p.transfer_seconds(2, 1, 1e6) == Approx(p.transfer_seconds(1, 2, 1e6)));
}

TEST_CASE("repeated servers and the network between them") {
  const std::string text = R"({"format": "dnnperf.platform", "version": 1, "name": "t",
    "servers": [{"name": "a", "count": 3, "devices": [{"name": "g0", "hardware": "h100"}, {"name": "g1", "hardware": "h100"}],
                 "intra": {"bandwidth": 4.5e11, "latency_s": 3e-6}},
                {"name": "b", "devices": [{"name": "g0", "hardware": "a100"}]}],
    "network": {"bandwidth": 2.5e10, "latency_s": 5e-6}})";
  const Platform p = load_platform(write_platform("servers", text));
  REQUIRE(p.size() == 7);
  CHECK(p.servers == 4);
  CHECK(p.server_classes == 2);
  CHECK(p.devices[2].name == "a1/g0");
  CHECK(p.devices[2].server_class == p.devices[0].server_class);
  CHECK(p.devices[6].server_class != p.devices[0].server_class);
  CHECK(p.transfer_seconds(0, 1, 4.5e5) == Approx(3e-6 + 1e-6));
  CHECK(p.transfer_seconds(0, 6, 2.5e5) == Approx(5e-6 + 1e-5));
}

TEST_CASE("bad platform files get errors naming file and field") {
  const auto error_of = [](const std::string& name, const std::string& text) {
    try {
      load_platform(write_platform(name, text));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("disconnected", with(kDevices, "")), Contains("no link path") && Contains("cpu"));
  CHECK_THAT(error_of("unknown_device", with(kDevices, R"(, "links": [{"between": ["cpu", "tpu"], "bandwidth": 1e10}])")),
             Contains("links[0]") && Contains("tpu"));
  CHECK_THAT(error_of("hardware", with(R"([{"name": "x", "hardware": "no-such-gpu"}])", "")), Contains("devices[0]") && Contains("hardware"));
  CHECK_THAT(error_of("field", with(R"([{"name": "x", "hardware": "cpu", "colour": "red"}])", "")), Contains("colour"));
  CHECK_THAT(error_of("op", with(R"([{"name": "x", "hardware": "cpu", "unsupported_ops": ["warp_drive"]}])", "")), Contains("warp_drive"));
  CHECK_THAT(error_of("bandwidth", with(kDevices, R"(, "links": [{"between": ["cpu", "gpu"], "bandwidth": -1}])")), Contains("bandwidth"));
  CHECK_THAT(error_of("dup", with(R"([{"name": "x", "hardware": "cpu"}, {"name": "x", "hardware": "cpu"}])", "")), Contains("repeats"));
  CHECK_THAT(error_of("network", R"({"format": "dnnperf.platform", "version": 1, "name": "t", "servers": [
               {"name": "a", "count": 2, "devices": [{"name": "g", "hardware": "cpu"}]}]})"), Contains("network"));
  CHECK_THAT(error_of("json", "{"), Contains("not valid JSON"));
}

TEST_CASE("task graphs price every op on every device; coarsening keeps the work") {
  const Platform p = load_platform(write_platform("ok2", with(kDevices, kLinks)));
  const Graph net = load_network("inception_v3", {.batch = 2, .image = std::nullopt, .sequence = std::nullopt, .with_loss = false});
  TaskGraph g = build_task_graph(net, p);
  REQUIRE(g.size() == static_cast<int>(net.ops().size()));
  double total_gpu = 0, total_cpu = 0, weights = 0;
  for (const TaskNode& t : g.tasks) {
    total_cpu += t.seconds[0], total_gpu += t.seconds[1], weights += t.weight_bytes;
    for (std::size_t d = 0; d < 3; ++d) CHECK(t.busy[d] <= t.seconds[d] + 1e-15);
  }
  CHECK(total_gpu < total_cpu);  // an A100 outruns a CPU socket
  CHECK(weights == Approx(4.0 * static_cast<double>(net.parameter_count())).epsilon(0.01));
  coarsen(g, 100);
  CHECK(g.size() <= 100);
  double after = 0;
  for (const TaskNode& t : g.tasks) after += t.seconds[1];
  CHECK(after == Approx(total_gpu));
  for (const TaskEdge& e : g.edges) CHECK(e.from < e.to);
}

TEST_CASE("an op no device can run is an error naming it") {
  const Platform p = load_platform(write_platform("noconv", with(R"([{"name": "npu", "hardware": "cpu", "unsupported_ops": ["conv2d"]}])", "")));
  const Graph net = load_network("resnet18", {.batch = 1, .image = std::nullopt, .sequence = std::nullopt, .with_loss = false});
  try {
    build_task_graph(net, p);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("no device can run op") && Contains("conv"));
  }
  // A precision no device has the tensor cores for says so.
  TaskGraphOptions fp8;
  fp8.precision = Precision::fp8;
  CHECK_THROWS_WITH(build_task_graph(net, load_platform(write_platform("fp8", with(R"([{"name": "a100", "hardware": "a100"}])", ""))), fp8),
                    Contains("in fp8, which needs fp8_tensor units"));
}
