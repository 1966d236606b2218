// Ids, name canonicalization and the indexed writer/reader pair, against the values checked
// in docs/formats/memprof.md C.3, C.6.4, C.10 and D.4.
#include "format/memprof/records.h"

#include <gtest/gtest.h>

#include "format/memprof/indexed_reader.h"
#include "format/memprof/indexed_writer.h"

namespace profkit::memprof {
namespace {

constexpr uint64_t kMain = 0xdb956436e78dd5fa;
constexpr uint64_t kMk = 0xb201650b6835d907;

TEST(MemProfIds, GuidOfMain) { EXPECT_EQ(function_guid("main"), kMain); }

TEST(MemProfIds, FrameAndCallStackIdsMatchSpec) {
  const Frame main_f{kMain, 2, 15, false};
  const Frame mk_f{kMk, 1, 13, false};
  EXPECT_EQ(frame_id(main_f), 0x043445f65ab3293cu);
  EXPECT_EQ(frame_id(mk_f), 0xeb5c078f7d9f7890u);
  const Frame both[] = {mk_f, main_f};
  EXPECT_EQ(call_stack_id(both), 0xd7fb9b92a003674fu);
  const Frame only_main[] = {main_f};
  EXPECT_EQ(call_stack_id(only_main), 0x7dc63e837c6cbd65u);
}

TEST(MemProfIds, CanonicalNames) {
  for (const char* n : {"foo.llvm.123", "foo.part.7", "foo.part.7.llvm.99", "foo.llvm."})
    EXPECT_EQ(canonical_function_name(n), "foo") << n;
  EXPECT_EQ(canonical_function_name("foo.llvm.1.2"), "foo.llvm.1.2");
  EXPECT_EQ(canonical_function_name("foo.__uniq.42"), "foo.__uniq.42");
  EXPECT_EQ(canonical_function_name("foo.__uniq.42.llvm.5"), "foo.__uniq.42");
  EXPECT_EQ(canonical_function_name("foo.cold"), "foo.cold");
  EXPECT_EQ(canonical_function_name("foo.isra.0"), "foo.isra.0");
}

// tiny.c after symbolization: mk allocates (4 x 40 bytes), main calls mk.
MemProfData tiny() {
  MemProfData d;
  const Frame mk_f{kMk, 1, 13, false};
  const Frame main_f{kMain, 2, 15, false};
  MemInfoBlock m;
  m.AllocCount = 4;
  m.TotalSize = 160;
  m.TotalLifetimeAccessDensity = 40000;
  const uint32_t context = d.stacks.add_stack(CallStack{mk_f, main_f});
  const uint32_t call = d.stacks.add_stack(CallStack{main_f});
  d.records.push_back(Record{kMk, {AllocSite{context, m, {}}}, {}});
  d.records.push_back(Record{kMain, {}, {CallSite{call, {}}}});
  return d;
}

TEST(MemProfIndexedWriter, Version3MatchesWorkedExample) {
  const std::string file = write_memprof_only_profile(tiny(), {});
  ASSERT_EQ(file.size(), 0x350u);
  auto u64 = [&](size_t off) { return load_le<uint64_t>(as_bytes(file).data() + off); };
  EXPECT_EQ(u64(0x28), 0x220u);  // MemProfOffset
  EXPECT_EQ(u64(0x220), 3u);
  EXPECT_EQ(u64(0x228), 0x28au);
  EXPECT_EQ(u64(0x230), 0x29eu);
  EXPECT_EQ(u64(0x238), 0x328u);
  EXPECT_EQ(u64(0x268), kMain);  // frame #0 is main (Count 2)
  EXPECT_EQ(u64(0x338), 0x29eu);  // the single bucket
}

TEST(MemProfIndexedWriter, Version2And4SizesMatchWorkedExample) {
  IndexedWriteOptions o;
  o.version = 2;
  EXPECT_EQ(write_memprof_only_profile(tiny(), o).size(), 0x418u);
  o.version = 4;
  EXPECT_EQ(write_memprof_only_profile(tiny(), o).size(), 0x390u);
}

TEST(MemProfIndexedReader, RoundTripsEveryVersion) {
  for (uint64_t v : kIndexedVersions) {
    IndexedWriteOptions o;
    o.version = v;
    const std::string file = write_memprof_only_profile(tiny(), o);
    auto r = read_indexed_memprof(as_bytes(file));
    ASSERT_TRUE(r) << "v" << v << ": " << r.error().message;
    ASSERT_EQ(r->data.records.size(), 2u);
    // Hash-table order: main then mk (C.10).
    EXPECT_EQ(r->data.records[0].guid, kMain);
    ASSERT_EQ(r->data.records[1].alloc_sites.size(), 1u);
    const MemProfData t = tiny();
    EXPECT_EQ(r->data.stacks.stack(r->data.records[1].alloc_sites[0].stack).to_vector(),
              t.stacks.stack(t.records[0].alloc_sites[0].stack).to_vector());
    EXPECT_EQ(r->data.records[1].alloc_sites[0].mib.TotalSize, 160u);
    EXPECT_EQ(r->summary.has_value(), v == 4);
  }
}

TEST(MemProfIndexedReader, EveryPrefixFailsCleanly) {
  for (uint64_t v : kIndexedVersions) {
    IndexedWriteOptions o;
    o.version = v;
    const std::string file = write_memprof_only_profile(tiny(), o);
    // The section ends 16 bytes before the file (binary ids, vtable names).
    for (size_t n = 0; n + 16 < file.size(); ++n)
      EXPECT_FALSE(read_indexed_memprof(as_bytes(std::string_view(file).substr(0, n))))
          << "v" << v << " prefix " << n;
  }
}

TEST(MemProfMerge, SumsMibsOfTheSameContext) {
  MemProfData a = tiny();
  merge_into(a, tiny());
  ASSERT_EQ(a.records.size(), 2u);
  ASSERT_EQ(a.records[0].alloc_sites.size(), 1u);
  EXPECT_EQ(a.records[0].alloc_sites[0].mib.AllocCount, 8u);
  EXPECT_EQ(a.records[0].alloc_sites[0].mib.TotalSize, 320u);
  EXPECT_EQ(a.records[1].call_sites.size(), 1u);
  EXPECT_EQ(a.stacks.num_stacks(), 2u);
}

TEST(MemProfClassify, ColdNeedsLongLifeAndLowDensity) {
  MemInfoBlock m;
  m.AllocCount = 1;
  m.TotalLifetime = 300000;
  m.TotalLifetimeAccessDensity = 0;
  EXPECT_EQ(classify(m), AllocType::cold);
  m.TotalLifetime = 100;
  EXPECT_EQ(classify(m), AllocType::not_cold);
}

}  // namespace
}  // namespace profkit::memprof
