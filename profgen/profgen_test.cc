// profgen's reading and counting against a synthetic binary; whole runs against
// llvm-profgen are in tests/profgen_differential_test.py.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "profgen/binary.h"
#include "profgen/counter.h"
#include "profgen/perf_script.h"
#include "profgen/unwinder.h"

namespace profkit::profgen {
namespace {

// main 0x1000-0x1040: 0x1010 call leaf, 0x1020 jcc, 0x1030 jmp back; leaf 0x1040-0x1060,
// returning at 0x105c. 4-byte instructions.
std::unique_ptr<ProfiledBinary> make_binary() {
  SyntheticBinary d;
  d.path = "/x/prog";
  for (uint64_t a = 0x1000; a < 0x1060; a += 4) {
    uint8_t cls = 0;
    if (a == 0x1010) cls = kInsnCall | kInsnUncond;
    if (a == 0x1020) cls = kInsnBranch;
    if (a == 0x1030) cls = kInsnBranch | kInsnUncond;
    if (a == 0x105c) cls = kInsnReturn | kInsnUncond;
    d.instructions.push_back({a, 4, cls});
  }
  d.functions.push_back({"main", 0x1000, 0x1040});
  d.functions.push_back({"leaf", 0x1040, 0x1060});
  return ProfiledBinary::synthetic(d);
}

const char kMmap[] =
    "PERF_RECORD_MMAP2 4242/4242: [0x555555555000(0x1000) @ 0x1000 08:01 393 0]: r-xp "
    "/somewhere/prog\n";

struct ScriptRun {
  Expected<ParsedScript> script;
  std::vector<std::string> warnings;
  std::vector<AggregatedSample> samples;  // all batches
};

ScriptRun read(const ProfiledBinary& b, const std::string& text, ScriptOptions options = {}) {
  ScriptRun run{Unexpected{Error{}}, {}, {}};
  auto kind = detect_script_kind(text);
  if (!kind) {
    run.script = Unexpected{kind.error()};
    return run;
  }
  run.script = read_perf_script(
      text, *kind, b, options, [&](std::string_view w) { run.warnings.emplace_back(w); },
      [](std::string_view) {},
      [&](const std::vector<AggregatedSample>& samples, const std::vector<bool>&) {
        run.samples.insert(run.samples.end(), samples.begin(), samples.end());
      });
  return run;
}

SampleCounter count(const ScriptRun& run, const ProfiledBinary& b) {
  SampleCounter c;
  add_lbr_samples(run.samples, b, c);
  return c;
}

TEST(PerfScript, LbrOnlyEntriesAreTranslatedByTheMmapEventAndAggregated) {
  auto b = make_binary();
  const std::string line =
      "     55555555501c 0x555555555030/0x555555555000/P/-/-/0  "
      "0x55555555505c/0x555555555014/P/-/-/0  0x555555555010/0x555555555040/P/-/-/0 \n";
  auto run = read(*b, std::string(kMmap) + line + "3\n" + line);
  ASSERT_TRUE(run.script) << run.script.error().message;
  EXPECT_EQ(run.script->kind, ScriptKind::lbr_only);
  ASSERT_EQ(run.samples.size(), 1u);
  EXPECT_EQ(run.samples[0].count, 4u);  // 1 + a repeat count of 3
  const auto& lbr = run.samples[0].sample.lbr;
  ASSERT_EQ(lbr.size(), 3u);
  EXPECT_EQ(lbr[0].source, 0x1030u);
  EXPECT_EQ(lbr[0].target, 0x1000u);
  EXPECT_TRUE(run.warnings.empty());
}

TEST(PerfScript, WithoutAMatchingMmapEventThePreferredBaseIsUsedOnceWarned) {
  auto b = make_binary();
  auto run = read(*b, "     101c 0x1030/0x1000/P/-/-/0  0x1010/0x1040/P/-/-/0\n"
                      "     101c 0x1030/0x1000/P/-/-/0  0x1010/0x1040/P/-/-/0\n");
  ASSERT_TRUE(run.script);
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_EQ(run.warnings[0],
            "No relevant mmap event is matched for prog, will use preferred address (0x1000) "
            "as the base loading address!");
}

TEST(PerfScript, AMmapEventBelowTheTextOffsetIsFatal) {
  auto b = make_binary();
  auto run = read(*b,
                  "PERF_RECORD_MMAP2 1/1: [0x555555555000(0x1000) @ 0 08:01 393 0]: r-xp "
                  "/somewhere/prog\n     101c 0x1030/0x1000/P/-/-/0  0x1010/0x1040/P/-/-/0\n");
  ASSERT_FALSE(run.script);
  EXPECT_EQ(run.script.error().message, "File offset not found");
}

TEST(PerfScript, ABadEntryDropsTheRestOfItsLineWithAWarning) {
  auto b = make_binary();
  auto run = read(*b, "     101c 0x1030/0x1000/P/-/-/0  0x1010/0x1040/P/-/-/0\n"
                      "     101c 0x1030/0x1000/P  0x10zz/0x1040/P  0x1010/0x1040/P\n");
  ASSERT_TRUE(run.script);
  ASSERT_EQ(run.samples.size(), 2u);
  EXPECT_EQ(run.samples[1].sample.lbr.size(), 1u);
  ASSERT_EQ(run.warnings.size(), 2u);  // the missing mmap, then the bad record
  EXPECT_EQ(run.warnings[1].rfind("Invalid address in LBR record at line 2: ", 0), 0u);
}

TEST(PerfScript, NoSampleAnywhereIsNotAPerfScript) {
  auto b = make_binary();
  for (std::string text : {"", "\n\n", "  \n", "just words\n", "0x1010/0x1040\n"}) {
    auto run = read(*b, text);
    ASSERT_FALSE(run.script) << text;
    EXPECT_EQ(run.script.error().message, "Invalid perf script input!");
  }
}

TEST(PerfScript, HybridStacksMapReturnAddressesToCallsAndTakeTheNewestTargetAsLeaf) {
  auto b = make_binary();
  auto run = read(*b, "\n\t    1048\n\t    1014\n\t    7fff0000\n"
                      " 0x1010/0x1040/P/-/-/0  0x1030/0x1000/P/-/-/0 \n");
  ASSERT_TRUE(run.script) << run.script.error().message;
  EXPECT_EQ(run.script->kind, ScriptKind::hybrid);
  ASSERT_EQ(run.samples.size(), 1u);
  // The external bottom frame is dropped; 0x1014 returns to the call at 0x1010; the leaf
  // 0x1048 becomes the newest branch target 0x1040.
  EXPECT_EQ(run.samples[0].sample.stack, (std::vector<uint64_t>{0x1040, 0x1010}));
}

TEST(PerfScript, HybridSampleWithoutItsBranchLineAtTheEndIsFatal) {
  auto b = make_binary();
  auto run = read(*b, "\t    1048\n\t    1014\n 0x1010/0x1040/P/-/-/0  0x1030/0x1000/P/-/-/0\n"
                      "\t    1048\n\t    1014\n");
  ASSERT_FALSE(run.script);
  EXPECT_EQ(run.script.error().message,
            "'Hybrid perf sample is corrupted, No LBR sample line");
}

TEST(PerfScript, CallStacksWithoutBranchStacksAreIpSamplesInFileOffsetsOrAbsolute) {
  auto b = make_binary();
  // perf 6.1 prints call-chain entries as offsets in their DSO's file; the binary's text is
  // at file offset 0x1000 and address 0x1000, so they equal link-time addresses here.
  // Newer perf prints absolute addresses, which the mmap event places.
  auto run = read(*b, std::string(kMmap) +
                          "\n\t    1048 (/somewhere/prog)\n\t    1014 (/somewhere/prog)\n"
                          "\t   2724a (/usr/lib/libc.so.6)\n\n"
                          "\n\t    555555555048 leaf+0x8 (/somewhere/prog)\n"
                          "\t    555555555014 main+0x14 (/somewhere/prog)\n\n");
  ASSERT_TRUE(run.script) << run.script.error().message;
  EXPECT_EQ(run.script->kind, ScriptKind::ip_only);
  ASSERT_EQ(run.samples.size(), 1u);
  EXPECT_EQ(run.samples[0].count, 2u);
  EXPECT_EQ(run.samples[0].sample.stack,
            (std::vector<uint64_t>{0x1048, 0x1010}));
}

TEST(PerfScript, BatchesOfAnySizeGiveTheSameCountsAndStatistics) {
  auto b = make_binary();
  std::string text;
  for (int i = 0; i < 50; ++i) {
    text += "     1004 0x1030/0x1000/P/-/-/0  0x105c/0x1014/P/-/-/0  0x1010/0x1040/P/-/-/0\n";
    if (i % 3 == 0) text += "     1004 0x1030/0x1000/P/-/-/0  0x1010/0x1040/P/-/-/0\n";
  }
  ScriptOptions one, tiny;
  tiny.batch_bytes = 1;  // a batch per sample
  const ScriptRun a = read(*b, text, one);
  const ScriptRun c = read(*b, text, tiny);
  ASSERT_TRUE(a.script);
  ASSERT_TRUE(c.script);
  EXPECT_EQ(a.samples.size(), 2u);
  EXPECT_EQ(c.samples.size(), 67u);  // every sample handed over on its own
  EXPECT_EQ(a.script->unique_samples, 2u);
  EXPECT_EQ(c.script->unique_samples, 2u);
  EXPECT_EQ(count(a, *b).ranges, count(c, *b).ranges);
  EXPECT_EQ(count(a, *b).branches, count(c, *b).branches);
}

TEST(Counting, RangesLieBetweenConsecutiveBranchesAndTheNewestIsLeftOut) {
  auto b = make_binary();
  // Newest first: jmp 0x1030->0x1000, ret 0x105c->0x1014, call 0x1010->0x1040.
  auto run = read(*b, "     1004 0x1030/0x1000/P/-/-/0  0x105c/0x1014/P/-/-/0  "
                      "0x1010/0x1040/P/-/-/0\n");
  ASSERT_TRUE(run.script);
  const SampleCounter c = count(run, *b);
  // [0x1014, 0x1030] (after the return up to the jmp) and [0x1040, 0x105c] (leaf's body);
  // [0x1000, IP] is incomplete.
  EXPECT_EQ(c.ranges, (RangeCounts{{{0x1014, 0x1030}, 1}, {{0x1040, 0x105c}, 1}}));
  EXPECT_EQ(c.branches, (RangeCounts{{{0x1010, 0x1040}, 1},
                                     {{0x1030, 0x1000}, 1},
                                     {{0x105c, 0x1014}, 1}}));
}

TEST(Counting, ARangeAcrossACallIsNotStraightLineCode) {
  auto b = make_binary();
  // Two branches whose range [0x1000, 0x1020] would cross the call at 0x1010.
  auto run = read(*b, "     1004 0x1020/0x1024/P/-/-/0  0x1030/0x1000/P/-/-/0\n");
  ASSERT_TRUE(run.script);
  EXPECT_TRUE(count(run, *b).ranges.empty());
}

TEST(Unsymbolized, RoundTripsAndNamesTheBadLine) {
  auto b = make_binary();
  SampleCounter c;
  c.ranges[{0x1000, 0x100c}] = 7;
  c.branches[{kExternalAddress, 0x1040}] = 2;
  const std::string text =
      write_unsymbolized({ContextCounter{"", c}}, false, *b, OffsetBase::preferred_base);
  EXPECT_EQ(text, "1\n0-c:7\n1\nfffffffffffff001->40:2\n");
  auto back = read_unsymbolized(text, *b, OffsetBase::preferred_base);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->counters.size(), 1u);
  EXPECT_EQ(back->counters[0].counter.ranges, c.ranges);
  EXPECT_EQ(back->counters[0].counter.branches, c.branches);

  auto bad = read_unsymbolized("1\n0-c:x\n", *b, OffsetBase::preferred_base);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "Invalid raw profile at line 2: 0-c:x");
  EXPECT_EQ(bad.error().offset, 2u);
  auto cut = read_unsymbolized("2\n0-c:1\n", *b, OffsetBase::preferred_base);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().message, "Invalid raw profile!");
}

}  // namespace
}  // namespace profkit::profgen

namespace profkit::profgen {
namespace {

TEST(Contexts, RecursionCompressionDropsAdjacentRepeats) {
  std::vector<uint64_t> c = {1, 5, 5, 5, 2};
  compress_recursion(c, -1);
  EXPECT_EQ(c, (std::vector<uint64_t>{1, 5, 2}));
  c = {1, 2, 3, 2, 3, 2, 3, 4};
  compress_recursion(c, -1);
  EXPECT_EQ(c, (std::vector<uint64_t>{1, 2, 3, 4}));
  c = {1, 2, 3, 2, 3, 4};
  compress_recursion(c, 1);  // sequences of one frame only
  EXPECT_EQ(c, (std::vector<uint64_t>{1, 2, 3, 2, 3, 4}));
  c = {7, 7, 7};
  compress_recursion(c, 0);  // off
  EXPECT_EQ(c, (std::vector<uint64_t>{7, 7, 7}));
  std::vector<uint64_t> d = {1, 2, 3, 4};
  trim_context(d, 2);
  EXPECT_EQ(d, (std::vector<uint64_t>{3, 4}));
}

TEST(Discriminators, ProbeEncodedCallDiscriminatorsGiveTheirProbeAsBase) {
  // Prefix-encoded: base 3 with duplication factor 2 (copy 0).
  EXPECT_EQ(base_discriminator(0x206, false), 3u);
  EXPECT_EQ(duplication_factor(0x206, false), 2u);
  // clang 14 packs a call's probe into its discriminator (low bits 0b111): probe 12, full
  // distribution factor, direct-call type. Its base is the probe index, its factor 1, under
  // either encoding of ordinary discriminators.
  const uint32_t probe12 = 0x7u | (12u << 3) | (100u << 19) | (2u << 26);
  EXPECT_EQ(base_discriminator(probe12, false), 12u);
  EXPECT_EQ(base_discriminator(probe12, true), 12u);
  EXPECT_EQ(duplication_factor(probe12, false), 1u);
  // With bit 28 set, bits 16-18 hold a DWARF base discriminator, which wins.
  const uint32_t with_base = 0x7u | (12u << 3) | (5u << 16) | 0x10000000u;
  EXPECT_EQ(base_discriminator(with_base, false), 5u);
  // 7 alone carries no probe: an ordinary (prefix-encoded, odd so empty) discriminator.
  EXPECT_EQ(base_discriminator(0x7, false), 0u);
}

}  // namespace
}  // namespace profkit::profgen
