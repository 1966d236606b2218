// Text writer: the exact bytes of docs/formats/irpgo.md 4.2 for each part of a profile, both flavors.
#include "format/instrprof/text_writer.h"

#include <gtest/gtest.h>

#include "format/bytes/hash.h"
#include "format/instrprof/testing.h"

namespace profkit::instrprof {
namespace {

using test::make_record;

TEST(TextWriter, WritesIrHeaderAndSortsRecordsByNameThenHash) {
  Profile p;
  p.flags = kFlagIR;
  p.records = {make_record("main", 7, {0, 1}), make_record("compute", 9, {5}),
               make_record("compute", 3, {2})};
  EXPECT_EQ(write_text_profile(p),
            "# IR level Instrumentation Flag\n:ir\n"
            "compute\n# Func Hash:\n3\n# Num Counters:\n1\n# Counter Values:\n2\n\n"
            "compute\n# Func Hash:\n9\n# Num Counters:\n1\n# Counter Values:\n5\n\n"
            "main\n# Func Hash:\n7\n# Num Counters:\n2\n# Counter Values:\n0\n1\n\n");
}

TEST(TextWriter, FrontEndProfileHasNoHeader) {
  Profile p;
  p.records = {make_record("f", 1, {2})};
  EXPECT_EQ(write_text_profile(p), "f\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n2\n\n");
}

TEST(TextWriter, HeaderFlagsInLlvmOrder) {
  Profile p;
  p.flags = kFlagIR | kFlagCSIR | kFlagEntryFirst | kFlagInstrLoopEntries | kFlagByteCoverage;
  EXPECT_EQ(write_text_profile(p),
            "# CSIR level Instrumentation Flag\n:csir\n"
            "# Always instrument the function entry block\n:entry_first\n"
            "# Always instrument the loop entry blocks\n:instrument_loop_entries\n"
            "# Instrument block coverage\n:single_byte_coverage\n");
  EXPECT_EQ(write_text_profile(p, TextFlavor::llvm14),
            "# CSIR level Instrumentation Flag\n:csir\n"
            "# Always instrument the function entry block\n:entry_first\n");
}

TEST(TextWriter, ValueTargetsResolveToRecordNamesElseExternal) {
  Profile p;
  p.flags = kFlagIR;
  Record r = make_record("dispatch", 1, {10});
  r.value_sites[0] = {{{md5_name_ref("add1"), 60}, {md5_name_ref("gone"), 30}, {0, 1}}};
  r.value_sites[1] = {{{8, 25}, {513, 4}}, {}};
  p.records = {r, make_record("add1", 2, {60})};
  p.extra_names = {"gone"};  // not a record: merge --text prints it as external
  EXPECT_EQ(write_text_profile(p),
            "# IR level Instrumentation Flag\n:ir\n"
            "add1\n# Func Hash:\n2\n# Num Counters:\n1\n# Counter Values:\n60\n\n"
            "dispatch\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n10\n"
            "# Num Value Kinds:\n2\n"
            "# ValueKind = IPVK_IndirectCallTarget:\n0\n# NumValueSites:\n1\n3\n"
            "add1:60\n** External Symbol **:30\n** External Symbol **:1\n"
            "# ValueKind = IPVK_MemOPSize:\n1\n# NumValueSites:\n2\n2\n8:25\n513:4\n0\n\n");
}

TEST(TextWriter, VtableTargetsUseKeptVtableNamesAndLlvm14DropsThem) {
  Profile p;
  p.flags = kFlagIR;
  Record r = make_record("m", 1, {1});
  r.value_sites[2] = {{{md5_name_ref("_ZTV2Sq"), 20}, {md5_name_ref("_ZTV3Tri"), 5}}};
  p.records = {r};
  p.vtable_names = {"_ZTV2Sq"};
  const std::string head = "m\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n1\n";
  EXPECT_EQ(write_text_profile(p),
            "# IR level Instrumentation Flag\n:ir\n" + head +
                "# Num Value Kinds:\n1\n# ValueKind = IPVK_VTableTarget:\n2\n"
                "# NumValueSites:\n1\n2\n_ZTV2Sq:20\n** External Symbol **:5\n\n");
  EXPECT_EQ(write_text_profile(p, TextFlavor::llvm14),
            "# IR level Instrumentation Flag\n:ir\n" + head + "\n");
}

TEST(TextWriter, BitmapBytesInLowercaseHexWithExtraBlankLine) {
  Profile p;
  Record r = make_record("check", 5, {1, 2});
  r.bitmap = {0x1b, 0x00, 0xff};
  p.records = {r};
  EXPECT_EQ(write_text_profile(p),
            "check\n# Func Hash:\n5\n# Num Counters:\n2\n# Counter Values:\n1\n2\n"
            "# Num Bitmap Bytes:\n$3\n# Bitmap Byte Values:\n0x1b\n0x0\n0xff\n\n\n");
  EXPECT_EQ(write_text_profile(p, TextFlavor::llvm14),
            "check\n# Func Hash:\n5\n# Num Counters:\n2\n# Counter Values:\n1\n2\n\n");
}

TEST(TextWriter, TemporalBlockPrintsUnknownNamesAsEmpty) {
  Profile p;
  p.flags = kFlagIR | kFlagTemporal;
  p.records = {make_record("main", 1, {1})};
  p.traces = {{2, {md5_name_ref("main"), 42}}};
  p.trace_stream_size = 3;
  EXPECT_EQ(write_text_profile(p),
            "# IR level Instrumentation Flag\n:ir\n"
            ":temporal_prof_traces\n# Num Temporal Profile Traces:\n1\n"
            "# Temporal Profile Trace Stream Size:\n3\n# Weight:\n2\nmain,,\n\n"
            "main\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n1\n\n");
  EXPECT_EQ(write_text_profile(p, TextFlavor::llvm14),
            "# IR level Instrumentation Flag\n:ir\n"
            "main\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n1\n\n");
}

TEST(TextWriter, AppendRecordUsesTheGivenResolver) {
  Record r = make_record("f", 18446744073709551615ull, {18446744073709551615ull});
  r.value_sites[0] = {{{md5_name_ref("elsewhere"), 3}}};
  NameResolver names;
  names.add("elsewhere");
  std::string out = ":ir\n";
  append_text_record(out, r, names);
  EXPECT_EQ(out,
            ":ir\nf\n# Func Hash:\n18446744073709551615\n# Num Counters:\n1\n"
            "# Counter Values:\n18446744073709551615\n# Num Value Kinds:\n1\n"
            "# ValueKind = IPVK_IndirectCallTarget:\n0\n# NumValueSites:\n1\n1\nelsewhere:3\n\n");
}

TEST(NameResolver, ReaderTableIncludesExtraNamesWriterTableDoesNot) {
  Profile p;
  p.records = {make_record("a", 1, {1})};
  p.extra_names = {"b"};
  p.vtable_names = {"_ZTV1C"};
  const NameResolver w = NameResolver::for_writer(p);
  const NameResolver r = NameResolver::for_reader(p);
  ASSERT_NE(w.find(md5_name_ref("a")), nullptr);
  EXPECT_EQ(*w.find(md5_name_ref("a")), "a");
  EXPECT_EQ(w.find(md5_name_ref("b")), nullptr);
  ASSERT_NE(w.find(md5_name_ref("_ZTV1C")), nullptr);
  ASSERT_NE(r.find(md5_name_ref("b")), nullptr);
  EXPECT_EQ(*r.find(md5_name_ref("b")), "b");
}

}  // namespace
}  // namespace profkit::instrprof
