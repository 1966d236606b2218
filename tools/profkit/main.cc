// `profkit`: git-style front end. The subcommands live in cmd_*.cc and register themselves.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <utility>
#include <vector>

#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {
std::vector<std::pair<int, AddCommand>>& registry() {
  static std::vector<std::pair<int, AddCommand>> commands;
  return commands;
}
}  // namespace

CommandRegistration::CommandRegistration(int order, AddCommand add) {
  registry().emplace_back(order, add);
}

void report_error(std::string_view file, const Error& error) {
  std::string line = format_error(file, error);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

void report_error(std::string_view message) {
  std::fprintf(stderr, "profkit: error: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

void report_warning(std::string_view file, std::string_view message) {
  std::fprintf(stderr, "%.*s: warning: %.*s\n", static_cast<int>(file.size()), file.data(),
               static_cast<int>(message.size()), message.data());
}

}  // namespace profkit::cli

int main(int argc, char** argv) {
  using namespace profkit::cli;
  CLI::App app{"profkit: heap profiling and PGO profile toolchain, compatible with LLVM's formats",
               "profkit"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "profkit 0.1.0");
  int exit_status = 0;
  auto commands = registry();
  std::sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });  // orders are unique
  for (const auto& [order, add] : commands) add(app, exit_status);
  try {
    app.parse(argc, argv);
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
  return exit_status;
}
