#include "io/mapped_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

namespace profkit {
namespace {

std::string temp_path(const char* name) {
  return std::string(::testing::TempDir()) + "/mapped_file_test_" + std::to_string(::getpid()) + name;
}

TEST(MappedFileTest, EndlessDeviceIsRefusedAfterABoundedRead) {
  auto f = MappedFile::open("/dev/zero", MappedFile::Access::whole);
  ASSERT_FALSE(f.has_value());
  EXPECT_EQ(f.error().offset, MappedFile::kMaxStreamedInput);
  EXPECT_NE(f.error().message.find("pipe or device"), std::string::npos);
}

TEST(MappedFileTest, FifoIsReadWhole) {
  const std::string path = temp_path("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(path, std::ios::binary);
    out << std::string(200000, 'x');
  });
  auto f = MappedFile::open(path, MappedFile::Access::whole);
  writer.join();
  std::remove(path.c_str());
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->bytes().size(), 200000u);
}

TEST(MappedFileTest, RegularFileIsMappedAndDirectoriesRefused) {
  const std::string path = temp_path("regular");
  { std::ofstream(path, std::ios::binary) << "abc"; }
  auto f = MappedFile::open(path);
  std::remove(path.c_str());
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(as_string_view(f->bytes()), "abc");
  EXPECT_FALSE(MappedFile::open("/").has_value());
}

}  // namespace
}  // namespace profkit
