#include "networks/import/network_loader.h"

#include <filesystem>

#include "core/common/error.h"
#include "networks/import/json_network.h"
#include "networks/import/onnx_import.h"
#include "networks/zoo/zoo.h"

namespace dnnperf {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Graph load_network(const std::string& spec, const LoadOptions& options) {
  if (options.batch && *options.batch <= 0) throw InputError("batch must be positive, is " + std::to_string(*options.batch));
  const bool json = ends_with(spec, ".json"), onnx = ends_with(spec, ".onnx");
  if (json || onnx) {
    if (options.image || options.sequence)
      throw InputError(spec + ": input and sequence sizes apply to zoo networks only; a file fixes its own shapes");
    std::error_code error;  // a name too long for a path is no file either
    if (!std::filesystem::exists(spec, error)) throw InputError(spec + ": no such file");
    ImportOptions import;
    import.batch = options.batch;
    return json ? load_json_network(spec, import) : load_onnx_network(spec, import);
  }
  std::error_code error;
  if (!is_zoo_network(spec) && std::filesystem::exists(spec, error))
    throw InputError(spec + ": a network file must end in .json or .onnx");
  NetworkOptions zoo;
  zoo.batch = options.batch.value_or(1);
  zoo.image = options.image;
  zoo.sequence = options.sequence;
  zoo.with_loss = options.with_loss;
  return build_zoo_network(spec, zoo);
}

}  // namespace dnnperf
