#include "core/common/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/common/error.h"

namespace dnnperf {
namespace {

/// Writes all of `text` to `temp` (created and truncated unless `flags` say otherwise); the errno
/// of the first failure, or 0.
int write_whole(const std::string& temp, const std::string& text, int flags = O_CREAT | O_TRUNC) {
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CLOEXEC | flags, 0644);
  if (fd < 0) return errno;
  int error = 0;
  for (std::size_t done = 0; done < text.size() && !error;) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno != EINTR) error = errno;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
  // A full disk may only show at fsync or close (delayed allocation, network file systems).
  if (!error && ::fsync(fd) != 0 && errno != EINVAL) error = errno;
  if (::close(fd) != 0 && !error) error = errno;
  return error;
}

void find_non_finite(const nlohmann::json& j, const std::string& at, const std::string& where) {
  if (j.is_number_float() && !std::isfinite(j.get<double>()))
    throw InputError(where + ": the figure at " + (at.empty() ? "/" : at) + " came out as " + (std::isnan(j.get<double>()) ? "NaN" : "infinite") +
                     "; an input is outside any physical range (a zero or tiny bandwidth or rate?)");
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) find_non_finite(*it, at + "/" + it.key(), where);
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) find_non_finite(j[i], at + "/" + std::to_string(i), where);
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view what, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path + ": is a directory; name a file for the " + std::string(what));
  std::ostringstream text;
  write(text);
  // A device or a pipe (/dev/stdout, a FIFO) is written in place: it cannot be replaced.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    if (const int error = write_whole(path, text.str(), 0))
      throw InputError(path + ": cannot write the " + std::string(what) + " (" + std::strerror(error) + ")");
    return;
  }
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  if (const int error = write_whole(temp, text.str())) {
    fs::remove(temp, ec);
    throw InputError(path + ": cannot write the " + std::string(what) + " (" + std::strerror(error) + "); the file is unchanged");
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    fs::remove(temp, ec);
    throw InputError(path + ": cannot put the " + std::string(what) + " in place (" + std::strerror(error) + "); the file is unchanged");
  }
}

void check_finite_json(const nlohmann::json& doc, const std::string& where) { find_non_finite(doc, "", where); }

void print_json(std::ostream& out, const nlohmann::json& doc, const std::string& where, int indent) {
  check_finite_json(doc, where);
  out << doc.dump(indent) << "\n";
}

void write_json_file(const std::string& path, std::string_view what, const nlohmann::json& doc, int indent) {
  check_finite_json(doc, path);
  write_file_atomically(path, what, [&](std::ostream& out) { out << doc.dump(indent) << "\n"; });
}

}  // namespace dnnperf
