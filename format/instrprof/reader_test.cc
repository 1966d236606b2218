// read_profile: format sniffing and dispatch.
#include "format/instrprof/reader.h"

#include <gtest/gtest.h>

#include <string>

#include "format/instrprof/indexed_reader.h"

namespace profkit::instrprof {
namespace {

TEST(ReadProfile, TextGoesToTheTextReader) {
  auto p = read_profile(as_bytes(":ir\nmain\n1\n1\n5\n"));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, ProfileFormat::text);
  ASSERT_EQ(p->records.size(), 1u);
}

TEST(ReadProfile, EmptyInputIsAnEmptyTextProfile) {
  auto p = read_profile(Bytes());
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->records.empty());
}

TEST(ReadProfile, IndexedMagicGoesToTheIndexedReader) {
  std::string s(16, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(kIndexedMagic >> (8 * i));
  s[8] = 99;  // version 99
  auto p = read_profile(as_bytes(s));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::unsupported_version);
}

TEST(ReadProfile, RawMagicInEitherByteOrderGoesToTheRawReader) {
  const uint64_t magics[] = {0xFF6C70726F667281ull, 0xFF6C70726F665281ull,
                             0x8172666F72706CFFull, 0x8152666F72706CFFull};
  for (uint64_t m : magics) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(m >> (8 * i));
    auto p = read_profile(as_bytes(s));
    ASSERT_FALSE(p);
    EXPECT_NE(p.error().code, ErrorCode::bad_magic) << std::hex << m;
  }
}

TEST(ReadProfile, BinaryGarbageIsBadMagic) {
  auto p = read_profile(as_bytes(std::string("\x00\x01\x02\x03\x04\x05\x06\x07\x08", 9)));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::bad_magic);
  EXPECT_EQ(p.error().offset, 0u);
}

}  // namespace
}  // namespace profkit::instrprof
