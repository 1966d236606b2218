// Cursor: bounds checks, byte order, LEB128 and error offsets.
#include "format/bytes/cursor.h"

#include <gtest/gtest.h>

#include <vector>

namespace profkit {
namespace {

TEST(Cursor, ReadsLittleEndianAndAdvances) {
  const std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04, 0x05};
  Cursor c(bytes);
  auto v = c.read<uint32_t>("u32");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, 0x04030201u);
  EXPECT_EQ(c.offset(), 4u);
  EXPECT_EQ(c.remaining(), 1u);
}

TEST(Cursor, SwappedCursorReversesBytes) {
  const std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04};
  Cursor c(bytes, 0, /*swap=*/true);
  EXPECT_EQ(*c.read<uint32_t>("u32"), 0x01020304u);
}

TEST(Cursor, TruncatedReadFailsAtCurrentOffsetWithoutMoving) {
  const std::vector<uint8_t> bytes = {1, 2, 3};
  Cursor c(bytes, /*base_offset=*/100);
  ASSERT_TRUE(c.skip(1, "first"));
  auto v = c.read<uint32_t>("counter");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, ErrorCode::truncated);
  EXPECT_EQ(v.error().offset, 101u);
  EXPECT_NE(v.error().message.find("counter"), std::string::npos);
  EXPECT_EQ(c.position(), 1u);
}

TEST(Cursor, TakeBoundsTheSubCursorAndKeepsFileOffsets) {
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6};
  Cursor c(bytes);
  ASSERT_TRUE(c.skip(2, "x"));
  auto sub = c.take(2, "section");
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->offset(), 2u);
  EXPECT_EQ(*sub->read<uint8_t>("a"), 3);
  EXPECT_EQ(*sub->read<uint8_t>("b"), 4);
  EXPECT_FALSE(sub->read<uint8_t>("c"));
  EXPECT_EQ(c.offset(), 4u);
}

TEST(Cursor, Uleb128RoundTripsAndRejectsOverlongValues) {
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 300ull, 0xFFFFFFFFull, ~0ull}) {
    std::string enc;
    append_uleb128(enc, v);
    Cursor c(as_bytes(enc));
    auto got = c.read_uleb128("v");
    ASSERT_TRUE(got) << v;
    EXPECT_EQ(*got, v);
    EXPECT_TRUE(c.at_end());
  }
  const std::vector<uint8_t> too_big = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
  Cursor c(too_big);
  auto r = c.read_uleb128("v");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::malformed);
  const std::vector<uint8_t> unterminated = {0x80, 0x80};
  Cursor u(unterminated);
  EXPECT_EQ(u.read_uleb128("v").error().code, ErrorCode::truncated);
}

TEST(Cursor, Sleb128RoundTrips) {
  for (int64_t v : std::initializer_list<int64_t>{0, 1, -1, 63, -64, 64, -65, INT64_MIN, INT64_MAX}) {
    std::string enc;
    append_sleb128(enc, v);
    Cursor c(as_bytes(enc));
    auto got = c.read_sleb128("v");
    ASSERT_TRUE(got) << v;
    EXPECT_EQ(*got, v);
  }
}

TEST(Cursor, SeekPastEndIsMalformed) {
  const std::vector<uint8_t> bytes = {1, 2};
  Cursor c(bytes, 10);
  EXPECT_TRUE(c.seek(2, "end"));
  auto r = c.seek(3, "section offset");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::malformed);
}

TEST(FormatError, NamesFileOffsetAndCode) {
  Error e{ErrorCode::truncated, 42, "expected counter"};
  EXPECT_EQ(format_error("a.profraw", e), "a.profraw:42: error: expected counter (truncated)");
  Error no_offset{ErrorCode::io, kNoOffset, "cannot open"};
  EXPECT_EQ(format_error("x", no_offset), "x: error: cannot open (i/o error)");
}

}  // namespace
}  // namespace profkit
