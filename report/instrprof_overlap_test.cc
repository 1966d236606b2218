#include "report/instrprof_overlap.h"

#include <gtest/gtest.h>

#include "format/instrprof/merge.h"
#include "format/instrprof/testing.h"

namespace profkit::report {
namespace {

using instrprof::test::make_record;

using instrprof::Profile;
using instrprof::Record;


Profile profile(std::vector<Record> records) {
  Profile p;
  p.flags = instrprof::kFlagIR;
  p.records = std::move(records);
  return p;
}

TEST(InstrOverlap, ScoresEachCounterByTheSmallerShare) {
  // Shares: base 1/4, 3/4; test 2/4, 2/4 -> 1/4 + 2/4.
  const Profile base = profile({make_record("f", 1, {1, 3})});
  const Profile test = profile({make_record("f", 1, {2, 2})});
  const InstrOverlap o = *overlap_instr(base, test, {});
  EXPECT_DOUBLE_EQ(o.program.overlap.counts, 0.75);
  EXPECT_EQ(o.program.overlap.entries, 1u);
  EXPECT_TRUE(o.functions.empty());  // no --value-cutoff, no --function
}

TEST(InstrOverlap, CountsFunctionsOnlyInTestAndMismatchedOnes) {
  const Profile base = profile({make_record("f", 1, {4}), make_record("g", 1, {4})});
  const Profile test = profile({make_record("f", 1, {2}), make_record("g", 2, {2}), make_record("h", 1, {4})});
  const InstrOverlap o = *overlap_instr(base, test, {});
  EXPECT_EQ(o.program.overlap.entries, 1u);
  EXPECT_EQ(o.program.mismatch.entries, 1u);  // g under another hash
  EXPECT_DOUBLE_EQ(o.program.mismatch.counts, 0.25);
  EXPECT_EQ(o.program.unique.entries, 1u);  // h
  EXPECT_DOUBLE_EQ(o.program.unique.counts, 0.5);
}

TEST(InstrOverlap, ListsFunctionsByCutoffOrName) {
  const Profile base = profile({make_record("main", 1, {5}), make_record("helper", 1, {5})});
  const Profile test = profile({make_record("main", 1, {9}), make_record("helper", 1, {1})});
  InstrOverlapOptions options;
  options.value_cutoff = 5;
  InstrOverlap o = *overlap_instr(base, test, options);
  ASSERT_EQ(o.functions.size(), 1u);
  EXPECT_EQ(o.functions[0].name, "main");
  EXPECT_DOUBLE_EQ(o.functions[0].overlap.counts, 1.0);
  options.function = "help";
  o = *overlap_instr(base, test, options);
  EXPECT_EQ(o.functions.size(), 2u);
}

TEST(InstrOverlap, AZeroSumProfileIsNamed) {
  const Profile base = profile({make_record("f", 1, {0})});
  const Profile test = profile({make_record("f", 1, {3})});
  InstrOverlapOptions options;
  options.base_name = "base.profdata";
  const InstrOverlap o = *overlap_instr(base, test, options);
  EXPECT_EQ(render_overlap_text(o, options),
            "Sum of edge counts for profile base.profdata is 0.\n");
}

TEST(InstrOverlap, TextAndJsonCarryTheSameFigures) {
  const Profile base = profile({make_record("f", 1, {1, 3})});
  const Profile test = profile({make_record("f", 1, {2, 2})});
  InstrOverlapOptions options;
  options.base_name = "a";
  options.test_name = "b";
  const InstrOverlap o = *overlap_instr(base, test, options);
  EXPECT_NE(render_overlap_text(o, options).find("  Edge profile overlap: 75.000%\n"),
            std::string::npos);
  EXPECT_NE(render_overlap_json(o, options).find("\"edge\": 0.75"), std::string::npos);
}

TEST(InstrOverlap, ABaseThatCannotBeMergedIsAnErrorNotAnEmptyBase) {
  Profile base = profile({make_record("f", 1, {4})});
  instrprof::TemporalTrace trace;
  trace.function_refs = {1};
  base.traces.push_back(trace);
  base.trace_stream_size = instrprof::kMaxTraceStreamSize + 1;
  EXPECT_FALSE(overlap_instr(base, profile({make_record("f", 1, {2})}), {}).has_value());
}

}  // namespace
}  // namespace profkit::report
