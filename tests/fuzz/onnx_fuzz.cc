// ONNX models as bytes (protobuf ModelProto), as `--network model.onnx` reads them.
#include "networks/import/onnx_import.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/network_oracle.h"

DNNPERF_FUZZ_TARGET {
  dnnperf::fuzz::expect_result_or_input_error(
      [&] { dnnperf::fuzz::check_network(dnnperf::onnx_network_from_bytes(dnnperf::fuzz::text(data, size), "fuzz.onnx")); });
  return 0;
}
