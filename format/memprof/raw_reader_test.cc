// Raw memprof reader: a hand-built v5 profile (fields as in docs/formats/memprof.md B.6), v1 and
// v3 layouts, chained profiles, and rejection of truncated or inconsistent input.
#include "format/memprof/raw_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace profkit::memprof {
namespace {

void pad8(std::string& s) {
  while (s.size() % 8 != 0) s += '\0';
}

struct Mib {
  uint64_t stack_id;
  uint32_t alloc_count;
  uint64_t total_size;
  std::vector<uint16_t> hist;  // v5 encoded
};

// Builds one profile of `version` with one segment, the given MIBs and one stack per MIB.
std::string build(uint64_t version, const std::vector<Mib>& mibs,
                  const std::vector<std::pair<uint64_t, std::vector<uint64_t>>>& stacks) {
  std::string seg, mib, stk;
  append_le<uint64_t>(seg, 1);
  append_le<uint64_t>(seg, 0x400000);
  append_le<uint64_t>(seg, 0x401000);
  append_le<uint64_t>(seg, 0);
  if (version >= 3) append_le<uint64_t>(seg, 20);
  for (int i = 0; i < 32; ++i) seg += static_cast<char>(i < 20 ? i + 1 : 0);
  pad8(seg);
  append_le<uint64_t>(mib, mibs.size());
  for (const Mib& m : mibs) {
    append_le<uint64_t>(mib, m.stack_id);
    std::string body;
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge)                            \
  if (version >= First) {                                                    \
    uint64_t v = 0;                                                          \
    if (Tag == 1) v = m.alloc_count;                                         \
    if (Tag == 5) v = m.total_size;                                          \
    if (Tag == 26) v = m.hist.size();                                        \
    if (sizeof(Type) == 4) append_le<uint32_t>(body, static_cast<uint32_t>(v)); else append_le<uint64_t>(body, v); \
  }
#include "format/memprof/mib_fields.def"
    mib += body;
    for (uint16_t h : m.hist) append_le<uint16_t>(mib, h);
  }
  pad8(mib);
  append_le<uint64_t>(stk, stacks.size());
  for (const auto& [id, pcs] : stacks) {
    append_le<uint64_t>(stk, id);
    append_le<uint64_t>(stk, pcs.size());
    for (uint64_t pc : pcs) append_le<uint64_t>(stk, pc);
  }
  std::string p;
  append_le<uint64_t>(p, kRawMagic);
  append_le<uint64_t>(p, version);
  append_le<uint64_t>(p, 48 + seg.size() + mib.size() + stk.size());
  append_le<uint64_t>(p, 48);
  append_le<uint64_t>(p, 48 + seg.size());
  append_le<uint64_t>(p, 48 + seg.size() + mib.size());
  return p + seg + mib + stk;
}

// Appends profkit's live/peak extension (raw_layout.h) to a profile from build(), inside its
// TotalSize; `claimed` overrides the entry count written.
std::string with_live_peak(std::string p, const std::vector<LivePeakEntry>& entries,
                           uint64_t claimed = ~uint64_t{0}) {
  pad8(p);
  const uint64_t n = claimed == ~uint64_t{0} ? entries.size() : claimed;
  for (uint64_t v : {kHeapExtMagic, kHeapExtHeaderSize + kHeapExtEntrySize * n, kHeapExtVersion,
                     kHeapExtAtExit, uint64_t{900}, uint64_t{400}, uint64_t{5000}, uint64_t{7}, n})
    append_le<uint64_t>(p, v);
  for (const LivePeakEntry& e : entries)
    for (uint64_t v : {e.stack_id, e.live_blocks, e.live_bytes, e.peak_blocks, e.peak_bytes})
      append_le<uint64_t>(p, v);
  const uint64_t total = p.size();
  for (int i = 0; i < 8; ++i) p[16 + i] = static_cast<char>(total >> (8 * i));
  return p;
}

TEST(MemProfRawReader, ReadsProfkitsLivePeakExtension) {
  const std::string f = with_live_peak(build(5, {{1, 4, 160, {}}, {2, 1, 8, {}}}, {{1, {0x400010}}, {2, {0x400020}}}),
                                       {{1, 2, 80, 4, 160}, {2, 0, 0, 1, 8}});
  auto r = read_raw_profiles(as_bytes(f));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  ASSERT_TRUE((*r)[0].live_peak.has_value());
  const LivePeak& lp = *(*r)[0].live_peak;
  EXPECT_TRUE(lp.at_exit);
  EXPECT_EQ(lp.dump_time_ms, 900u);
  EXPECT_EQ(lp.peak_time_ms, 400u);
  EXPECT_EQ(lp.peak_bytes, 5000u);
  EXPECT_EQ(lp.peak_blocks, 7u);
  ASSERT_EQ(lp.entries.size(), 2u);
  EXPECT_EQ(lp.entries[0].live_bytes, 80u);
  EXPECT_EQ(lp.entries[0].peak_bytes, 160u);
  EXPECT_EQ(lp.entries[1].peak_blocks, 1u);
  auto merged = merge_raw_profiles(std::move(*r));
  ASSERT_TRUE(merged);
  ASSERT_TRUE(merged->live_peak.has_value());
  EXPECT_EQ(merged->live_peak->entries.size(), 2u);
  // Without the extension (LLVM's runtime): none.
  auto plain = read_raw_profiles(as_bytes(build(5, {{1, 4, 160, {}}}, {{1, {0x400010}}})));
  ASSERT_TRUE(plain);
  EXPECT_FALSE((*plain)[0].live_peak.has_value());
}

TEST(MemProfRawReader, RejectsALivePeakExtensionLargerThanTheProfile) {
  const std::string f = with_live_peak(build(5, {{1, 4, 160, {}}}, {{1, {0x400010}}}), {{1, 2, 80, 4, 160}}, 1000);
  auto r = read_raw_profiles(as_bytes(f));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("live/peak extension of 1000 entries"), std::string::npos)
      << r.error().message;
}

TEST(MemProfRawReader, ReadsV5WithHistogram) {
  const std::string f = build(5, {{1, 4, 160, {8, 4, 0, 0, 0x19C4}}}, {{1, {0x400010, 0x400020}}});
  auto r = read_raw_profiles(as_bytes(f));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  const RawProfile& p = (*r)[0];
  EXPECT_EQ(p.version, 5u);
  ASSERT_EQ(p.segments.size(), 1u);
  EXPECT_EQ(p.segments[0].build_id.size(), 20u);
  EXPECT_EQ(p.segments[0].start, 0x400000u);
  ASSERT_EQ(p.mibs.size(), 1u);
  EXPECT_EQ(p.mibs[0].mib.AllocCount, 4u);
  EXPECT_EQ(p.mibs[0].mib.TotalSize, 160u);
  EXPECT_EQ(p.mibs[0].histogram, (std::vector<uint64_t>{8, 4, 0, 0, 5000}));
  ASSERT_EQ(p.stacks.size(), 1u);
  EXPECT_EQ(std::vector<uint64_t>(p.stacks[0].pcs.begin(), p.stacks[0].pcs.end()),
            (std::vector<uint64_t>{0x400010, 0x400020}));
}

TEST(MemProfRawReader, ReportsTheMibAndStackSectionsAsConsumed) {
  const std::string f = build(5, {{1, 4, 160, {8, 4, 0, 0, 0x19C4}}, {2, 1, 8, {}}},
                              {{1, {0x400010, 0x400020}}, {2, {0x400030}}});
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  auto r = read_raw_profiles(as_bytes(f), [&](uint64_t offset, uint64_t size) {
    ranges.emplace_back(offset, size);
  });
  ASSERT_TRUE(r) << r.error().message;
  // Two sections, each reported once (they are smaller than a step) from their first entry
  // to their last byte, and never the header or the segments.
  const uint64_t mib_offset = load_le<uint64_t>(as_bytes(f).data() + 0x20);
  const uint64_t stack_offset = load_le<uint64_t>(as_bytes(f).data() + 0x28);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].first, mib_offset + 8);
  EXPECT_LE(ranges[0].first + ranges[0].second, stack_offset);
  EXPECT_GE(ranges[0].first + ranges[0].second + 8, stack_offset);  // at most the padding
  EXPECT_EQ(ranges[1].first, stack_offset + 8);
  EXPECT_EQ(ranges[1].first + ranges[1].second, f.size());
  ASSERT_EQ((*r)[0].stacks.size(), 2u);
  EXPECT_EQ((*r)[0].stacks[1].pcs.size(), 1u);
}

TEST(MemProfRawReader, ReadsV1AndV3Layouts) {
  for (uint64_t v : {1, 3}) {
    const std::string f = build(v, {{7, 2, 64, {}}}, {{7, {0x400100}}});
    auto r = read_raw_profiles(as_bytes(f));
    ASSERT_TRUE(r) << "v" << v << ": " << r.error().message;
    EXPECT_EQ((*r)[0].mibs[0].mib.AllocCount, 2u);
    EXPECT_EQ((*r)[0].mibs[0].mib.TotalSize, 64u);
    EXPECT_EQ((*r)[0].segments[0].build_id.size(), v == 1 ? 0u : 20u);
  }
}

TEST(MemProfRawReader, MergesChainedProfilesByStackId) {
  const std::string f = build(5, {{1, 4, 160, {}}}, {{1, {0x400010}}}) +
                        build(5, {{1, 2, 80, {}}, {2, 1, 8, {}}}, {{2, {0x400030}}});
  auto r = read_raw_profiles(as_bytes(f));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  auto m = merge_raw_profiles(std::move(*r));
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->mibs.size(), 2u);
  EXPECT_EQ(m->mibs[0].mib.AllocCount, 6u);
  EXPECT_EQ(m->mibs[0].mib.TotalSize, 240u);
  const auto pcs = m->stacks[m->mib_stack[1]].pcs;
  EXPECT_EQ(std::vector<uint64_t>(pcs.begin(), pcs.end()), (std::vector<uint64_t>{0x400030}));
}

TEST(MemProfRawReader, RejectsMibWithoutStack) {
  const std::string f = build(5, {{9, 1, 8, {}}}, {});
  auto r = read_raw_profiles(as_bytes(f));
  ASSERT_TRUE(r);
  auto m = merge_raw_profiles(std::move(*r));
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("does not contain id: 9"), std::string::npos);
}

TEST(MemProfRawReader, RejectsConflictingStacks) {
  const std::string f = build(5, {{1, 1, 8, {}}}, {{1, {0x400010}}}) +
                        build(5, {}, {{1, {0x400020}}});
  auto r = read_raw_profiles(as_bytes(f));
  ASSERT_TRUE(r);
  EXPECT_FALSE(merge_raw_profiles(std::move(*r)));
}

TEST(MemProfRawReader, EveryPrefixFailsCleanly) {
  const std::string f = build(5, {{1, 4, 160, {1, 2, 3}}}, {{1, {0x400010, 0x400020}}});
  for (size_t n = 0; n < f.size(); ++n) {
    auto r = read_raw_profiles(as_bytes(std::string_view(f).substr(0, n)));
    EXPECT_FALSE(r) << "prefix " << n;
    if (!r) {
      EXPECT_EQ(r.error().code, ErrorCode::truncated) << "prefix " << n;
    }
  }
}

TEST(MemProfRawReader, RejectsBadMagicVersionAndTrailingBytes) {
  std::string f = build(5, {}, {});
  std::string bad = f;
  bad[0] = 0;
  EXPECT_EQ(read_raw_profiles(as_bytes(bad)).error().code, ErrorCode::bad_magic);
  bad = f;
  bad[8] = 6;
  auto v = read_raw_profiles(as_bytes(bad));
  EXPECT_EQ(v.error().code, ErrorCode::unsupported_version);
  EXPECT_EQ(v.error().offset, 8u);
  auto t = read_raw_profiles(as_bytes(f + std::string(8, '\0')));
  EXPECT_FALSE(t);
}

// A section offset outside the profile is reported at the header field that holds it:
// segment offset at byte 24, MIB offset at 32, stack offset at 40 (all three were at 24).
TEST(MemProfRawReader, ABadSectionOffsetIsReportedAtItsField) {
  const std::string f = build(5, {}, {});
  for (const size_t field : {size_t{24}, size_t{32}, size_t{40}}) {
    std::string bad = f;
    for (size_t i = 0; i < 8; ++i) bad[field + i] = i < 3 ? '\xff' : '\0';
    auto r = read_raw_profiles(as_bytes(bad));
    ASSERT_FALSE(r) << field;
    EXPECT_EQ(r.error().code, ErrorCode::malformed) << field;
    EXPECT_EQ(r.error().offset, field) << r.error().message;
  }
}

TEST(MemProfRawReader, HugeCountsAreRejectedBeforeAllocation) {
  std::string f = build(5, {{1, 1, 8, {}}}, {{1, {0x400010}}});
  // Overwrite the segment count with a huge claim.
  std::string bad = f;
  for (int i = 0; i < 8; ++i) bad[48 + i] = static_cast<char>(0xff);
  auto r = read_raw_profiles(as_bytes(bad));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().offset, 56u);
}

TEST(MemProfRawReader, OverstatedStackCountIsRejectedAtTheFirstStackThatLeavesTooLittle) {
  // One stack of 20 PCs, but the count claims 3: the 20 PCs leave fewer than the 32 bytes
  // the two missing stacks need at least. (The PC pool is reserved for the count; reading
  // on would have outgrown it.)
  std::vector<uint64_t> pcs(20, 0x400010);
  std::string bad = build(5, {{1, 1, 8, {}}}, {{1, pcs}});
  uint64_t stack_off = 0;
  for (int i = 0; i < 8; ++i) stack_off |= uint64_t{static_cast<uint8_t>(bad[40 + i])} << (8 * i);
  bad[stack_off] = 3;
  auto r = read_raw_profiles(as_bytes(bad));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().offset, stack_off + 24);
  EXPECT_NE(r.error().message.find("2 stacks after it"), std::string::npos) << r.error().message;
}

TEST(MemProfRawReader, MergeMibFollowsRuntimeRules) {
  MemInfoBlock a, b;
  a.AllocCount = 1;
  a.MinSize = a.MaxSize = 10;
  a.TotalSize = 10;
  a.AllocTimestamp = 5;
  a.DeallocTimestamp = 20;
  a.AllocCpuId = 1;
  a.DeallocCpuId = 2;
  a.NumMigratedCpu = 1;
  b.AllocCount = 1;
  b.MinSize = b.MaxSize = 30;
  b.TotalSize = 30;
  b.AllocTimestamp = 10;
  b.DeallocTimestamp = 40;
  b.AllocCpuId = 1;
  b.DeallocCpuId = 3;
  std::vector<uint64_t> ha = {1, 2}, hb = {10, 20, 30};
  merge_mib(a, ha, b, hb);
  EXPECT_EQ(a.AllocCount, 2u);
  EXPECT_EQ(a.TotalSize, 40u);
  EXPECT_EQ(a.MinSize, 10u);
  EXPECT_EQ(a.MaxSize, 30u);
  EXPECT_EQ(a.NumLifetimeOverlaps, 1u);  // 10 < 20
  EXPECT_EQ(a.AllocTimestamp, 10u);
  EXPECT_EQ(a.NumSameAllocCpu, 1u);
  EXPECT_EQ(a.NumSameDeallocCpu, 0u);
  EXPECT_EQ(a.DeallocCpuId, 3u);
  EXPECT_EQ(a.NumMigratedCpu, 1u);  // not merged
  EXPECT_EQ(ha, (std::vector<uint64_t>{11, 22, 30}));
  EXPECT_EQ(a.AccessHistogramSize, 3u);
}

}  // namespace
}  // namespace profkit::memprof

namespace profkit::memprof {
namespace {

// Every field merges by its Merge column: sum, min, max, or left to the caller (other).
TEST(MibFields, MergeFollowsTheTablesRuleForEveryField) {
  MemInfoBlock m, n;
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) \
  m.Name = 3;                                            \
  n.Name = 4;
#include "format/memprof/mib_fields.def"
  merge_mib_fields(m, n);
  const auto want = [](std::string_view rule) -> uint64_t {
    return rule == "sum" ? 7 : rule == "max" ? 4 : 3;  // min and other keep 3
  };
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) \
  EXPECT_EQ(static_cast<uint64_t>(m.Name), want(#Merge)) << #Name;
#include "format/memprof/mib_fields.def"
  EXPECT_EQ(m.AllocCount, 7u);
  EXPECT_EQ(m.MinLifetime, 3u);
  EXPECT_EQ(m.MaxAccessCount, 4u);
  EXPECT_EQ(m.AllocCpuId, 3u);
}

}  // namespace
}  // namespace profkit::memprof
