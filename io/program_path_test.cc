#include "io/program_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace profkit {
namespace {

// Sets $PATH for one test and restores it.
class PathGuard {
 public:
  explicit PathGuard(const char* value) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    had_ = std::getenv("PATH") != nullptr;
    if (value) setenv("PATH", value, 1);
    else unsetenv("PATH");
  }
  ~PathGuard() {
    if (had_) setenv("PATH", old_.c_str(), 1);
    else unsetenv("PATH");
  }

 private:
  std::string old_;
  bool had_ = false;
};

// A directory under the test's temporary directory, removed with what it holds when the
// test ends (it passes or not).
class TempDir {
 public:
  explicit TempDir(const std::string& name) : path_(::testing::TempDir() + name) {
    mkdir(path_.c_str(), 0700);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void make_file(const std::string& path, mode_t mode) {
  std::ofstream(path) << "#!/bin/sh\n";
  chmod(path.c_str(), mode);
}

TEST(ResolveProgram, ANameWithASlashIsAPathAlready) {
  PathGuard path("/nonexistent");
  EXPECT_EQ(resolve_program("./tool"), "./tool");
  EXPECT_EQ(resolve_program("/no/such/tool"), "/no/such/tool");
}

TEST(ResolveProgram, TheFirstExecutableOnPathWins) {
  const TempDir dir_a("profkit-path-a"), dir_b("profkit-path-b");
  const std::string& a = dir_a.path();
  const std::string& b = dir_b.path();
  make_file(a + "/tool", 0600);  // not executable: skipped
  make_file(b + "/tool", 0700);
  PathGuard path((a + ":" + b).c_str());
  EXPECT_EQ(resolve_program("tool"), b + "/tool");
  EXPECT_EQ(resolve_program("no-such-tool"), "");
}

TEST(ResolveProgram, AnEmptyEntryIsTheCurrentDirectory) {
  const TempDir temp("profkit-path-cwd");
  const std::string& dir = temp.path();
  make_file(dir + "/here-tool", 0700);
  char old[4096];
  ASSERT_NE(getcwd(old, sizeof old), nullptr);
  ASSERT_EQ(chdir(dir.c_str()), 0);
  PathGuard path("/nonexistent:");
  const std::string found = resolve_program("here-tool");
  ASSERT_EQ(chdir(old), 0);
  EXPECT_EQ(found, "./here-tool");
}

}  // namespace
}  // namespace profkit
