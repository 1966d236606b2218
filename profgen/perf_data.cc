#include "profgen/perf_data.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <vector>

#include "io/program_path.h"
#include "profgen/parse.h"
#include "profgen/perf_script.h"

extern char** environ;

namespace profkit::profgen {

namespace {

Unexpected failure(std::string message) {
  return Unexpected{Error{ErrorCode::io, kNoOffset, std::move(message)}};
}

// Runs `argv` with stdout into a fresh temporary file and stderr discarded; returns what
// it printed. perf's exit status is not trusted (it exits 0 on some errors): the caller
// judges the text.
Expected<std::string> run_to_text(const std::vector<std::string>& argv) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") +
                        "/profkit-perf-script-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return failure("cannot create a temporary file in " + pattern);
  ::unlink(name.data());  // gone when closed
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, argv[0].c_str(), &actions, nullptr, args.data(),
                                  environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    ::close(fd);
    return failure("cannot run " + argv[0]);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  struct stat st;
  std::string text;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    text.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::pread(fd, text.data() + done, text.size() - done,
                                static_cast<off_t>(done));
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    text.resize(done);
  }
  ::close(fd);
  return text;
}

}  // namespace

Expected<std::string> perf_data_to_script(const std::string& perf_data,
                                          std::string_view binary_name,
                                          std::optional<int64_t> pid) {
  const std::string perf = resolve_program("perf");
  if (perf.empty()) return failure("Perf not found.");
  PROFKIT_TRY_ASSIGN(std::string events, run_to_text({perf, "script", "--show-mmap-events",
                                                      "-F", "comm,pid", "-i", perf_data}));
  // The processes that mapped the binary.
  std::set<int64_t> seen;
  std::string pids;
  for (TraceLines lines(events); !lines.at_eof(); lines.advance()) {
    const std::string_view line = lines.line();
    MmapEvent e;
    if (line.find("PERF_RECORD_MMAP") == std::string_view::npos || !parse_mmap_event(line, e) ||
        file_name_of(e.path) != binary_name)
      continue;
    const int64_t id = e.pid;
    if (pid && id != *pid) continue;
    if (seen.insert(id).second) pids += (pids.empty() ? "" : ",") + std::to_string(id);
  }
  if (pids.empty()) return failure("No relevant mmap event is found in perf data.");
  PROFKIT_TRY_ASSIGN(std::string script,
                     run_to_text({perf, "script", "--show-mmap-events", "-F", "ip,brstack",
                                  "-i", perf_data, "--pid", pids}));
  auto kind = detect_script_kind(script);
  if (kind && *kind != ScriptKind::ip_only) return script;
  return run_to_text({perf, "script", "--show-mmap-events", "-F", "ip,dso", "-i", perf_data,
                      "--pid", pids});
}

}  // namespace profkit::profgen
