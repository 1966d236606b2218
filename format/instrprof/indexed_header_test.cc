#include "format/instrprof/indexed_header.h"

#include <gtest/gtest.h>

#include <string>

namespace profkit::instrprof {
namespace {

TEST(IndexedHeader, SizeGrowsOnlyWhereAVersionAddsAnOffset) {
  EXPECT_EQ(indexed_header_size(1), 40u);
  EXPECT_EQ(indexed_header_size(7), 40u);
  EXPECT_EQ(indexed_header_size(8), 48u);
  EXPECT_EQ(indexed_header_size(9), 56u);
  EXPECT_EQ(indexed_header_size(10), 64u);
  EXPECT_EQ(indexed_header_size(11), 64u);
  EXPECT_EQ(indexed_header_size(12), 72u);
  EXPECT_EQ(indexed_header_size(13), 72u);
  EXPECT_EQ(field_offset(IndexedHeaderField::hash_offset), 0x20u);
  EXPECT_EQ(field_offset(IndexedHeaderField::memprof_offset), 0x28u);
  EXPECT_EQ(field_offset(IndexedHeaderField::vtable_names_offset), 0x40u);
}

TEST(IndexedHeader, WrittenThenRewrittenHeaderReadsBackForEveryVersion) {
  for (uint64_t version = kIndexedMinVersion; version <= kIndexedMaxVersion; ++version) {
    IndexedHeader h;
    h.version_word = version | (uint64_t{1} << 62);
    std::string out;
    append_indexed_header(out, h);
    ASSERT_EQ(out.size(), indexed_header_size(version)) << version;
    EXPECT_EQ(h.size_bytes, out.size());
    h.hash_offset = 0x100;
    h.memprof_offset = 0x200;
    h.binary_id_offset = 0x300;
    h.temporal_traces_offset = 0x400;
    h.vtable_names_offset = 0x500;
    rewrite_indexed_header(out, h);
    auto back = read_indexed_header(as_bytes(out));
    ASSERT_TRUE(back) << version;
    EXPECT_EQ(back->version_word, h.version_word);
    EXPECT_EQ(back->hash_offset, 0x100u);
    EXPECT_EQ(back->memprof_offset, version >= 8 ? 0x200u : 0u) << version;
    EXPECT_EQ(back->binary_id_offset, version >= 9 ? 0x300u : 0u) << version;
    EXPECT_EQ(back->temporal_traces_offset, version >= 10 ? 0x400u : 0u) << version;
    EXPECT_EQ(back->vtable_names_offset, version >= 12 ? 0x500u : 0u) << version;
    EXPECT_EQ(back->size_bytes, out.size());
  }
}

TEST(IndexedHeader, EveryTruncationIsAnErrorWithItsOffset) {
  IndexedHeader h;
  h.version_word = 13;
  std::string out;
  append_indexed_header(out, h);
  for (size_t n = 0; n < out.size(); ++n) {
    auto r = read_indexed_header(as_bytes(out).subspan(0, n));
    ASSERT_FALSE(r) << n;
    EXPECT_EQ(r.error().code, ErrorCode::truncated) << n;
  }
}

TEST(IndexedHeader, RejectsUnknownVersionsAndHashTypes) {
  IndexedHeader h;
  h.version_word = 14;
  std::string out;
  append_indexed_header(out, h);
  EXPECT_EQ(read_indexed_header(as_bytes(out)).error().code, ErrorCode::unsupported_version);
  h.version_word = 13;
  h.hash_type = 1;
  out.clear();
  append_indexed_header(out, h);
  auto r = read_indexed_header(as_bytes(out));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().offset, 0x18u);
}

}  // namespace
}  // namespace profkit::instrprof
