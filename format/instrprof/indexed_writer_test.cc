// Indexed writer: byte-identical to llvm-profdata's goldens in testdata/merge (made by
// regenerate.sh), plus the container-order emulation checked against the spec's examples
// and the Python reference of its Appendix A.
#include "format/instrprof/indexed_writer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "format/bytes/cursor.h"
#include "format/bytes/hash.h"
#include "format/instrprof/llvm_order.h"
#include "format/instrprof/merge.h"
#include "format/instrprof/raw_reader.h"

#include "format/instrprof/testdata_file.h"

namespace profkit::instrprof {
namespace {

std::string testdata(const std::string& name) { return testdata_file("merge/" + name); }

std::string merge_and_write(const std::vector<std::pair<std::string, uint64_t>>& inputs,
                            uint32_t version) {
  MergeOptions o;
  o.llvm14_semantics = version == 7;
  Merger m(o);
  RawReader reader;
  for (const auto& [name, weight] : inputs) {
    const std::string bytes = testdata(name);
    auto added = m.add_raw(as_bytes(bytes), weight, reader);
    EXPECT_TRUE(added) << name;
  }
  auto out = write_indexed_profile(m.finish(), version);
  EXPECT_TRUE(out);
  return out ? *out : std::string();
}

struct Golden {
  std::vector<std::pair<std::string, uint64_t>> inputs;
  uint32_t version;
  std::string expected;
};

TEST(IndexedWriter, MatchesLlvmProfdataGoldens) {
  const std::vector<Golden> goldens = {
      {{{"simple22.profraw", 1}}, 13, "simple22.profdata"},
      {{{"simple22.profraw", 1}}, 11, "simple22_v11.profdata"},
      {{{"simple14.profraw", 1}}, 7, "simple14.profdata"},
      {{{"vp14.profraw", 1}}, 7, "vp14.profdata"},
      {{{"vp22.profraw", 1}, {"vp22b.profraw", 1}}, 13, "vp22_two.profdata"},
      {{{"vp22.profraw", 3}, {"vp22b.profraw", 1}}, 13, "vp22_w3.profdata"},
  };
  for (const Golden& g : goldens) {
    const std::string want = testdata(g.expected);
    ASSERT_FALSE(want.empty()) << g.expected;
    const std::string got = merge_and_write(g.inputs, g.version);
    EXPECT_EQ(got.size(), want.size()) << g.expected;
    EXPECT_TRUE(got == want) << g.expected << " differs";
  }
}

TEST(IndexedWriter, HeaderSizesAndOffsetsFollowTheVersion) {
  Profile p;
  p.flags = kFlagIR;
  for (auto [version, header] : {std::pair{7u, 40u}, {11u, 64u}, {13u, 72u}}) {
    auto out = write_indexed_profile(p, version);
    ASSERT_TRUE(out);
    EXPECT_EQ(load_le<uint64_t>(reinterpret_cast<const uint8_t*>(out->data()) + 8),
              kFlagIR | version);
    // The summary (448 bytes) follows the header; the empty table is 1 bucket at HashOffset.
    const uint64_t hash_offset = load_le<uint64_t>(reinterpret_cast<const uint8_t*>(out->data()) + 0x20);
    EXPECT_EQ(hash_offset, header + 448u) << version;
    EXPECT_EQ(load_le<uint64_t>(reinterpret_cast<const uint8_t*>(out->data()) + hash_offset), 1u);
  }
}

TEST(IndexedWriter, WritesMemProfSectionWhenFlagged) {
  Profile p;
  p.flags = kFlagIR | kFlagMemProf;
  p.memprof_section = std::string("\x04\0\0\0\0\0\0\0", 8);
  auto out = write_indexed_profile(p, 13);
  ASSERT_TRUE(out);
  const auto* b = reinterpret_cast<const uint8_t*>(out->data());
  const uint64_t memprof = load_le<uint64_t>(b + 0x28);
  ASSERT_NE(memprof, 0u);
  EXPECT_EQ(load_le<uint64_t>(b + memprof), 4u);
  EXPECT_EQ(load_le<uint64_t>(b + 0x30), memprof + 8);  // binary ids follow
  auto v7 = write_indexed_profile(p, 7);
  ASSERT_TRUE(v7);
  EXPECT_EQ(load_le<uint64_t>(reinterpret_cast<const uint8_t*>(v7->data()) + 8) & kFlagMemProf, 0u);
}

TEST(IndexedWriter, RejectsVersionsItCannotWrite) {
  auto out = write_indexed_profile(Profile{}, 12);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::invalid_argument);
}

TEST(LlvmOrder, BucketCountsFollowTheGenerator) {
  for (auto [keys, buckets] : {std::pair{0u, 1u}, {2u, 1u}, {4u, 8u}, {7u, 16u}, {11u, 16u},
                               {301u, 512u}}) {
    std::vector<uint64_t> hashes;
    for (uint32_t i = 0; i < keys; ++i) hashes.push_back(md5_name_ref("f" + std::to_string(i)));
    EXPECT_EQ(on_disk_hash_buckets(hashes).size(), buckets) << keys << " keys";
  }
}

TEST(LlvmOrder, BucketChainsMatchThePythonReference) {
  // Appendix A's emit_buckets over f0..f99: 256 buckets; the first chains with two items.
  std::vector<uint64_t> hashes;
  for (int i = 0; i < 100; ++i) hashes.push_back(md5_name_ref("f" + std::to_string(i)));
  const auto buckets = on_disk_hash_buckets(hashes);
  ASSERT_EQ(buckets.size(), 256u);
  std::vector<std::vector<uint32_t>> multi;
  for (const auto& b : buckets)
    if (b.size() > 1) multi.push_back(b);
  ASSERT_GE(multi.size(), 3u);
  EXPECT_EQ(multi[0], (std::vector<uint32_t>{3, 91}));
  EXPECT_EQ(multi[1], (std::vector<uint32_t>{46, 43}));
  EXPECT_EQ(multi[2], (std::vector<uint32_t>{37, 27}));
}

TEST(LlvmOrder, StringMapOrderMatchesTheSpecExample) {
  const std::vector<std::string_view> keys = {"compute", "simple.c:helper", "never_called", "main"};
  const auto order = string_map_order(keys, StringMapHash::djb);
  EXPECT_EQ(order, (std::vector<uint32_t>{2, 1, 3, 0}));
}

TEST(LlvmOrder, DenseMapOrderDiffersBetweenReleases) {
  const std::vector<uint64_t> two = {0x0209AA3E3852DA94ull, 0x156E49BEEFA77570ull};
  EXPECT_EQ(dense_map_order(two, DenseMapHash::llvm22),
            (std::vector<uint64_t>{0x156E49BEEFA77570ull, 0x0209AA3E3852DA94ull}));
  EXPECT_EQ(dense_map_order(two, DenseMapHash::llvm14), two);
  // Three or more keys move the map to 64 slots (values from the Appendix A reference).
  const std::vector<uint64_t> five = {1, 2, 3, 0x12345678, 0xdeadbeefcafe};
  EXPECT_EQ(dense_map_order(five, DenseMapHash::llvm22),
            (std::vector<uint64_t>{0xdeadbeefcafe, 2, 1, 3, 0x12345678}));
  EXPECT_EQ(dense_map_order(five, DenseMapHash::llvm14),
            (std::vector<uint64_t>{2, 0x12345678, 1, 3, 0xdeadbeefcafe}));
}

}  // namespace
}  // namespace profkit::instrprof
