// Merge semantics (docs/formats/irpgo.md 3.7), one behaviour per test, on hand-built profiles.
#include "format/instrprof/merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <limits>
#include <sstream>

#include "format/bytes/hash.h"
#include "format/instrprof/testing.h"

namespace profkit::instrprof {
namespace {

using test::make_record;

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();


Profile ir(std::vector<Record> records) {
  Profile p;
  p.flags = kFlagIR;
  p.records = std::move(records);
  return p;
}

Profile merge(std::vector<Profile> ps, std::vector<uint64_t> weights = {},
              MergeOptions options = {}, std::vector<std::string>* warnings = nullptr) {
  Merger m(options, [&](std::string_view, std::string_view fn, std::string_view msg) {
    if (warnings) warnings->push_back(std::string(fn) + ": " + std::string(msg));
  });
  for (size_t i = 0; i < ps.size(); ++i) {
    auto r = m.add(ps[i], i < weights.size() ? weights[i] : 1);
    EXPECT_TRUE(r);
  }
  return m.finish();
}

TEST(Merge, AddsCountsWithWeights) {
  Profile out = merge({ir({make_record("f", 1, {1, 2})}), ir({make_record("f", 1, {10, 20})})}, {3, 2});
  ASSERT_EQ(out.records.size(), 1u);
  EXPECT_EQ(out.records[0].counts, (std::vector<uint64_t>{23, 46}));
}

TEST(Merge, KeysAreNameAndHashInFirstSeenOrder) {
  Profile out = merge({ir({make_record("b", 1, {1}), make_record("a", 2, {1})}),
                       ir({make_record("a", 3, {1}), make_record("b", 1, {1}), make_record("c", 1, {5})})});
  ASSERT_EQ(out.records.size(), 4u);
  EXPECT_EQ(out.records[0].name, "b");
  EXPECT_EQ(out.records[0].counts[0], 2u);
  EXPECT_EQ(out.records[1].name, "a");
  EXPECT_EQ(out.records[1].hash, 2u);
  EXPECT_EQ(out.records[2].name, "a");
  EXPECT_EQ(out.records[2].hash, 3u);
  EXPECT_EQ(out.records[3].name, "c");
}

TEST(Merge, CounterCountMismatchWarnsAndDropsTheNewRecord) {
  std::vector<std::string> warnings;
  Profile out = merge({ir({make_record("f", 1, {1, 2})}), ir({make_record("f", 1, {5, 5, 5})})}, {}, {}, &warnings);
  ASSERT_EQ(out.records.size(), 1u);
  EXPECT_EQ(out.records[0].counts, (std::vector<uint64_t>{1, 2}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("counter mismatch"), std::string::npos);
}

TEST(Merge, Llvm22ClampsAtMaxMinusTwoAndLlvm14Saturates) {
  const std::vector<Profile> in = {ir({make_record("f", 1, {kMax - 5, 1})}), ir({make_record("f", 1, {10, 1})})};
  EXPECT_EQ(merge(in).records[0].counts[0], kMax - 2);
  MergeOptions o14;
  o14.llvm14_semantics = true;
  EXPECT_EQ(merge(in, {}, o14).records[0].counts[0], kMax);
}

TEST(Merge, ValueSitesMergeByValueAndSortByDescendingCount) {
  Record a = make_record("f", 1, {1});
  a.value_sites[0] = {{{100, 5}, {200, 7}}};
  Record b = make_record("f", 1, {1});
  b.value_sites[0] = {{{300, 7}, {100, 1}}};
  Profile out = merge({ir({a}), ir({b})});
  // 100: 5+1 = 6; 200 and 300 tie at 7 and end up in ascending value order.
  EXPECT_EQ(out.records[0].value_sites[0][0], (ValueSite{{200, 7}, {300, 7}, {100, 6}}));
}

TEST(Merge, MergingWithAnEmptySiteLeavesTiesInAscendingValueOrder) {
  Record a = make_record("f", 1, {1}), b = make_record("f", 1, {1});
  a.value_sites[1] = {{{24, 156}, {1, 156}, {8, 200}}};
  b.value_sites[1].resize(1);
  Profile once = merge({ir({a})});
  EXPECT_EQ(once.records[0].value_sites[1][0], (ValueSite{{8, 200}, {24, 156}, {1, 156}}));
  Profile twice = merge({ir({a}), ir({b})});
  EXPECT_EQ(twice.records[0].value_sites[1][0], (ValueSite{{8, 200}, {1, 156}, {24, 156}}));
}

TEST(Merge, NewTargetValuesFromAWeightedInputAreNotWeighted) {
  // llvm-profdata inserts a target the destination lacks with its count as read (observed
  // with llvm-profdata 22; see the conformance test's weighted merge).
  Record a = make_record("f", 1, {1});
  a.value_sites[1] = {{{8, 10}}};
  Record b = make_record("f", 1, {1});
  b.value_sites[1] = {{{8, 2}, {32, 3}}};
  Profile out = merge({ir({a}), ir({b})}, {1, 5});
  EXPECT_EQ(out.records[0].value_sites[1][0], (ValueSite{{8, 20}, {32, 3}}));
}

TEST(Merge, FirstCopyIsScaledByItsWeight) {
  Record a = make_record("f", 1, {2});
  a.value_sites[1] = {{{8, 3}}};
  Profile out = merge({ir({a})}, {4});
  EXPECT_EQ(out.records[0].counts[0], 8u);
  EXPECT_EQ(out.records[0].value_sites[1][0], (ValueSite{{8, 12}}));
}

TEST(Merge, SitesKeepAtMost255Targets) {
  Record a = make_record("f", 1, {1});
  Record b = make_record("f", 1, {1});
  a.value_sites[0].resize(1);
  b.value_sites[0].resize(1);
  for (uint64_t v = 0; v < 200; ++v) a.value_sites[0][0].push_back({v, 1000 - v});
  for (uint64_t v = 1000; v < 1200; ++v) b.value_sites[0][0].push_back({v, 1});
  Merger m;
  ASSERT_TRUE(m.add(ir({a}), 1));
  ASSERT_TRUE(m.add(ir({b}), 1));
  EXPECT_TRUE(m.order_sensitive());
  Profile out = m.finish();
  EXPECT_EQ(out.records[0].value_sites[0][0].size(), 255u);
  EXPECT_EQ(out.records[0].value_sites[0][0].front(), (ValueData{0, 1000}));
}

TEST(Merge, FlagsAreOredAndIrWithATextFrontEndProfileIsAnError) {
  Profile a = ir({make_record("f", 1, {1})});
  Profile b = ir({make_record("g", 1, {1})});
  b.flags |= kFlagEntryFirst;
  Merger m;
  ASSERT_TRUE(m.add(a, 1));
  ASSERT_TRUE(m.add(b, 1));
  Profile fe;  // a text profile with a :fe line
  fe.format = ProfileFormat::text;
  fe.text_front_end = true;
  fe.records = {make_record("h", 1, {1})};
  auto r = m.add(fe, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::mismatch);
  EXPECT_EQ(m.finish().flags, kFlagIR | kFlagEntryFirst);
}

// As llvm-profdata 22 and 14: a raw or indexed profile of clang's front-end instrumentation
// has no profile kind, so it merges with IR-level profiles in either order and the output
// is IR-level; only a text profile's :fe line makes the kinds clash.
TEST(Merge, RawAndIndexedFrontEndProfilesMergeWithIrProfiles) {
  for (const ProfileFormat format : {ProfileFormat::raw, ProfileFormat::indexed}) {
    Profile fe;
    fe.format = format;
    fe.records = {make_record("h", 2, {1})};
    for (const bool fe_first : {true, false}) {
      Merger m;
      Profile a = ir({make_record("f", 1, {1})});
      ASSERT_TRUE(m.add(fe_first ? fe : a, 1));
      ASSERT_TRUE(m.add(fe_first ? a : fe, 1));
      const Profile out = m.finish();
      EXPECT_EQ(out.flags, kFlagIR);
      EXPECT_EQ(out.records.size(), 2u);
    }
    Profile text_fe;
    text_fe.format = ProfileFormat::text;
    text_fe.text_front_end = true;
    Merger m;
    ASSERT_TRUE(m.add(text_fe, 1));
    EXPECT_FALSE(m.add(fe, 1));  // FE bit against no bit: LLVM refuses this one too
  }
}

TEST(Merge, BinaryIdsAreSortedAndDeduplicated) {
  Profile a = ir({});
  a.binary_ids = {{3, 4}, {1, 2, 3}};
  Profile b = ir({});
  b.binary_ids = {{1, 2, 3}, {1, 2}};
  Profile out = merge({a, b});
  EXPECT_EQ(out.binary_ids,
            (std::vector<std::vector<uint8_t>>{{1, 2}, {1, 2, 3}, {3, 4}}));
}

TEST(Merge, TracesGetTheInputWeightAndAreCutToTheMaximumLength) {
  Profile a = ir({});
  a.flags |= kFlagTemporal;
  a.traces = {{1, {1, 2, 3, 4}}};
  a.trace_stream_size = 1;
  MergeOptions o;
  o.max_trace_length = 2;
  Profile out = merge({a, a}, {1, 3}, o);
  ASSERT_EQ(out.traces.size(), 2u);
  EXPECT_EQ(out.traces[0], (TemporalTrace{1, {1, 2}}));
  EXPECT_EQ(out.traces[1], (TemporalTrace{3, {1, 2}}));
  EXPECT_EQ(out.trace_stream_size, 2u);
}

TEST(Merge, ReservoirKeepsAtMostItsSize) {
  Profile a = ir({});
  a.traces = {{1, {7}}};
  a.trace_stream_size = 1;
  MergeOptions o;
  o.trace_reservoir_size = 3;
  Profile out = merge({a, a, a, a, a, a}, {}, o);
  EXPECT_EQ(out.traces.size(), 3u);
  EXPECT_EQ(out.trace_stream_size, 6u);
}

TEST(Merge, AbsorbingALaterChunkEqualsMergingInOrder) {
  std::vector<Profile> in;
  for (int i = 0; i < 6; ++i) {
    Record r = make_record("f" + std::to_string(i % 4), 1, {uint64_t(i), 1});
    r.value_sites[0] = {{{uint64_t(100 + i % 3), 2}, {7, 1}}};
    in.push_back(ir({r, make_record("g", 9, {1})}));
  }
  Merger all;
  for (const Profile& p : in) ASSERT_TRUE(all.add(p, 1));
  Merger first, second;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(first.add(in[i], 1));
  for (int i = 3; i < 6; ++i) ASSERT_TRUE(second.add(in[i], 1));
  ASSERT_TRUE(first.absorb(std::move(second)));
  EXPECT_FALSE(first.order_sensitive());
  EXPECT_EQ(first.finish().records, all.finish().records);
}

TEST(Merge, WeightsMakeTheMergeOrderSensitive) {
  Merger m;
  ASSERT_TRUE(m.add(ir({make_record("f", 1, {1})}), 1));
  EXPECT_FALSE(m.order_sensitive());
  ASSERT_TRUE(m.add(ir({make_record("f", 1, {1})}), 2));
  EXPECT_TRUE(m.order_sensitive());
}

// A file of format/instrprof/testdata/merge/.
std::string merge_testdata(const char* name) {
  std::ifstream in(std::string(PROFKIT_SOURCE_DIR) + "/format/instrprof/testdata/merge/" + name,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Merge, RawFastPathEqualsMergingDecodedProfiles) {
  const std::string a = merge_testdata("vp22.profraw"), b = merge_testdata("vp22b.profraw");
  Merger fast;
  RawReader reader;
  ASSERT_TRUE(fast.add_raw(as_bytes(a), 2, reader));
  ASSERT_TRUE(fast.add_raw(as_bytes(b), 1, reader));
  auto pa = read_raw_profile(as_bytes(a));
  auto pb = read_raw_profile(as_bytes(b));
  ASSERT_TRUE(pa && pb);
  Merger slow;
  ASSERT_TRUE(slow.add(*pa, 2));
  ASSERT_TRUE(slow.add(*pb, 1));
  Profile x = fast.finish(), y = slow.finish();
  EXPECT_EQ(x.records, y.records);
  EXPECT_EQ(x.binary_ids, y.binary_ids);
  EXPECT_EQ(x.flags, y.flags);
}

// A raw record whose NameRef its own image does not name is merged by hash alone, as "",
// even after another image named that NameRef: the fast path's key lookup found the named
// record from the second merge on. The file (found by the fuzzer) holds four images; the
// first refers to names only the second defines.
TEST(Merge, AnUnnamedRecordStaysUnnamedWhenAnotherImageNamesItsRef) {
  const std::string raw = merge_testdata("ref_named_in_another_image.profraw");
  auto p = read_raw_profile(as_bytes(raw));
  ASSERT_TRUE(p);
  Merger fast, slow;
  RawReader reader;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(fast.add_raw(as_bytes(raw), 1, reader));
    ASSERT_TRUE(slow.add(*p, 1));
  }
  const Profile x = fast.finish(), y = slow.finish();
  EXPECT_EQ(x.records, y.records);
  EXPECT_TRUE(std::any_of(y.records.begin(), y.records.end(),
                          [](const Record& r) { return r.name.empty() && r.has_value_sites(); }))
      << "the unnamed record keeps its values";
}

// Runs of one program share a layout: after the first, their counters are summed as whole
// sections (Merger's bulk path). Counter values from a seeded generator, including
// saturating ones, pseudo counts (which must fall back to record-by-record merging), weights
// and an input of another program in between; both semantics.
TEST(Merge, BulkImagesEqualMergingDecodedProfiles) {
  const std::string base = merge_testdata("vp22.profraw"), other = merge_testdata("simple22.profraw");
  // v10 header: 16 words; counters follow the binary ids and the 64-byte data records.
  auto word = [&](size_t i) { return load_le<uint64_t>(as_bytes(base).data() + 8 * i); };
  const size_t counters_at = 128 + word(2) + 64 * word(3) + word(4);
  const size_t num_counters = word(5);
  size_t bulk_total = 0;
  for (const bool llvm14 : {false, true}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      std::mt19937_64 rng(seed);
      std::vector<std::string> inputs;
      std::vector<uint64_t> weights;
      const int n = 2 + static_cast<int>(rng() % 10);
      for (int i = 0; i < n; ++i) {
        std::string in = base;
        const uint64_t mode = rng() % 4;  // 0: some pseudo or huge counts; 1: sums saturate
        for (size_t k = 0; k < num_counters; ++k) {
          uint64_t v = rng() % 1000;
          if (mode == 0 && rng() % 8 == 0)
            v = rng() % 2 ? kMax - rng() % 3 : (uint64_t{1} << 62) + rng() % 5;
          if (mode == 1 && rng() % 2 == 0) v = (uint64_t{1} << 62) - 1 - rng() % 5;
          std::memcpy(in.data() + counters_at + 8 * k, &v, 8);
        }
        inputs.push_back(in);
        weights.push_back(rng() % 4 == 0 ? 1 + rng() % 3 : 1);
      }
      if (rng() % 3 == 0) inputs[rng() % inputs.size()] = other;
      MergeOptions options;
      options.llvm14_semantics = llvm14;
      Merger fast(options), slow(options);
      RawReader reader;
      for (size_t i = 0; i < inputs.size(); ++i) {
        ASSERT_TRUE(fast.add_raw(as_bytes(inputs[i]), weights[i], reader));
        auto p = read_raw_profile(as_bytes(inputs[i]));
        ASSERT_TRUE(p);
        ASSERT_TRUE(slow.add(*p, weights[i]));
      }
      bulk_total += fast.bulk_images();
      Profile x = fast.finish(), y = slow.finish();
      EXPECT_EQ(x.records, y.records) << "seed " << seed << (llvm14 ? " (LLVM 14)" : "");
    }
  }
  EXPECT_GT(bulk_total, 40u);  // the bulk path was taken, not only the fallback
}

TEST(Merge, SparseDropsNamesWhoseRecordsAreAllZero) {
  Profile p = ir({make_record("z", 1, {0, 0}), make_record("y", 1, {0}), make_record("y", 2, {3}), make_record("x", 1, {1})});
  drop_zero_names(p);
  ASSERT_EQ(p.records.size(), 3u);
  EXPECT_EQ(p.records[0].name, "y");
  EXPECT_EQ(p.records[1].name, "y");
  EXPECT_EQ(p.records[2].name, "x");
}

}  // namespace
}  // namespace profkit::instrprof
