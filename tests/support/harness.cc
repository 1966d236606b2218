// Command runner and file helpers for conformance tests.
#include "tests/support/harness.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace profkit::test {

namespace fs = std::filesystem;

std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += "'";
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

bool file_exists(const std::string& path) { return fs::exists(path); }

CommandResult run(const std::string& command) {
  CommandResult result;
  char err_template[] = "/tmp/profkit-test-err-XXXXXX";
  const int err_fd = mkstemp(err_template);
  if (err_fd < 0) {
    result.status = 127;
    return result;
  }
  close(err_fd);
  const std::string full = "(" + command + ") 2>" + sh_quote(err_template);
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) {
    result.status = 127;
    unlink(err_template);
    return result;
  }
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) result.out.append(buf, n);
  const int raw = pclose(pipe);
  if (WIFEXITED(raw))
    result.status = WEXITSTATUS(raw);
  else if (WIFSIGNALED(raw))
    result.status = 128 + WTERMSIG(raw);
  result.err = read_file(err_template);
  unlink(err_template);
  return result;
}

CommandResult run_ok(const std::string& command) {
  CommandResult r = run(command);
  if (r.status != 0)
    ADD_FAILURE() << "command failed (status " << r.status << "): " << command << "\n"
                  << r.err;
  return r;
}

std::string work_dir(const std::string& name) {
  static std::set<std::string> created;
  std::error_code exe_ec;
  const std::string exe = fs::read_symlink("/proc/self/exe", exe_ec).filename().string();
  const fs::path dir = fs::path(PROFKIT_BINARY_DIR) / "testwork" / (exe.empty() ? "test" : exe) / name;
  if (created.insert(name).second) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir);
  }
  return dir.string();
}

std::string source_path(const std::string& relative) {
  return (fs::path(PROFKIT_SOURCE_DIR) / relative).string();
}

std::string profkit_bin() { return PROFKIT_BIN; }

std::string runtime_dir() { return std::string(PROFKIT_BINARY_DIR) + "/lib"; }

std::string build_once(const std::string& output, const std::string& command) {
  static const std::string dir = work_dir("bin");
  const std::string path = dir + "/" + output;
  if (file_exists(path)) return path;
  std::string cmd = command;
  for (size_t at; (at = cmd.find("%o")) != std::string::npos;) cmd.replace(at, 2, sh_quote(path));
  run_ok(cmd);
  return path;
}

}  // namespace profkit::test
