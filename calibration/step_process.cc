#include "calibration/step_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/common/error.h"

namespace dnnperf::calibration {
namespace {

volatile sig_atomic_t g_step_group = 0;
volatile sig_atomic_t g_received = 0;

void pass_on(int sig) {
  g_received = sig;
  if (g_step_group > 0) kill(-static_cast<pid_t>(g_step_group), sig);
}

constexpr int kPassed[] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace

StepExit run_step_process(const std::string& command) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  // "exec" makes the command itself the group's leader, so a signal passed on reaches it and
  // everything it starts (GNU timeout included, which then passes it to its own child).
  const std::string line = "exec " + command;
  const pid_t pid = fork();
  if (pid < 0) throw InputError("cannot start a process for: " + command);
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);  // the calibration died before the line above
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that a signal passed on at once finds the group
  g_received = 0;
  g_step_group = pid;
  struct sigaction forward {}, saved[3];
  forward.sa_handler = pass_on;
  sigemptyset(&forward.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kPassed[i], &forward, &saved[i]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  g_step_group = 0;
  for (int i = 0; i < 3; ++i) sigaction(kPassed[i], &saved[i], nullptr);
  StepExit e;
  e.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + (WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
  e.signal = g_received;
  return e;
}

int run_step_or_die(const std::string& command) {
  const StepExit e = run_step_process(command);
  if (e.signal) die_of_signal(e.signal);
  return e.status;
}

void die_of_signal(int signal) {
  std::fflush(stdout);
  std::fflush(stderr);
  struct sigaction plain {};
  plain.sa_handler = SIG_DFL;
  sigemptyset(&plain.sa_mask);
  sigaction(signal, &plain, nullptr);
  raise(signal);
  _exit(128 + signal);  // a signal whose default action does not end the program
}

}  // namespace dnnperf::calibration
