// Summary against the worked example of docs/formats/irpgo.md 3.4 (simple.c, total 17).
#include "format/instrprof/summary.h"

#include <gtest/gtest.h>

namespace profkit::instrprof {
namespace {

Record make(std::vector<uint64_t> counts) {
  Record r;
  r.counts = std::move(counts);
  return r;
}

TEST(Summary, MatchesSimpleCExample) {
  SummaryBuilder b;
  b.add_record(make({5, 5, 1}));
  b.add_record(make({3, 2}));
  b.add_record(make({0}));
  b.add_record(make({0, 1}));
  const Summary s = b.finish();
  EXPECT_EQ(s.total_num_functions, 4u);
  EXPECT_EQ(s.total_num_blocks, 8u);
  EXPECT_EQ(s.max_function_count, 5u);
  EXPECT_EQ(s.max_block_count, 5u);
  EXPECT_EQ(s.max_internal_block_count, 5u);
  EXPECT_EQ(s.total_block_count, 17u);
  ASSERT_EQ(s.detailed.size(), 16u);
  EXPECT_EQ(s.detailed[0], (SummaryEntry{10000, 0, 0}));
  EXPECT_EQ(s.detailed[1], (SummaryEntry{100000, 5, 2}));
  EXPECT_EQ(s.detailed[7], (SummaryEntry{700000, 3, 3}));
  EXPECT_EQ(s.detailed[9], (SummaryEntry{900000, 2, 4}));
  EXPECT_EQ(s.detailed[10], (SummaryEntry{950000, 1, 6}));
  EXPECT_EQ(s.detailed[15], (SummaryEntry{999999, 1, 6}));
}

TEST(Summary, IsIndependentOfRecordOrder) {
  SummaryBuilder a, b;
  const std::vector<std::vector<uint64_t>> recs = {{7, 1}, {0, 0, 9}, {3}};
  for (const auto& r : recs) a.add_record(make(r));
  for (auto it = recs.rbegin(); it != recs.rend(); ++it) b.add_record(make(*it));
  EXPECT_EQ(a.finish(), b.finish());
}

TEST(Summary, SkipsPseudoCountRecordsOnlyWhenAsked) {
  SummaryBuilder skip(true), keep(false);
  for (auto* b : {&skip, &keep}) {
    b->add_record(make({kPseudoHot, 3}));
    b->add_record(make({2}));
  }
  EXPECT_EQ(skip.finish().total_num_functions, 1u);
  EXPECT_EQ(keep.finish().total_num_functions, 2u);
}

}  // namespace
}  // namespace profkit::instrprof
