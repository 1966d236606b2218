// Unit tests of the sample-profile model, readers, writers and merge rules. The byte-for-byte
// comparison with llvm-profdata on random profiles is tests/sampleprof_differential_test.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "format/sampleprof/flat_map.h"
#include "format/sampleprof/layout.h"
#include "format/sampleprof/merge.h"
#include "format/sampleprof/reader.h"
#include "format/sampleprof/text_reader.h"
#include "format/sampleprof/writer.h"

namespace profkit::sampleprof {
namespace {

Profile text(std::string_view s) {
  auto p = read_text(as_bytes(s));
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().message);
  return p ? std::move(*p) : Profile();
}

std::string to_text(const Profile& p) {
  WriteOptions o;
  o.format = Format::text;
  return *write_profile(p, o);
}

// The flat record map against std::map under random insertions (in order, near the end,
// and in descending runs that wait to be merged), key merges, erasures and reads between
// them (fixed seed).
TEST(SampleProfileTest, FlatMapBehavesAsStdMap) {
  std::mt19937 rng(17);
  FlatMap<uint32_t, uint64_t> flat;
  std::map<uint32_t, uint64_t> ref;
  for (int step = 0; step < 20000; ++step) {
    const uint32_t k = static_cast<uint32_t>(rng() % 500);
    switch (rng() % 5) {
      case 0:
        flat[k] += step;
        ref[k] += static_cast<uint64_t>(step);
        break;
      case 1: {  // a run of keys in descending order (out of order after the first)
        for (uint32_t j = 0, n = static_cast<uint32_t>(rng() % 40); j < n && j <= k; ++j) {
          flat[k - j] += 3;
          ref[k - j] += 3;
        }
        break;
      }
      case 2: {
        std::vector<uint32_t> keys;
        for (uint32_t i = 0, n = static_cast<uint32_t>(rng() % 8); i < n; ++i)
          keys.push_back(static_cast<uint32_t>(rng() % 500));
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        flat.add_keys(keys);
        for (uint32_t key : keys) ref.try_emplace(key, 0);
        break;
      }
      case 3:
        if (auto it = flat.find(k); it != flat.end()) flat.erase(it);
        ref.erase(k);
        break;
      default:
        EXPECT_EQ(flat.count(k), ref.count(k));
    }
  }
  ASSERT_EQ(flat.size(), ref.size());
  EXPECT_TRUE(std::equal(flat.begin(), flat.end(), ref.begin(), [](const auto& a, const auto& b) {
    return a.first == b.first && a.second == b.second;
  }));
}

// A text profile may hold a context line offset above 65535, which the binary readers
// refuse (llvm-profdata writes it anyway, then cannot read its own file): the binary
// writers refuse it with the offset, the text writer keeps it. Found by the fuzzer.
TEST(SampleProfileTest, BinaryWritersRefuseALineOffsetTheirReadersRefuse) {
  const Profile p = text("[main:70000 @ leaf]:10:1\n 1: 10\n");
  WriteOptions o;
  o.format = Format::extbinary;
  auto bytes = write_profile(p, o);
  ASSERT_FALSE(bytes);
  EXPECT_NE(bytes.error().message.find("line offset 70000"), std::string::npos)
      << bytes.error().message;
  WriteOptions text;
  text.format = Format::text;
  auto t = write_profile(p, text);
  ASSERT_TRUE(t);
  EXPECT_NE(t->find("main:70000"), std::string::npos) << *t;
}

TEST(SampleProfileTest, NamesOrderMd5IdsFirstThenBytes) {
  EXPECT_LT(compare(FunctionId::from_md5(~0ULL), FunctionId("")), 0);
  EXPECT_LT(compare(FunctionId("fo"), FunctionId("foo")), 0);
  EXPECT_LT(compare(FunctionId("Ab"), FunctionId("aB")), 0);
  EXPECT_LT(compare(FunctionId("x10"), FunctionId("x9")), 0);
  EXPECT_EQ(FunctionId("main").hash(), 15822663052811949562ULL);
  EXPECT_EQ(FunctionId::from_md5(7).str(), "7");
}

TEST(SampleProfileTest, TextReaderAddsRepeatsAndKeepsTheLastTargetOfALine) {
  Profile p = text("main:10:1\n 1: 5 foo:3 foo:4\n 1: 2 foo:1 bar:1\nmain:20:2\n");
  ASSERT_EQ(p.functions.size(), 1u);
  EXPECT_EQ(to_text(p), "main:30:3\n 1: 7 foo:5 bar:1\n");
}

TEST(SampleProfileTest, TextReaderAnchorsTargetsOnColonAndInteger) {
  Profile p = text("f:1:1\n 1: 9 _M_construct<char *>:1000 string_view<a, b >:437 x::y:3\n");
  EXPECT_EQ(to_text(p), "f:1:1\n 1: 9 _M_construct<char *>:1000 string_view<a, b >:437 x::y:3\n");
}

TEST(SampleProfileTest, TextReaderRejectsWhatLlvmRejects) {
  for (std::string_view bad : {"main:1:1\n 2: 5 # trailing\n", "main:1:1\n 65536: 5\n",
                               "main:1:1\n 1:5\n", "main:1:1\n 1: 5 foo:3 \n",
                               "main:1:1\n 1: 5 foo\n", "main:1:1\n\t1: 5\n",
                               "main:1:1\n !Bogus: 1\n", "main:1:1\n  !Flat\n",
                               "main:1:1\n !CFGChecksum: 3\n 1: 5\n", "main:10\n", "# only\n"}) {
    auto p = read_text(as_bytes(bad));
    EXPECT_FALSE(p.has_value()) << bad;
  }
  // ...and accepts its oddities: " 5" is "5: 5", a deeper indent attaches to the top.
  EXPECT_EQ(to_text(text("f:1:1\n 5\n")), "f:1:1\n 5: 5\n");
  EXPECT_EQ(to_text(text("f:1:1\n 65536.1: 7\n")), "f:1:1\n 65536.1: 7\n");
}

// LLVM asserts that a profile is all context-sensitive or all regular; without assertions
// it writes binary profiles of a mix that it cannot read (a fuzzer found ours merging the
// regular profiles into one context). Refused, naming the line where the mix starts.
TEST(SampleProfileTest, TextReaderRefusesContextAndRegularProfilesMixed) {
  for (std::string_view mixed : {"[main]:1:1\n 1: 1\nfoo:2:2\n 1: 2\n",
                                 "foo:2:2\n 1: 2\n[main]:1:1\n 1: 1\n"}) {
    auto p = read_text(as_bytes(mixed));
    ASSERT_FALSE(p.has_value()) << mixed;
    EXPECT_NE(p.error().message.find("line 3"), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find("cannot mix"), std::string::npos) << p.error().message;
  }
  EXPECT_TRUE(read_text(as_bytes("[main]:1:1\n 1: 1\n[main:1 @ foo]:2:2\n 1: 2\n")).has_value());
}

TEST(SampleProfileTest, TextReaderReportsTheLineOfAnError) {
  auto p = read_text(as_bytes("main:1:1\n 1: 1\n 2:x\n"));
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().offset, 15u);
  EXPECT_NE(p.error().message.find("line 3"), std::string::npos);
}

TEST(SampleProfileTest, CounterOverflowInOneTextFileIsAnError) {
  auto p = read_text(as_bytes("main:18446744073709551615:1\n 1: 1\nmain:1:1\n"));
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message.find("overflow"), std::string::npos);
}

TEST(SampleProfileTest, MergeKeepsTheFirstChecksumAndAttributesAndDropsMismatches) {
  Profile a = text("main:100:10\n 1: 50\n !CFGChecksum: 11\n !Attributes: 1\n");
  Profile b = text("main:7:3\n 1: 5\n !CFGChecksum: 12\n");
  Profile c = text("main:7:3\n 1: 5\n !CFGChecksum: 11\n !Attributes: 2\n");
  Merger m;
  int mismatches = 0;
  auto report = [&](std::string_view ctx, MergeResult r) {
    EXPECT_EQ(ctx, "main");
    mismatches += r == MergeResult::hash_mismatch;
  };
  ASSERT_TRUE(m.add(a, 1, report));
  ASSERT_TRUE(m.add(b, 1, report));
  ASSERT_TRUE(m.add(c, 2, report));
  Profile merged = m.finish();
  EXPECT_EQ(mismatches, 1);
  EXPECT_EQ(to_text(merged), "main:114:16\n 1: 60\n !CFGChecksum: 11\n !Attributes: 1\n");
}

// The summary of contexts without inlinees is made without merging profiles; it must equal
// the summary of the profiles merged by leaf name (checksum mismatches skipped, zero counts
// counted, counts saturating, locations met in any order).
TEST(SampleProfileTest, CsSummaryEqualsTheSummaryOfTheMergedProfile) {
  Profile p = text(
      "[main:1 @ foo]:100:10\n 1: 50\n 3: 0\n !CFGChecksum: 11\n"
      "[main:2 @ foo]:70:4\n 2: 20\n 3: 30\n !CFGChecksum: 11\n"
      "[main:3 @ foo]:9:1\n 1: 9\n !CFGChecksum: 12\n"
      "[bar:1 @ foo]:18446744073709551615:3\n 1: 18446744073709551615\n !CFGChecksum: 11\n"
      "[main]:40:2\n 1: 30\n 1.1: 10\n 4: 0\n"
      "[bar]:5:5\n 2: 5\n");
  ASSERT_TRUE(p.is_cs);
  std::vector<const FunctionSamples*> order;
  Profile flat;
  for (const auto& [key, f] : p.functions) {
    order.push_back(&f);
    auto [it, added] = flat.functions.try_emplace(f.name.hash());
    if (added) it->second.name = f.name;
    (void)it->second.merge(f);
  }
  const Summary want = compute_summary(flat);
  const Summary got = flat_summary(order);
  EXPECT_EQ(got.total_count, want.total_count);
  EXPECT_EQ(got.max_count, want.max_count);
  EXPECT_EQ(got.max_function_count, want.max_function_count);
  EXPECT_EQ(got.num_counts, want.num_counts);
  EXPECT_EQ(got.num_functions, want.num_functions);
  ASSERT_EQ(got.detailed.size(), want.detailed.size());
  for (size_t i = 0; i < got.detailed.size(); ++i) {
    EXPECT_EQ(got.detailed[i].min_count, want.detailed[i].min_count) << i;
    EXPECT_EQ(got.detailed[i].num_counts, want.detailed[i].num_counts) << i;
  }
  EXPECT_EQ(want.num_functions, 3u);
}

TEST(SampleProfileTest, MergeSaturatesAndRefusesMixedKinds) {
  Profile a = text("main:18446744073709551615:1\n 1: 18446744073709551615\n");
  Merger m;
  int overflows = 0;
  auto report = [&](std::string_view, MergeResult r) { overflows += r == MergeResult::counter_overflow; };
  ASSERT_TRUE(m.add(a, 1, report));
  ASSERT_TRUE(m.add(a, 1, report));
  EXPECT_EQ(overflows, 1);
  Profile cs = text("[main:1 @ foo]:5:1\n 1: 5\n !CFGChecksum: 1\n");
  auto mixed = m.add(cs, 1, report);
  ASSERT_FALSE(mixed.has_value());
  EXPECT_NE(mixed.error().message.find("probe-based"), std::string::npos);
  EXPECT_EQ(to_text(m.finish()), "main:18446744073709551615:2\n 1: 18446744073709551615\n");
}

TEST(SampleProfileTest, EveryEncodingReadsBackWhatItWrote) {
  Profile p = text(
      "main:1000:10\n 1: 10\n 2: 20 foo:15 bar:5\n 3.1: 30\n 4: foo:300\n  1: 100\n"
      "  2: baz:200\n   1: 200\n 4: bar:40\n  1: 40\n 5.3: 7\nzz:50:5\n 1: 50\n");
  const std::string expected = to_text(p);
  for (Format f : {Format::binary, Format::extbinary}) {
    for (bool compress : {false, true}) {
      WriteOptions o;
      o.format = f;
      o.compress_all_sections = compress;
      auto bytes = write_profile(p, o);
      ASSERT_TRUE(bytes.has_value());
      auto back = read_profile(as_bytes(*bytes));
      ASSERT_TRUE(back.has_value()) << back.error().message;
      EXPECT_EQ(to_text(*back), expected);
    }
  }
}

// The summary's flags say how records are read (context indices or names, vtable sites);
// LLVM writes it first. An extbinary file whose header table puts a summary with such a
// flag after the records is refused: read as names, then flagged context-sensitive, its
// functions had no contexts, and writing them gave a file that could not be read. Found
// by the fuzzer (CI).
TEST(SampleProfileTest, ASummaryAfterTheRecordsItDescribesIsRefused) {
  Profile p = text("main:1000:10\n 1: 10\n 2: 20 foo:15 bar:5\nfoo:300:15\n 1: 15\n");
  WriteOptions o;
  o.format = Format::extbinary;
  std::string bytes = *write_profile(p, o);
  auto table = read_section_headers(as_bytes(bytes));
  ASSERT_TRUE(table.has_value());
  // Move the summary's entry to the end of the table and flag it context-sensitive.
  std::vector<SectionHeader> moved = *table;
  auto summary = std::find_if(moved.begin(), moved.end(), [](const SectionHeader& s) {
    return s.type == static_cast<uint64_t>(SectionType::summary);
  });
  ASSERT_NE(summary, moved.end());
  SectionHeader s = *summary;
  s.flags |= kSummaryContext;
  moved.erase(summary);
  moved.push_back(s);
  constexpr size_t kTableOffset = 9 + 1 + 8;  // uleb magic, uleb version 103, u64 count
  for (size_t i = 0; i < moved.size(); ++i) {
    uint8_t* at = reinterpret_cast<uint8_t*>(bytes.data()) + kTableOffset + 32 * i;
    store_le<uint64_t>(at, moved[i].type);
    store_le<uint64_t>(at + 8, moved[i].flags);
    store_le<uint64_t>(at + 16, moved[i].offset);
    store_le<uint64_t>(at + 24, moved[i].size);
  }
  auto back = read_profile(as_bytes(bytes));
  ASSERT_FALSE(back.has_value());
  EXPECT_NE(back.error().message.find("after the function records"), std::string::npos)
      << back.error().message;
  EXPECT_TRUE(back.error().has_offset());
}

// Every function of a context-sensitive profile needs a context: the writers refuse one
// without (it used to be written as context 0, another function's).
TEST(SampleProfileTest, WritersRefuseAContextSensitiveProfileWithoutAContext) {
  Profile p = text("[main:1 @ foo]:100:1\n 1: 100\n");
  Profile q = text("bar:50:5\n 1: 50\n");
  for (auto& [key, f] : q.functions) p.functions.emplace(key, f);
  WriteOptions o;
  o.format = Format::extbinary;
  auto bytes = write_profile(p, o);
  ASSERT_FALSE(bytes.has_value());
  EXPECT_NE(bytes.error().message.find("bar"), std::string::npos) << bytes.error().message;
}

TEST(SampleProfileTest, TruncatedBinaryProfilesFailWithAnOffset) {
  Profile p = text("main:1000:10\n 1: 10\n 2: 20 foo:15 bar:5\nfoo:300:15\n 1: 15\n");
  for (Format f : {Format::binary, Format::extbinary}) {
    WriteOptions o;
    o.format = f;
    const std::string bytes = *write_profile(p, o);
    for (size_t n = 1; n < bytes.size(); ++n) {
      auto back = read_profile(as_bytes(std::string_view(bytes).substr(0, n)));
      if (back.has_value()) continue;  // a cut at a record boundary of a binary profile
      EXPECT_FALSE(back.error().message.empty());
      EXPECT_TRUE(back.error().has_offset() || back.error().code == ErrorCode::bad_magic) << n;
    }
  }
}

TEST(SampleProfileTest, CsContextsPrintAndSortFrameByFrame) {
  Profile p = text(
      "[main:2 @ _Z3fooi:2 @ _Z3barv]:5:5\n 1: 5\n[main]:5:1\n 1: 1\n[_Z3barv]:5:10\n 1: 5\n"
      "[main:2 @ _Z3fooi]:5:1\n 1: 1\n");
  EXPECT_TRUE(p.is_cs);
  const auto order = sorted_functions(p);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[0]->context_string(), "_Z3barv");
  EXPECT_EQ(order[1]->context_string(), "main");
  EXPECT_EQ(order[2]->context_string(), "main:2 @ _Z3fooi");
  EXPECT_EQ(order[3]->context_string(), "main:2 @ _Z3fooi:2 @ _Z3barv");
}

TEST(SampleProfileTest, DeepInlineNestingIsRefused) {
  std::string s = "f:1:1\n";
  for (int i = 1; i <= 1100; ++i) s += std::string(i, ' ') + "1: g:1\n";
  auto p = read_text(as_bytes(s));
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message.find("nested deeper"), std::string::npos);
}

}  // namespace
}  // namespace profkit::sampleprof
