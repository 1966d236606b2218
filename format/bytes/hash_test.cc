// MD5 name refs against the spec's checked values (docs/formats/irpgo.md 2.2), and zlib round trips.
#include "format/bytes/hash.h"

#include <gtest/gtest.h>

#include "format/bytes/zlib.h"

namespace profkit {
namespace {

TEST(Md5NameRef, MatchesLlvmValues) {
  EXPECT_EQ(md5_name_ref("main"), 0xDB956436E78DD5FAull);
  EXPECT_EQ(md5_name_ref("compute"), 0xD1165E183A3FE777ull);
  EXPECT_EQ(md5_name_ref("simple.c;helper"), 0x9FB6C5A7373B2EF4ull);
  EXPECT_EQ(md5_name_ref("simple.c:helper"), 0xF9C14CF976CFDDE1ull);
  EXPECT_EQ(md5_name_ref("never_called"), 0xCC7C50DB35E7BE9Dull);
  EXPECT_EQ(md5_name_ref("add1"), 0x908F226CA9F2A3ECull);
}

TEST(Xxh3, MatchesReferenceOfEmptyInput) {
  // XXH3-64 of the empty string with seed 0, from the xxHash reference.
  EXPECT_EQ(xxh3_64(""), 0x2D06800538D394C2ull);
}

TEST(Zlib, RoundTripsAndUsesBestCompressionHeader) {
  const std::string text = "compute\x01simple.c;helper\x01never_called\x01main";
  const std::string z = zlib_compress(text);
  ASSERT_GE(z.size(), 2u);
  EXPECT_EQ(static_cast<uint8_t>(z[0]), 0x78);
  EXPECT_EQ(static_cast<uint8_t>(z[1]), 0xDA);
  auto back = zlib_uncompress(as_bytes(z), text.size(), 0);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, text);
}

TEST(Zlib, RejectsWrongSizeAndImplausibleClaims) {
  const std::string z = zlib_compress("hello world");
  EXPECT_FALSE(zlib_uncompress(as_bytes(z), 5, 7));
  auto huge = zlib_uncompress(as_bytes(z), uint64_t{1} << 40, 7);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().offset, 7u);
}


TEST(Zlib, InflatesLargeStreamsInStepsAndRejectsShortOrLongOnes) {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "name" + std::to_string(i) + '\x01';
  const std::string z = zlib_compress(text);
  auto back = zlib_uncompress(as_bytes(z), text.size(), 0);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, text);
  // Claimed smaller or larger than the stream inflates to.
  EXPECT_FALSE(zlib_uncompress(as_bytes(z), text.size() - 1, 0));
  EXPECT_FALSE(zlib_uncompress(as_bytes(z), text.size() + 1, 0));
  // Truncated stream: an error at the stream's offset, not a partial result.
  auto cut = zlib_uncompress(as_bytes(std::string_view(z).substr(0, z.size() / 2)), text.size(), 9);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().offset, 9u);
  // Corrupt header.
  std::string bad = z;
  bad[0] = 0x00;
  EXPECT_FALSE(zlib_uncompress(as_bytes(bad), text.size(), 0));
}

}  // namespace
}  // namespace profkit
