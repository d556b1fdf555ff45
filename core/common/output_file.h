#pragma once
// Writing a result file whole or not at all. A profile, a schedule or a CSV of a sweep can cost
// minutes or device time to make; an interrupted or failed write (a full disk, a killed run)
// must leave the file that was there before, never a truncated one that reads as valid.
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dnnperf {

/// Writes `path` through a temporary beside it (same folder, so that the rename is atomic):
/// `write` fills it, it is flushed to disk, and only then renamed over `path`. `what` says what
/// the file is ("profile", "schedule"). Throws InputError naming the path and the system's reason
/// where any step fails (a directory, no permission, no space); `path` is then as it was and the
/// temporary is removed.
void write_file_atomically(const std::string& path, std::string_view what, const std::function<void(std::ostream&)>& write);

/// Writes `doc` as JSON (indented by `indent`, one trailing newline) through
/// write_file_atomically, after check_finite_json: JSON has no inf or NaN (nlohmann would write
/// null), and a result holding one is a fault to name, not a file to keep.
void write_json_file(const std::string& path, std::string_view what, const nlohmann::json& doc, int indent = 2);

/// Prints `doc` as JSON (indented by `indent`) after check_finite_json, naming `where` (the
/// command) in its error: the one way a command prints its --json result.
void print_json(std::ostream& out, const nlohmann::json& doc, const std::string& where, int indent = 2);

/// Throws InputError naming `where` and the JSON path ("/methods/0/latency_s") of the first
/// number in `doc` that is inf or NaN.
void check_finite_json(const nlohmann::json& doc, const std::string& where);

}  // namespace dnnperf
