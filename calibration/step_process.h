#pragma once
// One step of a calibration, run as a child process that cannot outlive the calibration:
//
//   const StepExit e = run_step_process("python3 scripts/torch_bench.py ... -o kernels.jsonl");
//   if (e.signal) ...      // the calibration was interrupted: stop, its files are kept
//   else if (e.status) ... // the step failed
//
// The command runs under /bin/sh in a process group of its own. SIGINT, SIGTERM and SIGHUP sent to
// the calibration while it runs (a terminal's Ctrl-C, `kill`, a batch system's time limit) are
// passed to that whole group, and the child is waited for, so that no step keeps writing to a file
// a resumed calibration is appending to. If the calibration itself is killed outright (SIGKILL),
// the step gets SIGTERM from the kernel (PR_SET_PDEATHSIG) and ends too.
#include <string>

namespace dnnperf::calibration {

struct StepExit {
  int status = 0;  // the command's exit status; 128 + signal if a signal ended it
  int signal = 0;  // a signal the calibration received while the step ran (and passed on), or 0
};

StepExit run_step_process(const std::string& command);

/// Runs `command` as above and returns its exit status; if the program was signalled meanwhile,
/// ends it by the same signal (after the step has ended), as a shell expects of an interrupted job.
int run_step_or_die(const std::string& command);

/// Ends the program by `signal`, its default action restored.
[[noreturn]] void die_of_signal(int signal);

}  // namespace dnnperf::calibration
