// `profkit run [--output PATH] -- PROGRAM ARGS...`: allocation-only heap profiling of any
// program (no instrumentation needed, g++-built ones included) by preloading the runtime.
// The program's output and exit status pass through unchanged; the raw memprof profile is
// one llvm-profdata-22 reads.
#include <regex.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "format/elf/elf_file.h"
#include "io/child_process.h"
#include "io/mapped_file.h"
#include "io/program_path.h"
#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {

struct RunCommand {
  std::string output;                // exact profile path or %p/%e pattern; empty: memprof.profraw.<pid>
  std::string follow_children = "all";  // all, none, or a regex of program names
  std::string options;               // extra MEMPROF_OPTIONS
  std::string dump_interval;         // seconds between interval profiles (runtime option)
  uint64_t sample_interval = 0;      // 0: every allocation
  std::vector<std::string> command;  // PROGRAM ARGS...
};

// The runtime beside bin/profkit (build tree and install): lib/libprofkit_memprof.so, or
// for a program without instrumented code the build in lib/preload/, which replaces no libc
// function (each replaced memcpy or strcmp is a jump through the runtime on every call, and
// only instrumented code needs libc's accesses counted).
std::string runtime_path(bool instrumented) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path lib = exe.parent_path().parent_path() / "lib";
  return ((instrumented ? lib : lib / "preload") / "libprofkit_memprof.so").string();
}

// What the program's ELF file says, read once. Scripts and unreadable files: neither.
struct ProgramKind {
  // No program interpreter: the dynamic loader never runs in it, so LD_PRELOAD cannot
  // bring the runtime in.
  bool is_static = false;
  // Its dynamic symbols name the memprof runtime's entry points (`-fmemory-profile` code
  // linked against a shared runtime refers to __memprof_shadow_memory_dynamic_address and
  // __memprof_init).
  bool instrumented = false;
};
ProgramKind inspect_program(const std::string& program) {
  ProgramKind kind;
  if (program.empty()) return kind;
  auto file = MappedFile::open(program);
  if (!file) return kind;
  auto elf = elf::ElfFile::parse(file->bytes());
  if (!elf) return kind;
  kind.is_static = std::none_of(elf->program_headers().begin(), elf->program_headers().end(),
                                [](const auto& ph) {
                                  constexpr uint32_t kPtInterp = 3;
                                  return ph.type == kPtInterp;
                                });
  if (auto symbols = elf->dynamic_symbols())
    kind.instrumented = std::any_of(symbols->begin(), symbols->end(), [](const elf::Symbol& s) {
      return s.name.starts_with("__memprof_");
    });
  return kind;
}

// The profiles written since `start`: `output` and `output.<pid>` with --output, else
// memprof.profraw.<pid> in the current directory (the runtime's names, docs/runtime.md).
bool is_output_pattern(const std::string& output) {
  return output.find("%p") != std::string::npos || output.find("%e") != std::string::npos;
}

// A file-name pattern (%p, %e, %%) as a regex over file names.
std::regex file_name_regex(const std::string& pattern) {
  std::string re;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      const char c = pattern[++i];
      re += c == 'p' ? "[0-9]+" : c == 'e' ? "[^/]*" : "%";
      continue;
    }
    if (std::strchr(".^$|()[]{}*+?\\", pattern[i]) != nullptr) re += '\\';
    re += pattern[i];
  }
  return std::regex(re);
}

// An interval profile's name ends in ".i<n>" after the name the same process's exit profile
// has (docs/runtime.md); the rules below apply to that name.
std::string_view without_interval_suffix(std::string_view name) {
  const size_t dot = name.rfind(".i");
  if (dot == std::string_view::npos || dot + 2 == name.size() ||
      name.find_first_not_of("0123456789", dot + 2) != std::string_view::npos)
    return name;
  return name.substr(0, dot);
}

std::vector<std::string> profiles_written(const std::string& output, const timespec& start) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path base = output.empty() ? fs::path("memprof.profraw") : fs::absolute(output);
  const fs::path dir = base.has_parent_path() ? base.parent_path() : fs::path(".");
  const std::string stem = base.filename().string();
  const bool pattern = is_output_pattern(stem);
  const std::regex name_re = pattern ? file_name_regex(stem) : std::regex();
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string file_name = entry.path().filename().string();
    const std::string name(without_interval_suffix(file_name));
    if (pattern) {
      if (!std::regex_match(name, name_re)) continue;
    } else {
      if (name.compare(0, stem.size(), stem) != 0) continue;
      std::string_view rest = std::string_view(name).substr(stem.size());
      const bool exact = rest.empty() && !output.empty();
      const bool with_pid = rest.size() > 1 && rest[0] == '.' &&
                            rest.find_first_not_of("0123456789", 1) == std::string_view::npos;
      if (!exact && !with_pid) continue;
    }
    struct stat st {};
    if (stat(entry.path().c_str(), &st) != 0) continue;
    if (st.st_mtim.tv_sec < start.tv_sec ||
        (st.st_mtim.tv_sec == start.tv_sec && st.st_mtim.tv_nsec < start.tv_nsec))
      continue;
    found.push_back(output.empty() ? file_name : entry.path().string());
  }
  // Each exit profile before its process's interval profiles, those in their order.
  auto key = [](const std::string& path) {
    const std::string_view exit_name = without_interval_suffix(path);
    const uint64_t n =
        exit_name.size() == path.size() ? 0 : std::stoull(path.substr(exit_name.size() + 2));
    return std::pair(std::string(exit_name), n);
  };
  std::sort(found.begin(), found.end(),
            [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return found;
}

void print_summary(const std::vector<std::string>& written) {
  std::string line = "profkit run: ";
  if (written.empty()) {
    line += "no profile was written";
  } else {
    line += std::to_string(written.size()) + (written.size() == 1 ? " profile" : " profiles") +
            " written: ";
    for (size_t i = 0; i < written.size() && i < 4; ++i) line += (i ? ", " : "") + written[i];
    if (written.size() > 4) line += ", ... (" + std::to_string(written.size() - 4) + " more)";
  }
  line += '\n';
  (void)!write(2, line.data(), line.size());
}

// The runtime in every process of the tree leaves a note ("reason<TAB>program") when it
// starts a program that will not load it (runtime/exec.cc); one warning per program.
class Notes {
 public:
  // In /dev/shm where it can: creating and removing a file on ext4 (/tmp here) took
  // ~0.1 ms of the run's CPU time, on tmpfs ~5 us.
  Notes() {
    const char* tmp = getenv("TMPDIR");
    for (const char* dir : {"/dev/shm", tmp != nullptr && *tmp ? tmp : "/tmp"}) {
      path_ = std::string(dir) + "/profkit-run-notes.XXXXXX";
      const int fd = mkstemp(path_.data());
      if (fd >= 0) {
        close(fd);
        return;
      }
    }
    path_.clear();  // no notes: the programs run as before, only unexplained
  }
  ~Notes() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

  // Prints the warnings and removes the file (profkit may re-raise the program's signal
  // next, and no destructor runs then).
  void report_and_remove() {
    if (path_.empty()) return;
    std::ifstream in(path_);
    std::map<std::pair<std::string, std::string>, uint64_t> runs;  // (program, reason)
    for (std::string line; std::getline(in, line);) {
      const size_t tab = line.find('\t');
      if (tab == std::string::npos) continue;
      std::error_code ec;  // "dir/./st" and "dir/st" started by two processes are one program
      const std::filesystem::path program =
          std::filesystem::weakly_canonical(line.substr(tab + 1), ec);
      ++runs[{ec ? line.substr(tab + 1) : program.string(), line.substr(0, tab)}];
    }
    for (const auto& [key, count] : runs)
      report_warning(key.first, key.second + ", so it wrote no profile" +
                                    (count > 1 ? " (started " + std::to_string(count) + " times)"
                                               : std::string()));
    unlink(path_.c_str());
    path_.clear();
  }

 private:
  std::string path_;
};

// The longest option value the runtime keeps (its kOptionStringMax, with the NUL).
constexpr size_t kStartDirMax = 1024;

// `value` as a MEMPROF_OPTIONS value: the runtime's parser takes '...' or "..." and has no
// escapes, so a value with both quote characters cannot be passed.
std::optional<std::string> quoted_option_value(const std::string& value) {
  if (value.find('\'') == std::string::npos) return "'" + value + "'";
  if (value.find('"') == std::string::npos) return "\"" + value + "\"";
  return std::nullopt;
}

int run_program(const RunCommand& cmd) {
  const std::string program = resolve_program(cmd.command[0]);
  const ProgramKind kind = inspect_program(program);
  const std::string runtime = runtime_path(kind.instrumented);
  if (runtime.empty() || !std::filesystem::exists(runtime)) {
    report_error("cannot find the runtime library " +
                 (runtime.empty() ? std::string("libprofkit_memprof.so") : runtime));
    return 1;
  }
  std::string preload = runtime;
  if (const char* old = getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  std::string options;
  // Relative profile names (the default memprof.profraw.<pid>) are taken from this
  // directory, where profiles_written() looks, even in a process that changed directory.
  // First, so that a start_dir the user gives wins. A directory the runtime's options
  // cannot hold keeps the old rule: the process's directory when it writes.
  std::error_code cwd_error;
  const std::string cwd = std::filesystem::current_path(cwd_error).string();
  if (const auto quoted = quoted_option_value(cwd);
      !cwd_error && quoted && quoted->size() < kStartDirMax)
    options = "start_dir=" + *quoted;
  if (const char* old = getenv("MEMPROF_OPTIONS"); old && *old)
    options += (options.empty() ? "" : ":") + std::string(old);
  if (!cmd.options.empty()) options += (options.empty() ? "" : ":") + cmd.options;
  if (!cmd.dump_interval.empty()) {
    // The runtime's syntax (decimal seconds, millisecond resolution), checked here so a
    // mistake stops profkit instead of giving one runtime warning per process.
    static const std::regex seconds(R"(([0-9]+(\.[0-9]{0,3})?|\.[0-9]{1,3}))");
    if (!std::regex_match(cmd.dump_interval, seconds)) {
      report_error("run: --dump-interval: expected seconds with at most 3 decimals (e.g. 60 "
                   "or 0.5), got '" + cmd.dump_interval + "'");
      return 1;
    }
    options += (options.empty() ? "" : ":") + std::string("dump_interval=") + cmd.dump_interval;
  }
  if (cmd.sample_interval != 0)
    options += (options.empty() ? "" : ":") + std::string("sample_interval=") +
               std::to_string(cmd.sample_interval);
  if (!cmd.output.empty()) {
    const auto quoted = quoted_option_value(std::filesystem::absolute(cmd.output).string());
    if (!quoted) {
      report_error("run: --output: a path with both ' and \" in it cannot be passed to the runtime: '" +
                   cmd.output + "'");
      return 1;
    }
    options += (options.empty() ? "" : ":") + std::string("output=") + *quoted;
  }
  if (cmd.follow_children != "all") {
    if (cmd.follow_children != "none") {
      regex_t re;  // the runtime matches with POSIX regcomp: validate the same way
      if (regcomp(&re, cmd.follow_children.c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
        report_error("run: --follow-children: not a valid POSIX extended regex: '" +
                     cmd.follow_children + "'");
        return 1;
      }
      regfree(&re);
    }
    if (cmd.follow_children.find('\'') != std::string::npos) {
      report_error("run: --follow-children: the pattern cannot contain a single quote");
      return 1;
    }
    options += (options.empty() ? "" : ":") + std::string("follow_children='") +
               cmd.follow_children + "'";
  }
  Notes notes;
  if (kind.is_static)
    report_warning(program, "statically linked: LD_PRELOAD cannot load the heap profiler "
                            "into it, so no profile will be written (link it dynamically)");
  // File times come from the kernel's coarse clock, which may lag CLOCK_REALTIME.
  timespec start{};
  clock_gettime(CLOCK_REALTIME_COARSE, &start);
  std::vector<std::string> set = {"LD_PRELOAD=" + preload};
  if (!options.empty()) set.push_back("MEMPROF_OPTIONS=" + options);
  if (!notes.path().empty()) set.push_back("PROFKIT_MEMPROF_NOTES=" + notes.path());
  // Only the program itself writes `--output` as given; the processes it forks add
  // ".<pid>" (the runtime compares its pid with this one).
  auto ran = run_child(cmd.command, environment_with(set), "PROFKIT_MEMPROF_PID");
  if (!ran) {
    report_error(ran.error().message);
    return 1;
  }
  // profkit's own messages must not end it before it can pass the program's status on (a
  // closed stderr pipe, stderr a file past `ulimit -f`); the child kept its dispositions.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  notes.report_and_remove();
  if (const int e = ran->exec_error; e != 0) {
    // As shells do: 127 when there is no such program, 126 when it cannot be executed.
    const std::string message = "profkit: error: cannot run '" + cmd.command[0] +
                                "': " + std::strerror(e) + "\n";
    (void)!write(2, message.data(), message.size());
    return e == ENOENT || e == ENOTDIR ? 127 : 126;
  }
  const int status = ran->status;
  if (!(WIFEXITED(status) && WEXITSTATUS(status) >= 126 && WEXITSTATUS(status) <= 127))
    print_summary(profiles_written(cmd.output, start));
  return pass_on_exit(status);
}

void add_run_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<RunCommand>();
  CLI::App* sub = app.add_subcommand(
      "run", "Run a program with allocation-only heap profiling (raw memprof output)");
  sub->add_option("-o,--output", cmd->output,
                  "Profile path (default: memprof.profraw.<pid> in the current directory, also for "
                  "processes that change directory); "
                  "other processes of the tree add .<pid>; with %p (pid) and %e (program "
                  "name) a pattern every process fills in");
  sub->add_option("--follow-children", cmd->follow_children,
                  "Which descendants (shells, popen children...) write a profile: all "
                  "(default), none, or a POSIX extended regex their program name must match; "
                  "the program started always does");
  sub->add_option("--sample-interval", cmd->sample_interval,
                  "Record a sample of allocations instead of every one: one sample point per "
                  "BYTES allocated on average (a Poisson process, as tcmalloc's heap profiler), "
                  "counts weighted to unbiased estimates; 524288 is a good value (default 0: "
                  "every allocation)")
      ->option_text("BYTES")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40));
  sub->add_option("--options", cmd->options, "Extra runtime options (MEMPROF_OPTIONS syntax)");
  sub->add_option("--dump-interval", cmd->dump_interval,
                  "Also write an interval profile every SECONDS (PATH.i1, PATH.i2, ...: the "
                  "blocks freed in each interval; merge them all with the exit profile)");
  sub->add_option("command", cmd->command, "PROGRAM ARGS... (after --)")->required();
  sub->callback([cmd, &exit_status] { exit_status = run_program(*cmd); });
}

}  // namespace

static CommandRegistration reg(10, &add_run_command, "run");

}  // namespace profkit::cli
