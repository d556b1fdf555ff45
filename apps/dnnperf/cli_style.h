#pragma once
// The conventions every dnnperf command shares: how --help is laid out, how a number an option
// takes is checked, and what the process's exit status means.
//
// Exit status (docs/reliability.md):
//   0  done                       1  an input cannot be used (a file, a network, a value)
//   2  the command line is wrong  3  an internal error (a bug; the message asks for a report)
//   77 skipped: what was asked for needs a GPU (or MPI) this machine or build does not have
#include <memory>

#include <CLI/CLI.hpp>

namespace dnnperf::cli {

inline constexpr int kExitInput = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 3;

/// Help text wrapped to 100 columns, option descriptions aligned in the right column.
std::shared_ptr<CLI::Formatter> help_formatter();

/// A number > 0 ("--batch 0: must be positive, is '0'"), finite.
const CLI::Validator& positive();
/// A number >= 0, finite.
const CLI::Validator& non_negative();

}  // namespace dnnperf::cli
