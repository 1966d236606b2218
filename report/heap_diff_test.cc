// `profkit diff`'s comparison on small YAML profiles: a profile against itself is empty;
// changed, new and vanished contexts are found and ranked by the size of the change.
#include "report/heap_diff.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace profkit::report {
namespace {

std::string site(const std::string& fn, int line, int count, int size, int lifetime) {
  return "      - Callstack:\n          - { Function: " + fn + ", LineOffset: " +
         std::to_string(line) + ", Column: 3, IsInlineFrame: false }\n" +
         "        MemInfoBlock: { AllocCount: " + std::to_string(count) +
         ", TotalSize: " + std::to_string(size) + ", TotalAccessCount: 10, TotalLifetime: " +
         std::to_string(lifetime) + ", TotalLifetimeAccessDensity: 0 }\n";
}

HeapProfile load(const std::string& name, const std::string& sites) {
  const std::string path = ::testing::TempDir() + "/" + std::to_string(getpid()) + "_heap_diff_test_" + name + ".yaml";
  std::ofstream(path) << "---\nHeapProfileRecords:\n  - GUID: main\n    AllocSites:\n" << sites;
  memprof::ClassifyOptions t;
  t.ave_lifetime_cold_threshold_s = 1;
  HeapLoadOptions options;
  options.thresholds = t;
  auto p = load_heap_profile(path, options);
  std::remove(path.c_str());
  EXPECT_TRUE(p) << (p ? "" : p.error().message);
  return p ? std::move(*p) : HeapProfile{};
}

TEST(HeapDiff, ProfileAgainstItselfIsEmpty) {
  const HeapProfile a = load("self", site("main", 1, 4, 64, 40) + site("main", 2, 1, 8, 5));
  const HeapDiff d = diff_heap_profiles(a, a);
  EXPECT_TRUE(d.changes.empty());
  EXPECT_EQ(d.changed + d.added + d.vanished, 0u);
  EXPECT_NE(render_diff_text(a, a, d, {}).find("No allocation context changed."),
            std::string::npos);
}

TEST(HeapDiff, RanksByBytesAndFindsNewAndVanished) {
  const HeapProfile base =
      load("base", site("main", 1, 4, 64, 40) + site("main", 2, 1, 8, 5) + site("main", 3, 1, 8, 5));
  const HeapProfile now =
      load("now", site("main", 1, 4, 64, 40) + site("main", 2, 9, 9000, 5) + site("main", 4, 2, 16, 5));
  const HeapDiff d = diff_heap_profiles(base, now);
  ASSERT_EQ(d.changes.size(), 3u);
  EXPECT_EQ(d.changed, 1u);
  EXPECT_EQ(d.added, 1u);
  EXPECT_EQ(d.vanished, 1u);
  EXPECT_EQ(d.changes[0].kind, ChangeKind::changed);
  EXPECT_EQ(d.changes[0].bytes_delta, 8992);
  EXPECT_EQ(d.changes[0].count_delta, 8);
  EXPECT_EQ(d.changes[0].any().frames[0].line_offset, 2u);
  EXPECT_EQ(d.changes[1].kind, ChangeKind::added);  // +16 bytes before -8
  EXPECT_EQ(d.changes[2].kind, ChangeKind::vanished);
  EXPECT_EQ(d.changes[2].bytes_delta, -8);
}

TEST(HeapDiff, TextFitsTheWidth) {
  const HeapProfile base = load("fit_base", site("main", 1, 4, 64, 40));
  const HeapProfile now = load("fit_now", site("main", 1, 400000, 64000000, 40));
  ViewOptions o;
  o.width = 40;
  const std::string text = render_diff_text(base, now, diff_heap_profiles(base, now), o);
  size_t start = 0, lines = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1, ++lines)
    EXPECT_LE(end - start, 40u) << text.substr(start, end - start);
  EXPECT_GT(lines, 6u);
}

TEST(HeapDiff, VerdictFlipIsAChangeEvenWithEqualCounts) {
  // 2 s average lifetime is cold with the 1 s threshold; 0.5 s is not.
  const HeapProfile base = load("flip_base", site("main", 1, 2, 64, 1000));
  const HeapProfile now = load("flip_now", site("main", 1, 2, 64, 4000));
  const HeapDiff d = diff_heap_profiles(base, now);
  ASSERT_EQ(d.changes.size(), 1u);
  EXPECT_TRUE(d.changes[0].verdict_flipped);
  EXPECT_EQ(d.changes[0].now->verdict, Verdict::cold);
  EXPECT_EQ(d.flipped, 1u);
}

// Allocation-only profiles (no access counts): no verdicts, no flips, in text and JSON.
TEST(HeapDiff, NoAccessCountsMeansNoVerdicts) {
  auto unmeasured = [](std::string sites) {
    for (size_t at; (at = sites.find("TotalAccessCount: 10")) != std::string::npos;)
      sites.replace(at, 20, "TotalAccessCount: 0");
    return sites;
  };
  const HeapProfile base = load("noacc_base", unmeasured(site("main", 1, 2, 64, 1000) +
                                                        site("main", 2, 2, 64, 1000)));
  const HeapProfile now = load("noacc_now", unmeasured(site("main", 1, 2, 64, 4000) +
                                                       site("main", 3, 2, 64, 1000)));
  const HeapDiff d = diff_heap_profiles(base, now);
  EXPECT_EQ(d.flipped, 0u);
  ViewOptions o;
  o.top = 0;
  const std::string text = render_diff_text(base, now, d, o);
  EXPECT_EQ(text.find("verdict"), std::string::npos) << text;
  EXPECT_EQ(text.find("notcold"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n  cold "), std::string::npos) << text;  // the summary of verdicts
  EXPECT_NE(text.find("No access counts"), std::string::npos) << text;
  const std::string json = render_diff_json(base, now, d, o);
  EXPECT_EQ(json.find("notcold"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"cold\""), std::string::npos) << json;
}

TEST(HeapDiff, SmallLifetimeJitterIsNotAChange) {
  const HeapProfile base = load("jitter_base", site("main", 1, 2, 64, 200));
  const HeapProfile now = load("jitter_now", site("main", 1, 2, 64, 210));
  EXPECT_TRUE(diff_heap_profiles(base, now).changes.empty());
}

}  // namespace
}  // namespace profkit::report
