// `profkit run [--output PATH] -- PROGRAM ARGS...`: allocation-only heap profiling of any
// program (no instrumentation needed, g++-built ones included) by preloading the runtime.
// The program's output and exit status pass through unchanged; the raw memprof profile is
// one llvm-profdata-22 reads.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {

struct RunCommand {
  std::string output;                // exact profile path; empty: memprof.profraw.<pid>
  std::string options;               // extra MEMPROF_OPTIONS
  std::vector<std::string> command;  // PROGRAM ARGS...
};

// The runtime sits in <prefix>/lib beside <prefix>/bin/profkit (build tree and install).
std::string runtime_path() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (exe.parent_path().parent_path() / "lib" / "libprofkit_memprof.so").string();
}

int run_program(const RunCommand& cmd) {
  const std::string runtime = runtime_path();
  if (runtime.empty() || !std::filesystem::exists(runtime)) {
    report_error("cannot find the runtime library " +
                 (runtime.empty() ? std::string("libprofkit_memprof.so") : runtime));
    return 1;
  }
  std::string preload = runtime;
  if (const char* old = getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  std::string options;
  if (const char* old = getenv("MEMPROF_OPTIONS"); old && *old) options = old;
  if (!cmd.options.empty()) options += (options.empty() ? "" : ":") + cmd.options;
  if (!cmd.output.empty()) {
    const std::string absolute = std::filesystem::absolute(cmd.output).string();
    options += (options.empty() ? "" : ":") + std::string("output='") + absolute + "'";
  }
  std::vector<char*> argv;
  for (const auto& a : cmd.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  // Like system(): the program handles terminal signals, profkit only waits for it.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t pid = fork();
  if (pid < 0) {
    report_error(std::string("cannot fork: ") + std::strerror(errno));
    return 1;
  }
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    setenv("LD_PRELOAD", preload.c_str(), 1);
    if (!options.empty()) setenv("MEMPROF_OPTIONS", options.c_str(), 1);
    // Only this process writes `--output` itself; its forked children add ".<pid>".
    setenv("PROFKIT_MEMPROF_PID", std::to_string(getpid()).c_str(), 1);
    execvp(argv[0], argv.data());
    const std::string message = "profkit: error: cannot run '" + cmd.command[0] +
                                "': " + std::strerror(errno) + "\n";
    (void)!write(2, message.data(), message.size());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    // Die the same way, so the caller sees the program's own termination.
    std::fflush(stdout);
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return 1;
}

void add_run_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<RunCommand>();
  CLI::App* sub = app.add_subcommand(
      "run", "Run a program with allocation-only heap profiling (raw memprof output)");
  sub->add_option("-o,--output", cmd->output,
                  "Profile path (default: memprof.profraw.<pid> in the current directory)");
  sub->add_option("--options", cmd->options, "Extra runtime options (MEMPROF_OPTIONS syntax)");
  sub->add_option("command", cmd->command, "PROGRAM ARGS... (after --)")->required();
  sub->callback([cmd, &exit_status] { exit_status = run_program(*cmd); });
}

}  // namespace

static CommandRegistration reg(10, &add_run_command);

}  // namespace profkit::cli
