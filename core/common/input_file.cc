#include "core/common/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/common/error.h"

namespace dnnperf {

std::ifstream open_input_file(const std::string& path, std::string_view what, std::ios::openmode mode) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a directory, not a " + std::string(what));
  std::ifstream in(path, mode);
  if (!in) throw InputError(path + ": cannot open the " + std::string(what) + " (" + std::strerror(errno) + ")");
  return in;
}

}  // namespace dnnperf
