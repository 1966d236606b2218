// OutputFile: whole-or-nothing regular files, and devices / FIFOs written in place (renaming
// a temporary file over /dev/null once replaced the machine's /dev/null with a regular file;
// a FIFO of our own stands in for the device here, so the test does not depend on the
// machine's /dev/null being intact).
#include "io/output_file.h"
#include "io/same_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace profkit {
namespace {

namespace fs = std::filesystem;

std::string temp_dir() {
  const fs::path dir = fs::path(PROFKIT_BINARY_DIR) / "testwork" / "output_file_test";
  fs::create_directories(dir);
  return dir.string();
}

TEST(OutputFile, RegularFileAppearsOnCommitOnly) {
  const std::string path = temp_dir() + "/out";
  fs::remove(path);
  {
    auto out = OutputFile::create(path);
    ASSERT_TRUE(out.has_value());
    ASSERT_TRUE(out->write("partial").has_value());
  }  // abandoned
  EXPECT_FALSE(fs::exists(path));
  ASSERT_TRUE(write_file_atomically(path, "whole").has_value());
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "whole");
  for (const auto& e : fs::directory_iterator(temp_dir()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(OutputFile, FifoIsWrittenInPlaceNotReplaced) {
  const std::string path = temp_dir() + "/fifo";
  fs::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // The read end first (non-blocking, so no thread can hang if the FIFO gets replaced);
  // the message fits the pipe buffer, so the write does not block either.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(write_file_atomically(path, "through the pipe").has_value());
  char buf[64];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  fs::remove(path);
}


// A symlink given as output is followed: the target gets the bytes (through a temporary file
// beside the target, renamed over it) and the link stays a link. Renaming over the link
// replaced it with a regular file and left the target as it was.
TEST(OutputFile, SymlinkIsFollowedNotReplaced) {
  const std::string dir = temp_dir() + "/link";
  fs::remove_all(dir);
  fs::create_directories(dir + "/real");
  { std::ofstream(dir + "/real/x") << "old"; }
  fs::create_symlink("real/x", dir + "/out");  // relative to the link's directory
  fs::create_symlink("out", dir + "/out2");    // a chain of links
  ASSERT_TRUE(write_file_atomically(dir + "/out2", "new").has_value());
  EXPECT_TRUE(fs::is_symlink(dir + "/out"));
  EXPECT_TRUE(fs::is_symlink(dir + "/out2"));
  std::ifstream in(dir + "/real/x");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "new");
  for (const auto& e : fs::recursive_directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  fs::remove_all(dir);
}

TEST(OutputFile, DanglingSymlinkCreatesItsTarget) {
  const std::string dir = temp_dir() + "/dangling";
  fs::remove_all(dir);
  fs::create_directories(dir + "/real");
  fs::create_symlink(dir + "/real/new", dir + "/out");  // absolute, target missing
  {
    auto out = OutputFile::create(dir + "/out");
    ASSERT_TRUE(out.has_value());
    ASSERT_TRUE(out->write("partial").has_value());
  }  // abandoned: nothing appears, the link stays
  EXPECT_FALSE(fs::exists(dir + "/real/new"));
  EXPECT_TRUE(fs::is_symlink(dir + "/out"));
  ASSERT_TRUE(write_file_atomically(dir + "/out", "made").has_value());
  EXPECT_TRUE(fs::is_symlink(dir + "/out"));
  std::ifstream in(dir + "/real/new");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "made");
  fs::remove_all(dir);
}

// A link to something that is not a regular file (as /dev/stdout -> /proc/self/fd/1 -> a
// pipe) is written in place, as the device or FIFO itself is.
TEST(OutputFile, SymlinkToFifoIsWrittenInPlace) {
  const std::string dir = temp_dir() + "/fifolink";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("fifo", dir + "/out");
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(write_file_atomically(dir + "/out", "via the link").has_value());
  char buf[64];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "via the link");
  EXPECT_TRUE(fs::is_symlink(dir + "/out"));
  struct stat st;
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  fs::remove_all(dir);
}

// A link to /proc/self/fd/N of a regular file: followed through the magic link to the file
// itself (whose path is longer than the size /proc's links report, which once looped).
TEST(OutputFile, LinkThroughProcFdReachesTheFile) {
  const std::string dir = temp_dir() + "/procfd/" + std::string(120, 'd');
  fs::remove_all(temp_dir() + "/procfd");
  fs::create_directories(dir);
  const std::string file = dir + "/target";
  { std::ofstream(file) << "old"; }
  const int fd = ::open(file.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const std::string link = temp_dir() + "/procfd/link";
  fs::create_symlink("/proc/self/fd/" + std::to_string(fd), link);
  const bool written = write_file_atomically(link, "new").has_value();
  ::close(fd);
  EXPECT_TRUE(written);
  EXPECT_TRUE(fs::is_symlink(link));
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "new");
  fs::remove_all(temp_dir() + "/procfd");
}

// A symlink loop is an error, not a hang.
TEST(OutputFile, SymlinkLoopIsAnError) {
  const std::string dir = temp_dir() + "/loop";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink("b", dir + "/a");
  fs::create_symlink("a", dir + "/b");
  EXPECT_FALSE(write_file_atomically(dir + "/a", "x").has_value());
  EXPECT_TRUE(fs::is_symlink(dir + "/a"));
  fs::remove_all(dir);
}

// Two outputs that both land on standard output, one as "-" and one through a path naming
// the file on fd 1 (a link to /proc/self/fd/1), are two outputs on one file.
TEST(SameFile, DashAndAPathToStandardOutputClash) {
  const std::string dir = temp_dir() + "/stdout";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string file = dir + "/captured";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  const int saved = ::dup(STDOUT_FILENO);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
  fs::create_symlink("/proc/self/fd/1", dir + "/mystdout");
  const std::vector<std::string> outputs = {dir + "/mystdout", "-"};
  const std::vector<std::string> swapped = {"-", dir + "/mystdout"};
  const std::vector<std::string> distinct = {dir + "/other", "-"};
  const auto clash = find_output_clash(outputs, {});
  const auto clash2 = find_output_clash(swapped, {});
  const auto none = find_output_clash(distinct, {});
  const bool on_stdout = names_standard_output(dir + "/mystdout");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(fd);
  ASSERT_TRUE(clash.has_value());
  EXPECT_TRUE(clash->other_is_output);
  EXPECT_TRUE(clash2.has_value());
  EXPECT_FALSE(none.has_value());
  EXPECT_TRUE(on_stdout);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace profkit
