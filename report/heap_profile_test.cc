// The heap-report model on small YAML profiles (written here, read through the real YAML
// reader): context de-duplication, names, verdicts and their `why`, summary and ranking.
// Raw inputs, symbolization and agreement with clang are checked end to end in
// tests/report_conformance_test.cc.
#include "report/heap_profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "format/memprof/records.h"

namespace profkit::report {
namespace {

// `mk` (inlined into `caller`) allocates; the context is listed under both functions, as
// llvm-profdata writes it. A second context under `main` lives long and is never touched.
constexpr char kYaml[] = R"(---
HeapProfileRecords:
  - GUID: mk
    AllocSites:
      - Callstack:
          - { Function: mk, LineOffset: 1, Column: 13, IsInlineFrame: true }
          - { Function: caller, LineOffset: 4, Column: 7, IsInlineFrame: false }
        MemInfoBlock: { AllocCount: 10, TotalSize: 640, TotalAccessCount: 5000, TotalLifetime: 20, TotalLifetimeAccessDensity: 800000000 }
  - GUID: caller
    AllocSites:
      - Callstack:
          - { Function: mk, LineOffset: 1, Column: 13, IsInlineFrame: true }
          - { Function: caller, LineOffset: 4, Column: 7, IsInlineFrame: false }
        MemInfoBlock: { AllocCount: 10, TotalSize: 640, TotalAccessCount: 5000, TotalLifetime: 20, TotalLifetimeAccessDensity: 800000000 }
  - GUID: main
    AllocSites:
      - Callstack:
          - { Function: main, LineOffset: 2, Column: 3, IsInlineFrame: false }
        MemInfoBlock: { AllocCount: 2, TotalSize: 8192, TotalAccessCount: 0, TotalLifetime: 500000, TotalLifetimeAccessDensity: 0 }
      - Callstack:
          - { Function: 0x00000000000000aa, LineOffset: 0, Column: 0, IsInlineFrame: false }
        MemInfoBlock: { AllocCount: 1, TotalSize: 8192, TotalAccessCount: 1, TotalLifetime: 1, TotalLifetimeAccessDensity: 0 }
...
)";

// A file in the test's temporary directory, removed when the test is done with it.
struct TempFile {
  std::string path;
  TempFile(const std::string& name, const std::string& text)
      : path(::testing::TempDir() + "/" + std::to_string(getpid()) + "_heap_profile_test_" + name) {
    std::ofstream(path, std::ios::binary) << text;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { std::remove(path.c_str()); }
};

HeapProfile load(const memprof::ClassifyOptions& thresholds = {}) {
  HeapLoadOptions options;
  options.thresholds = thresholds;
  const TempFile file("basic.yaml", kYaml);
  auto p = load_heap_profile(file.path, options);
  EXPECT_TRUE(p) << (p ? "" : p.error().message);
  return p ? std::move(*p) : HeapProfile{};
}

const HeapContext* find(const HeapProfile& p, std::string_view leaf) {
  for (const HeapContext& c : p.contexts)
    if (!c.frames.empty() && c.frames.front().function == leaf) return &c;
  return nullptr;
}

TEST(HeapProfile, ContextListedUnderInlinedFunctionsIsCountedOnce) {
  const HeapProfile p = load();
  EXPECT_EQ(p.kind, "yaml");
  ASSERT_EQ(p.contexts.size(), 3u);
  const HeapContext* mk = find(p, "mk");
  ASSERT_NE(mk, nullptr);
  EXPECT_EQ(mk->mib.AllocCount, 10u);
  EXPECT_EQ(mk->mib.TotalSize, 640u);
  ASSERT_EQ(mk->frames.size(), 2u);
  EXPECT_TRUE(mk->frames[0].inlined);
  EXPECT_EQ(mk->frames[1].function, "caller");
  EXPECT_EQ(mk->frames[1].line_offset, 4u);
  EXPECT_EQ(mk->frames[1].column, 7u);
  EXPECT_EQ(mk->frames[1].line, 0u);  // no binary: the absolute line is unknown
  EXPECT_EQ(p.summary.allocations, 13u);
  EXPECT_EQ(p.summary.bytes, 640u + 8192u + 8192u);
  EXPECT_EQ(p.summary.accesses, 5001u);
}

TEST(HeapProfile, UnknownGuidIsShownInHex) {
  const HeapProfile p = load();
  EXPECT_NE(find(p, "0x00000000000000aa"), nullptr);
}

TEST(HeapProfile, IdIsTheMemProfCallStackId) {
  const HeapProfile p = load();
  const HeapContext* mk = find(p, "mk");
  ASSERT_NE(mk, nullptr);
  const memprof::CallStack stack = {
      {memprof::function_guid("mk"), 1, 13, true},
      {memprof::function_guid("caller"), 4, 7, false}};
  EXPECT_EQ(mk->id, memprof::call_stack_id(stack));
  EXPECT_EQ(context_id(mk->frames), mk->id);
}

TEST(HeapProfile, LongLivedUntouchedContextIsColdWithDefaults) {
  const HeapProfile p = load();
  const HeapContext* m = find(p, "main");
  ASSERT_NE(m, nullptr);
  EXPECT_DOUBLE_EQ(m->avg_lifetime_ms(), 250000.0);
  EXPECT_EQ(m->verdict, Verdict::cold);
  EXPECT_EQ(m->why, "cold: density 0 < 0.05 and lifetime 250 s >= 200 s");
  EXPECT_EQ(p.summary.cold_contexts, 1u);
  EXPECT_EQ(p.summary.cold_bytes, 8192u);
}

TEST(HeapProfile, ShortLivedContextNamesTheFailedCondition) {
  const HeapProfile p = load();
  const HeapContext* mk = find(p, "mk");
  ASSERT_NE(mk, nullptr);
  EXPECT_EQ(mk->verdict, Verdict::not_cold);
  EXPECT_DOUBLE_EQ(mk->lifetime_access_density(), 800000.0);
  EXPECT_EQ(mk->why, "notcold: density 800000 >= 0.05 and lifetime 0.002 s < 200 s");
}

TEST(HeapProfile, ZeroLifetimeThresholdMakesUntouchedContextsCold) {
  memprof::ClassifyOptions t;
  t.ave_lifetime_cold_threshold_s = 0;
  const HeapProfile p = load(t);
  const HeapContext* unknown = find(p, "0x00000000000000aa");
  ASSERT_NE(unknown, nullptr);
  EXPECT_EQ(unknown->verdict, Verdict::cold);
  EXPECT_EQ(p.summary.cold_contexts, 2u);
  EXPECT_EQ(p.summary.not_cold_contexts, 1u);
}

TEST(HeapProfile, HotOnlyWithHotHints) {
  memprof::ClassifyOptions t;
  t.use_hot_hints = true;
  const HeapProfile p = load(t);
  const HeapContext* mk = find(p, "mk");
  ASSERT_NE(mk, nullptr);
  EXPECT_EQ(mk->verdict, Verdict::hot);
  EXPECT_EQ(mk->why, "hot: density 800000 > 1000");
  EXPECT_EQ(p.summary.hot_contexts, 1u);
  EXPECT_EQ(p.summary.hot_bytes, 640u);
}

TEST(HeapProfile, ReclassifyingRecomputesTheSummary) {
  HeapProfile p = load();
  memprof::ClassifyOptions t;
  t.lifetime_access_density_cold_threshold = 0;  // nothing is below 0
  classify_contexts(p, t);
  EXPECT_EQ(p.summary.cold_contexts, 0u);
  EXPECT_EQ(p.summary.not_cold_contexts, 3u);
}

TEST(HeapProfile, SortsByMetricThenId) {
  const HeapProfile p = load();
  SortKey key{};
  ASSERT_TRUE(parse_sort_key("bytes", key));
  auto by_bytes = sorted_contexts(p, key);
  ASSERT_EQ(by_bytes.size(), 3u);
  EXPECT_EQ(by_bytes[0]->mib.TotalSize, 8192u);
  EXPECT_EQ(by_bytes[1]->mib.TotalSize, 8192u);
  EXPECT_LT(by_bytes[0]->id, by_bytes[1]->id);  // tie broken by id
  EXPECT_EQ(by_bytes[2]->frames.front().function, "mk");
  ASSERT_TRUE(parse_sort_key("count", key));
  EXPECT_EQ(sorted_contexts(p, key)[0]->frames.front().function, "mk");
  ASSERT_TRUE(parse_sort_key("lifetime", key));
  EXPECT_EQ(sorted_contexts(p, key)[0]->frames.front().function, "main");
  ASSERT_TRUE(parse_sort_key("density", key));
  EXPECT_EQ(sorted_contexts(p, key)[0]->frames.front().function, "mk");
  EXPECT_FALSE(parse_sort_key("size", key));
}

TEST(HeapProfile, BadInputIsAnErrorWithOffset) {
  HeapLoadOptions options;
  std::string failed;
  options.failed_path = &failed;
  const TempFile garbage("garbage", "not a profile at all");
  auto g = load_heap_profile(garbage.path, options);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().code, ErrorCode::bad_magic);
  EXPECT_EQ(failed, garbage.path);
  // A raw header cut short.
  std::string raw("\x81\x72\x70\x6f\x72\x70\x6d\xff\x05\0\0\0\0\0\0\0", 16);
  raw[2] = 0x66;
  raw[3] = 0x6f;
  raw[4] = 0x72;
  raw[5] = 0x70;
  const TempFile short_raw("short.raw", raw);
  auto t = load_heap_profile(short_raw.path, options);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, ErrorCode::truncated);
  EXPECT_TRUE(t.error().has_offset());
  auto missing = load_heap_profile(::testing::TempDir() + "/does-not-exist", options);
  ASSERT_FALSE(missing);
}

}  // namespace
}  // namespace profkit::report
