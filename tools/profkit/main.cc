// `profkit`: git-style front end. The subcommands live in cmd_*.cc and register themselves.
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {
struct Registered {
  int order;
  AddCommand add;
  const char* name;  // nullptr: built with every command line
};
std::vector<Registered>& registry() {
  static std::vector<Registered> commands;
  return commands;
}
// Page faults are the largest single cost of merging or showing a big profile on a VM (each
// is an exit to the hypervisor, ~7 us on the benchmark machine; a 20 000-function merge
// touches ~19 MB of heap: 4 500 faults, a third of a 50-input merge). This keeps the heap in
// one region that grows in 64 MiB steps, never shrinks, and that the kernel may back with
// 2 MiB pages (what glibc's glibc.malloc.hugetlb=1 tunable does, which only the environment
// can set). Advice only: with transparent huge pages off, nothing changes.
void use_huge_pages_for_the_heap() {
#ifndef PROFKIT_CLI_SANITIZED  // the sanitizer's allocator is not glibc's
  constexpr size_t kPad = size_t{64} << 20;
  mallopt(M_TOP_PAD, static_cast<int>(kPad));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * kPad));
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's maximum: big buffers stay in the heap too
  mallopt(M_ARENA_MAX, 1);              // threads share it (they allocate little per input)
  void* probe = std::malloc(1 << 20);   // grows the heap by the pad
  if (probe == nullptr) return;
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(probe) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0));
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(probe);
#endif
}

}  // namespace

CommandRegistration::CommandRegistration(int order, AddCommand add, const char* name) {
  registry().push_back({order, add, name});
}

namespace {

// The runtime is no subcommand, so the top-level help says how it is used.
constexpr const char* kRuntimeHelp = R"(
Heap profiler runtime (lib/libprofkit_memprof.so and .a, beside bin/profkit):
  compile with clang++-22 -fmemory-profile -g -fno-omit-frame-pointer, link the objects
  with the library instead of -fmemory-profile; options in MEMPROF_OPTIONS use
  compiler-rt's names (docs/runtime.md). `profkit run` profiles any program without
  instrumentation (allocations only).

`profkit help COMMAND` or `profkit COMMAND --help` shows a command's options.)";

// The subcommand called `name`, or nullptr (CLI11 2.1 has no non-throwing lookup).
const CLI::App* find_command(CLI::App& app, std::string_view name) {
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// Edit distance between two short words (commands), for "did you mean".
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// LLVM's tools take long options with one dash (`-output=F`, `-sample`, `-weighted-input=2,F`),
// any option with two dashes (`--o=F`), and a value after '=' for a one-letter option too
// (`-o=F`, `-j=2`); scripts written for llvm-profdata use all of these. Rewrites each such
// argument of `command` to the spelling CLI11 takes when the command has that option:
// `--name...` for long names, `-x` followed by the value for one-letter names. Other
// short-option forms (`-o F`, `-j4`) and everything after `--` are left alone.
void accept_llvm_option_spellings(const CLI::App& command, std::vector<std::string>& args) {
  std::vector<std::string> out(args.begin(), args.begin() + std::min<size_t>(2, args.size()));
  bool rest = false;
  for (size_t i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (rest || a == "--" || a.size() < 2 || a[0] != '-') {
      rest = rest || a == "--";
      out.push_back(a);
      continue;
    }
    const size_t dashes = a[1] == '-' ? 2 : 1;
    const size_t eq = a.find('=');
    const std::string name = a.substr(dashes, eq == std::string::npos ? std::string::npos
                                                                    : eq - dashes);
    const CLI::Option* opt = name.size() == 1 ? command.get_option_no_throw("-" + name)
                             : name.size() >= 2 ? command.get_option_no_throw("--" + name)
                                                : nullptr;
    if (opt == nullptr || opt->get_positional() ||
        (name.size() == 1 && eq != std::string::npos && opt->get_expected_max() == 0)) {
      out.push_back(a);  // not ours to rewrite (a one-letter flag takes no value)
    } else if (name.size() == 1) {  // -x=V, --x=V, --x
      out.push_back("-" + name);
      if (eq != std::string::npos) out.push_back(a.substr(eq + 1));
    } else {
      out.push_back(dashes == 1 ? "-" + a : a);  // -name[=V] -> --name[=V]
    }
  }
  args = std::move(out);
}

int unknown_command(CLI::App& app, std::string_view word) {
  std::string best;
  size_t best_distance = 3;  // more than two edits away is no suggestion
  std::string all;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string& name = sub->get_name();
    all += (all.empty() ? "" : ", ") + name;
    const size_t d = edit_distance(word, name);
    if (d < best_distance || (name.rfind(word, 0) == 0 && best.empty())) {
      best_distance = std::min(d, best_distance);
      best = name;
    }
  }
  std::string message = "unknown command '" + std::string(word) + "'";
  message += best.empty() ? "; the commands are " + all : "; did you mean '" + best + "'?";
  report_error(message);
  return 1;
}

// `profkit help [COMMAND]`: the same text as `profkit [COMMAND] --help`.
void add_help_command(CLI::App& app, int& exit_status) {
  auto topic = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("help", "Show the help of profkit or of one command");
  sub->add_option("command", *topic, "The command to explain");
  sub->callback([&app, topic, &exit_status] {
    if (topic->empty() || *topic == "help") {  // `help help`: what help explains is profkit
      // app.help() would describe the selected subcommand (this one) instead.
      std::fputs(app.get_formatter()->make_help(&app, "profkit", CLI::AppFormatMode::Normal).c_str(),
                 stdout);
      exit_status = 0;
      return;
    }
    const CLI::App* cmd = find_command(app, *topic);
    if (cmd == nullptr) {
      exit_status = unknown_command(app, *topic);
      return;
    }
    std::fputs(cmd->help("profkit").c_str(), stdout);
    exit_status = 0;
  });
}

}  // namespace

}  // namespace profkit::cli

int main(int argc, char** argv) {
  using namespace profkit::cli;
  // `profkit run` is part of the cost of the program it profiles (docs/runtime.md,
  // "Sampling"): it needs neither the large heap nor the other commands, whose options
  // take most of the instructions of profkit's start-up.
  const bool run = argc >= 2 && std::string_view(argv[1]) == "run";
  if (!run) use_huge_pages_for_the_heap();
  CLI::App app{"profkit: heap profiling and PGO profile toolchain, compatible with LLVM's formats",
               "profkit"};
  app.require_subcommand(1);
  // An option given twice keeps its last value, as LLVM's option parser does (`-o A ... -o B`
  // in a build script that appends options); list options keep every value.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("--version", "profkit 0.1.0");
  // A usage error is one line, as every other error (CLI11 adds "Run with --help ...").
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "profkit: error: " + std::string(e.what()) + "\n";
  });
  int exit_status = 0;
  auto commands = registry();
  std::sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });  // orders are unique
  const auto named = std::find_if(commands.begin(), commands.end(), [&](const Registered& r) {
    return argc >= 2 && r.name != nullptr && std::string_view(argv[1]) == r.name;
  });
  if (named != commands.end())
    named->add(app, exit_status);
  else
    for (const Registered& r : commands) r.add(app, exit_status);
  add_help_command(app, exit_status);
  app.footer(kRuntimeHelp);  // after the subcommands, which would inherit it
  if (argc >= 2 && argv[1][0] != '-' && find_command(app, argv[1]) == nullptr)
    return unknown_command(app, argv[1]);
  std::vector<std::string> args(argv, argv + argc);
  if (argc >= 2 && argv[1][0] != '-') accept_llvm_option_spellings(*find_command(app, argv[1]), args);
  std::vector<char*> rewritten;
  for (std::string& a : args) rewritten.push_back(a.data());
  try {
    app.parse(static_cast<int>(rewritten.size()), rewritten.data());
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    // CLI11 returns 0 for --help/--version; usage errors must be non-zero (status 1, one line).
    return rc == 0 ? 0 : 1;
  }
  std::fflush(stdout);
  if (std::ferror(stdout)) {
    report_error("cannot write to standard output");
    return 1;
  }
#ifndef PROFKIT_CLI_SANITIZED  // the leak checker runs at exit
  // `profkit run` has nothing left to release: destroying the options and protobuf's
  // descriptor tables (static, built at start-up) took ~50 us of every profiled run.
  if (run) {
    std::fflush(stderr);
    _exit(exit_status);
  }
#endif
  return exit_status;
}
