// Runs report/testing/browser_check.py (headless Chromium through python3-selenium) and
// returns what it saw, parsed; for the HTML and DHAT export tests.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace profkit::report::testing {

inline std::string run_command(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  *status = pclose(pipe);
  return out;
}

// Writes PROFKIT_BINARY_DIR/testwork/report_exports/NAME, replacing an earlier run's file (so
// runs do not pile files up) and kept for inspection. Each test uses its own names.
inline std::string write_temp_file(const std::string& name, const std::string& bytes) {
  const std::string dir = PROFKIT_BINARY_DIR "/testwork/report_exports";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

// `arguments` are browser_check.py's options, already quoted. Debian's python3 (the one
// python3-selenium belongs to), bounded so a wedged browser fails the test instead of hanging.
inline nlohmann::json browser_check(const std::string& arguments) {
  int status = -1;
  const std::string out = run_command(std::string("timeout 120 /usr/bin/python3 ") +
                                          PROFKIT_SOURCE_DIR "/report/testing/browser_check.py " +
                                          arguments,
                                      &status);
  EXPECT_EQ(status, 0) << out;
  if (status != 0) return nlohmann::json::object();
  return nlohmann::json::parse(out, nullptr, false);
}

}  // namespace profkit::report::testing
