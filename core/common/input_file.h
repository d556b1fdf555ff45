#pragma once
// Opening a file a user named: the one place that tells a directory, a missing file and an
// unreadable one apart, so that no reader meets a stream that fails halfway (a directory opens
// as a stream on Linux and fails only when read, as an exception from deep in a parser).
#include <fstream>
#include <string>
#include <string_view>

namespace dnnperf {

/// Opens `path` for reading; `what` says what it should be ("network file", "measurement file").
/// Throws InputError naming the path where it is a directory, does not exist or cannot be read.
std::ifstream open_input_file(const std::string& path, std::string_view what, std::ios::openmode mode = std::ios::in);

}  // namespace dnnperf
