// The supplement on small hand-made profiles, with the results llvm-profdata 22 gives for
// the same inputs (tests/suppl_differential_test.py checks random ones).
#include "format/instrprof/supplement.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/instrprof/summary.h"

namespace profkit::instrprof {
namespace {

Record make(std::string name, uint64_t hash, std::vector<uint64_t> counts) {
  Record r;
  r.name = std::move(name);
  r.hash = hash;
  r.counts = std::move(counts);
  return r;
}

// A flat sample profile: each function with its total, head and (line, count) body.
struct SampleFn {
  const char* name;
  uint64_t total, head;
  std::vector<std::pair<uint32_t, uint64_t>> body;
};

sampleprof::Profile samples(const std::vector<SampleFn>& fns) {
  sampleprof::Profile p;
  for (const SampleFn& f : fns) {
    sampleprof::FunctionSamples fs;
    fs.name = sampleprof::FunctionId(f.name);
    fs.total = f.total;
    fs.head = f.head;
    for (auto [line, n] : f.body) fs.body[{line, 0}].samples = n;
    p.functions.emplace(fs.key(), fs);
  }
  p.summary = sampleprof::compute_summary(p);
  return p;
}

Profile instr(std::vector<Record> records) {
  Profile p;
  p.format = ProfileFormat::text;
  p.records = std::move(records);
  return p;
}

std::vector<std::string> run(Profile& p, const sampleprof::Profile& s, SupplementOptions o = {}) {
  std::vector<std::string> warnings;
  auto r = supplement_with_samples(p, s, o, [&](std::string_view w) { warnings.emplace_back(w); });
  EXPECT_TRUE(r.has_value());
  return warnings;
}

TEST(Supplement, UniqueLinkageSuffixIsTheDecimalMd5OfTheFile) {
  EXPECT_EQ(unique_linkage_suffix("src/a.c"), ".__uniq.16389044988869366997640560736545936780");
}

TEST(Supplement, ScalesAColdFunctionToThreeTimesTheHotThreshold) {
  // Hot instr threshold (cutoff 990000) is 100000; foo is hot in the samples.
  Profile p = instr({make("main", 12, {100000, 200000, 300000}),
                     make("foo", 10, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2})});
  const auto s = samples({{"foo", 5000, 1000, {{1, 1000}, {2, 4000}}}, {"main", 100, 1, {{1, 1}}}});
  SupplementOptions o;
  o.cold_threshold = 5;
  EXPECT_TRUE(run(p, s, o).empty());
  EXPECT_EQ(p.records[1].counts,
            (std::vector<uint64_t>{150000, 150000, 150000, 150000, 150000, 150000, 150000, 150000,
                                   150000, 150000, 150000, 300000}));
  EXPECT_EQ(p.records[0].counts, (std::vector<uint64_t>{100000, 200000, 300000}));
}

TEST(Supplement, LeavesFunctionsBelowTheSizeThresholdAlone) {
  Profile p = instr({make("main", 12, {100000, 200000, 300000}),
                     make("foo", 10, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2})});
  const auto s = samples({{"foo", 5000, 1000, {{1, 1000}, {2, 4000}}}, {"main", 100, 1, {{1, 1}}}});
  SupplementOptions o;
  o.cold_threshold = 5;
  o.min_size = 13;
  run(p, s, o);
  EXPECT_EQ(p.records[1].counts[0], 1u);
}

TEST(Supplement, MostlyZeroCountersGetAPseudoCount) {
  // 10 of 12 counters are zero (0.83 > 0.7): Counts[0] becomes the hot pseudo count.
  Profile p = instr({make("foo", 10, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}),
                     make("src/a.c;bar", 11, {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}),
                     make("main", 12, {100000, 200000, 300000})});
  const auto s = samples({{"foo", 5000, 1000, {{1, 1000}, {2, 4000}}},
                          {"bar", 8000, 300, {{1, 3000}, {2, 5000}}},
                          {"main", 100, 1, {{1, 1}}}});
  run(p, s);
  EXPECT_EQ(p.records[0].counts[0], kPseudoHot);
  EXPECT_EQ(p.records[0].counts[11], 2u);
  EXPECT_EQ(p.records[1].counts[0], 3u);  // bar's max (14) is above the cold threshold
}

TEST(Supplement, WarnsAboutAShortNameOfSeveralStatics) {
  Profile p = instr({make("a.c;s", 1, std::vector<uint64_t>(12, 0)),
                     make("b.c;s", 2, std::vector<uint64_t>(12, 0)),
                     make("main", 3, {100, 200, 300})});
  const auto s = samples({{"s", 500, 50, {{1, 50}, {2, 400}}}, {"main", 100, 1, {{1, 1}}}});
  EXPECT_EQ(run(p, s), std::vector<std::string>{
                           "Static function s has multiple promoted names, cannot adjust profile."});
  EXPECT_EQ(p.records[0].counts[0], 0u);
  EXPECT_EQ(p.records[1].counts[0], 0u);
}

TEST(Supplement, SummaryRunningSumWrapsAsLlvms) {
  // llvm-profdata 22 `show --detailed-summary` of these counters: total 18 (wrapped).
  SummaryBuilder b;
  b.add_record(make("big", 1, {9223372036854775813u, 9223372036854775813u, 7, 1}));
  const Summary s = b.finish();
  EXPECT_EQ(s.total_block_count, 18u);
  EXPECT_EQ(s.detailed[0], (SummaryEntry{10000, 0, 0}));
  EXPECT_EQ(s.detailed[1], (SummaryEntry{100000, 9223372036854775813u, 2}));
  EXPECT_EQ(s.detailed[7], (SummaryEntry{700000, 7, 3}));
  EXPECT_EQ(s.detailed[15], (SummaryEntry{999999, 7, 3}));
}

}  // namespace
}  // namespace profkit::instrprof
