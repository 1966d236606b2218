// How subcommands plug into the `profkit` command: each cmd_*.cc file registers a function
// that adds its CLI11 subcommand (options parsed into a typed struct) and a callback that
// runs it and sets the process exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "format/bytes/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define PROFKIT_CLI_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROFKIT_CLI_SANITIZED 1
#endif
#endif

namespace profkit::cli {

using AddCommand = void (*)(CLI::App& app, int& exit_status);

// Registers a subcommand; `order` sorts `profkit --help`. A command registered with its
// `name` is the only one built when the command line names it (main.cc says why).
struct CommandRegistration {
  CommandRegistration(int order, AddCommand add, const char* name = nullptr);
};

// Prints `FILE:OFFSET: error: MESSAGE (code)` on stderr as one line.
void report_error(std::string_view file, const Error& error);
// Prints `profkit: error: MESSAGE` on stderr (errors not tied to a file).
void report_error(std::string_view message);
// Prints `FILE: warning: MESSAGE` on stderr.
void report_warning(std::string_view file, std::string_view message);

// False, after printing one line, when an output is one of the inputs (same device and
// inode, whatever the path) or two outputs name one file: nothing may be written then.
bool outputs_are_safe(std::vector<std::string> outputs, std::vector<std::string> inputs);

// Writes `bytes` to `path` ("-" or empty = standard output) through a temporary file, so a
// failure never leaves a partial output. Returns the exit status.
int write_output(const std::string& path, const std::string& bytes);
// The same for output made in pieces: `produce` hands each to the function it is given.
int write_output_streamed(const std::string& path,
                          const std::function<void(const std::function<void(std::string_view)>&)>& produce);

// Leaves `object` (moved from the argument) to the end of the process instead of destroying
// it: freeing a large profile's tens of thousands of small allocations one by one took 15%
// of `show`. Kept reachable, so it is no leak. Sanitizer builds destroy it as usual, so
// their leak checks still see every allocation.
template <class T>
void keep_until_exit(T&& object) {
#ifndef PROFKIT_CLI_SANITIZED
  static auto* kept = new std::vector<std::shared_ptr<void>>;  // never destroyed
  kept->push_back(std::make_shared<std::decay_t<T>>(std::move(object)));
#else
  (void)object;
#endif
}

}  // namespace profkit::cli
