// OutputFile: whole-or-nothing regular files, and devices / FIFOs written in place (renaming
// a temporary file over /dev/null once replaced the machine's /dev/null with a regular file;
// a FIFO of our own stands in for the device here, so the test does not depend on the
// machine's /dev/null being intact).
#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace
}  // namespace profkit
