// Text reader: the grammar of docs/formats/irpgo.md 4.1, LLVM's integer rules, merging, and error offsets.
#include "format/instrprof/text_reader.h"

#include <gtest/gtest.h>

#include "format/bytes/hash.h"
#include "format/instrprof/text_writer.h"

namespace profkit::instrprof {
namespace {

TEST(TextReader, ReadsHeaderRecordAndCountersSkippingComments) {
  auto p = read_text_profile(
      "# IR level Instrumentation Flag\n:ir\nmain\n# Func Hash:\n146835647075900052\n"
      "# Num Counters:\n2\n# Counter Values:\n0\n1\n\n");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, ProfileFormat::text);
  EXPECT_EQ(p->version, 0u);
  EXPECT_EQ(p->flags, kFlagIR);
  ASSERT_EQ(p->records.size(), 1u);
  EXPECT_EQ(p->records[0].name, "main");
  EXPECT_EQ(p->records[0].hash, 146835647075900052u);
  EXPECT_EQ(p->records[0].counts, (std::vector<uint64_t>{0, 1}));
}

TEST(TextReader, HeaderKeywordsAreCaseInsensitive) {
  auto p = read_text_profile(":CSIR\n:Entry_First\n:instrument_loop_entries\n:single_byte_coverage\n");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->flags,
            kFlagIR | kFlagCSIR | kFlagEntryFirst | kFlagInstrLoopEntries | kFlagByteCoverage);
  auto q = read_text_profile(":ir\n:entry_first\n:not_entry_first\n");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->flags, kFlagIR);
  auto fe = read_text_profile(":fe\nf\n1\n1\n5\n");
  ASSERT_TRUE(fe);
  EXPECT_EQ(fe->flags, 0u);
}

TEST(TextReader, RejectsUnknownHeaderKeywordAtItsLine) {
  auto p = read_text_profile(":ir\n:bogus\n");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::malformed);
  EXPECT_EQ(p.error().offset, 4u);
}

TEST(TextReader, HashRadixIsAutoDetected) {
  for (auto [text, want] : std::vector<std::pair<std::string, uint64_t>>{
           {"0x1F", 31}, {"0X1f", 31}, {"0b101", 5}, {"0o17", 15}, {"017", 15}, {"0", 0},
           {"42", 42}, {"18446744073709551615", ~uint64_t{0}}}) {
    auto p = read_text_profile("f\n" + text + "\n1\n1\n");
    ASSERT_TRUE(p) << text << ": " << p.error().message;
    EXPECT_EQ(p->records[0].hash, want) << text;
  }
  for (std::string bad : {"0x", "12a", "-1", "18446744073709551616", "08"}) {
    auto p = read_text_profile("f\n" + bad + "\n1\n1\n");
    ASSERT_FALSE(p) << bad;
    EXPECT_EQ(p.error().offset, 2u) << bad;
  }
}

TEST(TextReader, CountersAreDecimalOnly) {
  auto p = read_text_profile("f\n1\n1\n0x10\n");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().offset, 6u);
  auto zero = read_text_profile("f\n1\n0\n");
  ASSERT_FALSE(zero);
}

TEST(TextReader, TruncatedRecordIsTruncated) {
  auto p = read_text_profile("f\n1\n3\n1\n2\n");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::truncated);
}

TEST(TextReader, ReadsBitmapAndAllValueKinds) {
  auto p = read_text_profile(
      "f\n1\n1\n9\n$2\n0x1b\n7\n3\n"
      "0\n1\n3\nadd1:60\n** External Symbol **:30\nsim:ple.c;neg:10\n"
      "1\n2\n1\n8:25\n0\n"
      "2\n1\n1\n_ZTV2Sq:20\n"
      "g\n2\n1\n1\n");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->records.size(), 2u);
  const Record& r = p->records[0];
  EXPECT_EQ(r.bitmap, (std::vector<uint8_t>{0x1b, 7}));
  ASSERT_EQ(r.value_sites[0].size(), 1u);
  EXPECT_EQ(r.value_sites[0][0],
            (ValueSite{{md5_name_ref("add1"), 60}, {0, 30}, {md5_name_ref("sim:ple.c;neg"), 10}}));
  ASSERT_EQ(r.value_sites[1].size(), 2u);
  EXPECT_EQ(r.value_sites[1][0], (ValueSite{{8, 25}}));
  EXPECT_TRUE(r.value_sites[1][1].empty());
  EXPECT_EQ(r.value_sites[2][0], (ValueSite{{md5_name_ref("_ZTV2Sq"), 20}}));
  EXPECT_EQ(p->vtable_names, std::vector<std::string>{"_ZTV2Sq"});
  EXPECT_EQ(p->extra_names, (std::vector<std::string>{"add1", "sim:ple.c;neg"}));
  EXPECT_EQ(p->records[1].name, "g");
}

TEST(TextReader, RejectsBadValueKinds) {
  auto p = read_text_profile("f\n1\n1\n9\n4\n");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().offset, 8u);
  auto q = read_text_profile("f\n1\n1\n9\n1\n3\n1\n");
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().offset, 10u);
  auto big = read_text_profile("f\n1\n1\n9\n1\n\n$1\n0x100\n");
  ASSERT_FALSE(big);
}

TEST(TextReader, RejectsOversizedBitmapByte) {
  auto p = read_text_profile("f\n1\n1\n9\n$1\n0x100\n");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().offset, 11u);
}

// As LLVM's text reader: repeated (name, hash) records come back one by one, in file order;
// merging them, with the merge's counter-mismatch rule, is the merge's job (merge_test.cc).
TEST(TextReader, KeepsRepeatedRecordsInOrder) {
  auto p = read_text_profile(
      "f\n1\n2\n1\n2\n1\n1\n1\n2\n5:3\n8:1\n"
      "g\n1\n1\n4\n"
      "f\n1\n2\n10\n20\n1\n1\n1\n2\n8:4\n9:1\n"
      "f\n2\n1\n7\n");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->records.size(), 4u);
  EXPECT_EQ(p->records[0].counts, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(p->records[1].name, "g");
  EXPECT_EQ(p->records[2].counts, (std::vector<uint64_t>{10, 20}));
  EXPECT_EQ(p->records[2].value_sites[1][0], (ValueSite{{8, 4}, {9, 1}}));
  EXPECT_EQ(p->records[3].hash, 2u);
}

// A repeat with another number of counters is read (llvm-profdata's merge then warns
// "counter mismatch" and drops it; it used to fail the whole read here).
TEST(TextReader, RepeatWithDifferentCounterCountIsRead) {
  auto p = read_text_profile("f\n1\n1\n1\nf\n1\n2\n1\n1\n");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->records.size(), 2u);
  EXPECT_EQ(p->records[1].counts.size(), 2u);
}

TEST(TextReader, ReadsTemporalTraces) {
  auto p = read_text_profile(
      ":ir\n:temporal_prof_traces\n# Num Temporal Profile Traces:\n2\n"
      "# Temporal Profile Trace Stream Size:\n5\n# Weight:\n1\nmain, compute,,x,\n"
      "# Weight:\n3\nmain\n\nmain\n1\n1\n1\n");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->flags, kFlagIR | kFlagTemporal);
  EXPECT_EQ(p->trace_stream_size, 5u);
  ASSERT_EQ(p->traces.size(), 2u);
  EXPECT_EQ(p->traces[0].function_refs,
            (std::vector<uint64_t>{md5_name_ref("main"), md5_name_ref("compute"), md5_name_ref("x")}));
  EXPECT_EQ(p->traces[1].weight, 3u);
  ASSERT_EQ(p->records.size(), 1u);
}

TEST(TextReader, AcceptsCrLfLineEnds) {
  auto p = read_text_profile(":ir\r\nf\r\n1\r\n1\r\n5\r\n\r\n");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->records[0].name, "f");
  EXPECT_EQ(p->records[0].counts, std::vector<uint64_t>{5});
}

TEST(TextReader, WriterOutputReadsBackToTheSameText) {
  Profile p;
  p.flags = kFlagIR | kFlagEntryFirst | kFlagTemporal;
  Record r;
  r.name = "a";
  r.hash = 99;
  r.counts = {3, 4};
  r.bitmap = {5};
  r.value_sites[0] = {{{md5_name_ref("b"), 2}, {0, 1}}};
  r.value_sites[1] = {{{64, 8}}};
  Record b;
  b.name = "b";
  b.hash = 1;
  b.counts = {2};
  p.records = {r, b};
  p.traces = {{1, {md5_name_ref("b"), md5_name_ref("a")}}};
  p.trace_stream_size = 1;
  const std::string text = write_text_profile(p);
  auto back = read_text_profile(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->records, p.records);
  EXPECT_EQ(back->traces, p.traces);
  EXPECT_EQ(write_text_profile(*back), text);
}

TEST(TextReader, SniffsPrintableText) {
  EXPECT_TRUE(looks_like_text_profile(":ir\nmain\n"));
  EXPECT_FALSE(looks_like_text_profile(std::string("\xff\x6c", 2)));
  // Only the first 8 bytes count, as in LLVM: names after them may be UTF-8.
  EXPECT_TRUE(looks_like_text_profile(":ir\nmain\n\xc3\xa9t\xc3\xa9\n"));
  EXPECT_FALSE(looks_like_text_profile(":ir\n\xc3\xa9\n"));
}

}  // namespace
}  // namespace profkit::instrprof
