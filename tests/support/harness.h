// Helpers for conformance tests: run real tools (clang, llvm-profdata, profkit) and
// compare. Commands run through /bin/sh; outputs are captured whole.
#pragma once

#include <string>
#include <vector>

namespace profkit::test {

struct CommandResult {
  int status = -1;      // exit status, or 128 + signal number if killed
  std::string out;      // standard output
  std::string err;      // standard error
};

// Runs `command` with /bin/sh -c. Never throws; a failure to start gives status 127.
CommandResult run(const std::string& command);

// Like run(), but fails the current test (ADD_FAILURE) with the command and its stderr
// when the status is not 0. Returns the result either way.
CommandResult run_ok(const std::string& command);

// Single-quotes `s` for /bin/sh.
std::string sh_quote(const std::string& s);

// A directory PROFKIT_BINARY_DIR/testwork/<test binary name>/<name>, created empty on first
// use in this process (removed and recreated), kept afterwards for inspection. Each
// conformance binary runs as one CTest test (one process), so a binary can build its test
// programs once (e.g. in a static or a SetUpTestSuite) and share them across its TESTs.
std::string work_dir(const std::string& name);

// Builds `output` (in this binary's work dir "bin") once per process with `command`, where
// the command's `%o` is replaced by the output path; returns the output path.
std::string build_once(const std::string& output, const std::string& command);

// Path of a source file in the tree (PROFKIT_SOURCE_DIR/<relative>).
std::string source_path(const std::string& relative);

// The profkit binary under test.
std::string profkit_bin();

// The directory of the built runtime libraries (libprofkit_memprof.so and .a).
std::string runtime_dir();

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& data);
bool file_exists(const std::string& path);

}  // namespace profkit::test
