// How subcommands plug into the `profkit` command: each cmd_*.cc file registers a function
// that adds its CLI11 subcommand (options parsed into a typed struct) and a callback that
// runs it and sets the process exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

#include "format/bytes/error.h"

namespace profkit::cli {

using AddCommand = void (*)(CLI::App& app, int& exit_status);

// Registers a subcommand; `order` sorts `profkit --help`.
struct CommandRegistration {
  CommandRegistration(int order, AddCommand add);
};

// Prints `FILE:OFFSET: error: MESSAGE (code)` on stderr as one line.
void report_error(std::string_view file, const Error& error);
// Prints `profkit: error: MESSAGE` on stderr (errors not tied to a file).
void report_error(std::string_view message);
// Prints `FILE: warning: MESSAGE` on stderr.
void report_warning(std::string_view file, std::string_view message);

}  // namespace profkit::cli
