#include "io/child_process.h"

#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>

namespace profkit {

std::vector<std::string> environment_with(const std::vector<std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(set.begin(), set.end(), [&](const std::string& s) {
      const size_t eq = s.find('=');
      return entry.size() > eq && entry.compare(0, eq + 1, s, 0, eq + 1) == 0;
    });
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

namespace {

// What the child does between clone and exec, prepared by the parent. It shares the
// parent's memory, so it only makes system calls, writes its pid into `pid_digits` and
// reports a failed exec through `error`.
struct Launch {
  char* const* argv;
  char* const* envp;
  char* pid_digits;  // room for 20 digits and a NUL inside an envp entry; nullptr: none
  const int* signals;
  const struct sigaction* saved;  // the signals' dispositions before the forwarding
  int signal_count;
  sigset_t mask;  // the signal mask before the launch blocked everything
  int error;
};

int launch_child(void* arg) {
  auto* launch = static_cast<Launch*>(arg);
  for (int i = 0; i < launch->signal_count; ++i)
    sigaction(launch->signals[i], &launch->saved[i], nullptr);
  if (launch->pid_digits != nullptr) {
    char digits[20];
    int n = 0;
    for (auto pid = static_cast<uint64_t>(getpid()); n == 0 || pid != 0; pid /= 10)
      digits[n++] = static_cast<char>('0' + pid % 10);
    for (int i = 0; i < n; ++i) launch->pid_digits[i] = digits[n - 1 - i];
    launch->pid_digits[n] = '\0';
  }
  sigprocmask(SIG_SETMASK, &launch->mask, nullptr);
  execvpe(launch->argv[0], launch->argv, launch->envp);
  launch->error = errno;
  _exit(127);
}

volatile sig_atomic_t forward_to = 0;  // the running child's pid, 0 when none

}  // namespace

Expected<ChildExit> run_child(const std::vector<std::string>& argv_in,
                              std::vector<std::string> env, std::string_view pid_variable) {
  std::vector<char*> argv;
  for (const auto& a : argv_in) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (!pid_variable.empty()) {  // replaces an inherited value (profkit run under profkit run)
    const std::string prefix = std::string(pid_variable) + "=";
    std::erase_if(env, [&](const std::string& e) { return e.starts_with(prefix); });
    env.push_back(prefix + std::string(21, '0'));
  }
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  static constexpr int kForwarded[] = {SIGINT, SIGQUIT, SIGHUP, SIGTERM};
  constexpr int kCount = static_cast<int>(std::size(kForwarded));
  struct sigaction forward {}, saved[kCount];
  forward.sa_sigaction = [](int sig, siginfo_t* info, void*) {
    const pid_t pid = forward_to;
    if (pid > 0 && info != nullptr && info->si_code <= 0) kill(pid, sig);  // SI_USER, SI_QUEUE
  };
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&forward.sa_mask);
  for (int i = 0; i < kCount; ++i) sigaction(kForwarded[i], &forward, &saved[i]);
  auto restore_signals = [&] {
    for (int i = 0; i < kCount; ++i) sigaction(kForwarded[i], &saved[i], nullptr);
  };
  Launch launch{argv.data(), envp.data(), nullptr, kForwarded, saved, kCount, {}, 0};
  if (!pid_variable.empty()) launch.pid_digits = env.back().data() + pid_variable.size() + 1;
  // All signals blocked until the child has its own dispositions: no handler of ours may
  // run in it while it shares our memory.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &launch.mask);
  constexpr size_t kChildStack = 256 << 10;  // execvpe's path buffers and script fallback
  const std::unique_ptr<char[]> child_stack(new char[kChildStack]);
  const pid_t pid = clone(launch_child, child_stack.get() + kChildStack,
                          CLONE_VM | CLONE_VFORK | SIGCHLD, &launch);
  const int clone_error = errno;
  pthread_sigmask(SIG_SETMASK, &launch.mask, nullptr);
  if (pid < 0) {
    restore_signals();
    return make_error(ErrorCode::io, kNoOffset,
                      std::string("cannot start a process: ") + std::strerror(clone_error));
  }
  ChildExit result;
  if (launch.error != 0) {
    int ignored = 0;
    while (waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    restore_signals();
    result.exec_error = launch.error;
    return result;
  }
  forward_to = pid;
  while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
  }
  forward_to = 0;
  restore_signals();
  return result;
}

int pass_on_exit(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (!WIFSIGNALED(status)) return 1;
  std::fflush(stdout);
  std::fflush(stderr);
  const int sig = WTERMSIG(status);
  struct rlimit no_core {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(sig, SIG_DFL);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
  raise(sig);
  return 128 + sig;
}

}  // namespace profkit
