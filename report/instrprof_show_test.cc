// Unit tests for the IR-PGO `show` printer on hand-built profiles. Every expected text is
// what `llvm-profdata-22 show` printed for the real file the profile mirrors (the command
// is named above each); the conformance test compares against the live tool.
#include "report/instrprof_show.h"

#include <gtest/gtest.h>

#include "format/bytes/hash.h"
#include "format/instrprof/testing.h"

namespace profkit::report {
namespace {

using instrprof::Profile;
using instrprof::ProfileFormat;
using instrprof::Record;
using instrprof::ValueData;

using instrprof::test::make_record;

// simple.c (docs/formats/irpgo.md 8.1) at -O0, default run, merged by llvm-profdata-22: payload order.
Profile simple22() {
  Profile p;
  p.format = ProfileFormat::indexed;
  p.version = 13;
  p.flags = instrprof::kFlagIR;
  p.version_word = 13 | p.flags;
  p.records.push_back(make_record("main", 146835647075900052ull, {0, 1}));
  p.records.push_back(make_record("simple.c;helper", 146835647075900052ull, {3, 2}));
  p.records.push_back(make_record("never_called", 742261418966908927ull, {0}));
  p.records.push_back(make_record("compute", 844982796850871011ull, {5, 5, 1}));
  return p;
}

// vt2.cpp (docs/formats/irpgo.md 8.1) built with vtable value profiling, merged by llvm-profdata-22
// without --keep-vtable-symbols: the vtable targets have no names.
Profile vt2_22() {
  Profile p;
  p.format = ProfileFormat::indexed;
  p.version = 13;
  p.flags = instrprof::kFlagIR;
  p.version_word = 13 | p.flags;
  const uint64_t leaf = 742261418966908927ull;
  p.records.push_back(make_record("_ZNK2D21fEi", leaf, {7}));
  Record both = make_record("_Z4bothPK1Bim", 628768482812493823ull, {20});
  both.value_sites[0] = {{{md5_name_ref("_ZNK2D11fEi"), 13}, {md5_name_ref("_ZNK2D21fEi"), 7}}};
  both.value_sites[1] = {{{129, 10}, {16, 10}}};
  both.value_sites[2] = {{{md5_name_ref("_ZTV2D1"), 13}, {md5_name_ref("_ZTV2D2"), 7}}};
  p.records.push_back(both);
  p.records.push_back(make_record("_ZNK2D11fEi", leaf, {13}));
  p.records.push_back(make_record("_ZN2D1D0Ev", leaf, {0}));
  p.records.push_back(make_record("main", 871441886358549385ull, {20, 1, 0, 7, 10}));
  p.records.push_back(make_record("_ZN1BD2Ev", leaf, {0}));
  p.records.push_back(make_record("_ZN2D2D0Ev", leaf, {0}));
  return p;
}

constexpr const char* kSimpleTrailer =
    "Total functions: 4\n"
    "Maximum function count: 5\n"
    "Maximum internal block count: 5\n"
    "Total number of blocks: 8\n"
    "Total count: 17\n";

constexpr const char* kIrLevel =
    "Instrumentation level: IR  entry_first = 0  instrument_loop_entries = 0\n";

// llvm-profdata-22 show simple22.profdata
TEST(InstrProfShow, DefaultPrintsOnlyTheSummary) {
  EXPECT_EQ(show_instrprof(simple22(), {}), std::string(kIrLevel) + kSimpleTrailer);
}

// llvm-profdata-22 show --all-functions --counts simple22.profdata
TEST(InstrProfShow, AllFunctionsWithCountsInStorageOrder) {
  ShowOptions o;
  o.all_functions = true;
  o.counts = true;
  EXPECT_EQ(show_instrprof(simple22(), o),
            std::string("Counters:\n"
                        "  main:\n"
                        "    Hash: 0x0209aa3e3852da94\n"
                        "    Counters: 2\n"
                        "    Block counts: [0, 1]\n"
                        "  simple.c;helper:\n"
                        "    Hash: 0x0209aa3e3852da94\n"
                        "    Counters: 2\n"
                        "    Block counts: [3, 2]\n"
                        "  never_called:\n"
                        "    Hash: 0x0a4d0ad3efffffff\n"
                        "    Counters: 1\n"
                        "    Block counts: [0]\n"
                        "  compute:\n"
                        "    Hash: 0x0bb9fb60779cbae3\n"
                        "    Counters: 3\n"
                        "    Block counts: [5, 5, 1]\n") +
                kIrLevel + "Functions shown: 4\n" + kSimpleTrailer);
}

// llvm-profdata-22 show --function=c --counts simple22.profdata
TEST(InstrProfShow, FunctionFilterMatchesSubstrings) {
  ShowOptions o;
  o.function = "c";
  o.counts = true;
  EXPECT_EQ(show_instrprof(simple22(), o),
            std::string("Counters:\n"
                        "  simple.c;helper:\n"
                        "    Hash: 0x0209aa3e3852da94\n"
                        "    Counters: 2\n"
                        "    Block counts: [3, 2]\n"
                        "  never_called:\n"
                        "    Hash: 0x0a4d0ad3efffffff\n"
                        "    Counters: 1\n"
                        "    Block counts: [0]\n"
                        "  compute:\n"
                        "    Hash: 0x0bb9fb60779cbae3\n"
                        "    Counters: 3\n"
                        "    Block counts: [5, 5, 1]\n") +
                kIrLevel + "Functions shown: 3\n" + kSimpleTrailer);
}

// llvm-profdata-22 show --detailed-summary simple22.profdata (docs/formats/irpgo.md 5.7)
TEST(InstrProfShow, DetailedSummaryUsesSinglePrecisionPercentages) {
  ShowOptions o;
  o.detailed_summary = true;
  EXPECT_EQ(show_instrprof(simple22(), o),
            std::string(kIrLevel) + kSimpleTrailer +
                "Detailed summary:\n"
                "0 blocks (0.00%) with count >= 0 account for 1% of the total counts.\n"
                "2 blocks (25.00%) with count >= 5 account for 10% of the total counts.\n"
                "2 blocks (25.00%) with count >= 5 account for 20% of the total counts.\n"
                "2 blocks (25.00%) with count >= 5 account for 30% of the total counts.\n"
                "2 blocks (25.00%) with count >= 5 account for 40% of the total counts.\n"
                "2 blocks (25.00%) with count >= 5 account for 50% of the total counts.\n"
                "2 blocks (25.00%) with count >= 5 account for 60% of the total counts.\n"
                "3 blocks (37.50%) with count >= 3 account for 70% of the total counts.\n"
                "3 blocks (37.50%) with count >= 3 account for 80% of the total counts.\n"
                "4 blocks (50.00%) with count >= 2 account for 90% of the total counts.\n"
                "6 blocks (75.00%) with count >= 1 account for 95% of the total counts.\n"
                "6 blocks (75.00%) with count >= 1 account for 99% of the total counts.\n"
                "6 blocks (75.00%) with count >= 1 account for 99.9% of the total counts.\n"
                "6 blocks (75.00%) with count >= 1 account for 99.99% of the total counts.\n"
                "6 blocks (75.00%) with count >= 1 account for 99.999% of the total counts.\n"
                "6 blocks (75.00%) with count >= 1 account for 99.9999% of the total counts.\n");
}

// llvm-profdata-22 show --detailed-summary --detailed-summary-cutoffs=999999,500000 ...
TEST(InstrProfShow, DetailedSummaryCutoffsAreSorted) {
  ShowOptions o;
  o.detailed_summary = true;
  o.detailed_summary_cutoffs = {999999, 500000};
  EXPECT_EQ(show_instrprof(simple22(), o),
            std::string(kIrLevel) + kSimpleTrailer +
                "Detailed summary:\n"
                "2 blocks (25.00%) with count >= 5 account for 50% of the total counts.\n"
                "6 blocks (75.00%) with count >= 1 account for 99.9999% of the total counts.\n");
}

TEST(InstrProfShow, CutoffsWithoutDetailedSummaryChangeNothing) {
  ShowOptions o;
  o.detailed_summary_cutoffs = {500000};
  EXPECT_EQ(show_instrprof(simple22(), o), show_instrprof(simple22(), {}));
}

// llvm-profdata-22 show --covered simple22.profdata
TEST(InstrProfShow, CoveredListsNamesWithANonZeroCounterOnly) {
  ShowOptions o;
  o.covered = true;
  EXPECT_EQ(show_instrprof(simple22(), o), "main\nsimple.c;helper\ncompute\n");
}

// llvm-profdata-22 show --value-cutoff=3 --list-below-cutoff --all-functions ...
TEST(InstrProfShow, ListBelowCutoffPrintsOnlyTheListAndTheTrailer) {
  ShowOptions o;
  o.value_cutoff = 3;
  o.list_below_cutoff = true;
  o.all_functions = true;
  EXPECT_EQ(show_instrprof(simple22(), o),
            std::string("The list of functions with the maximum counter less than 3:\n"
                        "  main: (Max = 1 Sum = 1)\n"
                        "  never_called: (Max = 0 Sum = 0)\n") +
                kIrLevel + "Functions shown: 0\n" + kSimpleTrailer +
                "Number of functions with maximum count (< 3): 2\n"
                "Number of functions with maximum count (>= 3): 2\n");
}

// llvm-profdata-22 show --showcs simple22.profdata: no CS records, empty summary.
TEST(InstrProfShow, ShowcsConsidersOnlyContextSensitiveRecords) {
  ShowOptions o;
  o.showcs = true;
  EXPECT_EQ(show_instrprof(simple22(), o),
            std::string(kIrLevel) +
                "Total functions: 0\nMaximum function count: 0\nMaximum internal block count: 0\n"
                "Total number of blocks: 0\nTotal count: 0\n");
}

// llvm-profdata-22 show --text --all-functions simple22.profdata (docs/formats/irpgo.md 5.7)
TEST(InstrProfShow, TextPrintsIrMarkerAndRecordBlocks) {
  ShowOptions o;
  o.text = true;
  o.function = "main";
  EXPECT_EQ(show_instrprof(simple22(), o),
            ":ir\nmain\n# Func Hash:\n146835647075900052\n# Num Counters:\n2\n"
            "# Counter Values:\n0\n1\n\n");
  o.function.clear();
  EXPECT_EQ(show_instrprof(simple22(), o), ":ir\n");
}

// llvm-profdata-22 show --all-functions --counts --ic-targets --memop-sizes --show-vtables
//   --topn=3 --value-cutoff=1 vt2_22.profdata
TEST(InstrProfShow, ValueProfilesTopnAndCutoff) {
  ShowOptions o;
  o.all_functions = true;
  o.counts = true;
  o.ic_targets = true;
  o.memop_sizes = true;
  o.show_vtables = true;
  o.topn = 3;
  o.value_cutoff = 1;
  const std::string stats =
      "  Total number of sites: 1\n"
      "  Total number of sites with values: 1\n"
      "  Total number of profiled values: 2\n"
      "  Value sites histogram:\n"
      "\tNumTargets, SiteCount\n"
      "\t2, 1\n";
  const std::string leaf_tail =
      "    Counters: 1\n"
      "    Indirect Call Site Count: 0\n"
      "    Number of instrumented vtables: 0\n";
  EXPECT_EQ(show_instrprof(vt2_22(), o),
            "Counters:\n"
            "  _ZNK2D21fEi:\n"
            "    Hash: 0x0a4d0ad3efffffff\n" +
                leaf_tail +
                "    Block counts: [7]\n"
                "    Indirect Target Results:\n"
                "    VTable Results:\n"
                "  _Z4bothPK1Bim:\n"
                "    Hash: 0x08b9d59a8fffffff\n"
                "    Counters: 1\n"
                "    Indirect Call Site Count: 1\n"
                "    Number of instrumented vtables: 1\n"
                "    Number of Memory Intrinsics Calls: 1\n"
                "    Block counts: [20]\n"
                "    Indirect Target Results:\n"
                "\t[  0, _ZNK2D11fEi,         13 ] (65.00%)\n"
                "\t[  0, _ZNK2D21fEi,          7 ] (35.00%)\n"
                "    VTable Results:\n"
                "\t[  0, ,         13 ] (65.00%)\n"
                "\t[  0, ,          7 ] (35.00%)\n"
                "    Memory Intrinsic Size Results:\n"
                "\t[  0,  129,         10 ] (50.00%)\n"
                "\t[  0,   16,         10 ] (50.00%)\n"
                "  _ZNK2D11fEi:\n"
                "    Hash: 0x0a4d0ad3efffffff\n" +
                leaf_tail +
                "    Block counts: [13]\n"
                "    Indirect Target Results:\n"
                "    VTable Results:\n"
                "  main:\n"
                "    Hash: 0x0c17fbc74ecc3389\n"
                "    Counters: 5\n"
                "    Indirect Call Site Count: 0\n"
                "    Number of instrumented vtables: 0\n"
                "    Block counts: [20, 1, 0, 7, 10]\n"
                "    Indirect Target Results:\n"
                "    VTable Results:\n" +
                kIrLevel +
                "Functions shown: 4\n"
                "Total functions: 7\n"
                "Maximum function count: 20\n"
                "Maximum internal block count: 10\n"
                "Total number of blocks: 11\n"
                "Total count: 78\n"
                "Number of functions with maximum count (< 1): 3\n"
                "Number of functions with maximum count (>= 1): 4\n"
                "Top 3 functions with the largest internal block counts: \n"
                "  _Z4bothPK1Bim, max count = 20\n"
                "  main, max count = 20\n"
                "  _ZNK2D11fEi, max count = 13\n"
                "Statistics for indirect call sites profile:\n" +
                stats + "Statistics for vtable profile:\n" + stats +
                "Statistics for memory intrinsic calls sizes profile:\n" + stats);
}

// llvm-profdata-22 show --text --all-functions vt2_22.profdata (record 2 of 7)
TEST(InstrProfShow, TextResolvesTargetsOrPrintsExternalSymbol) {
  ShowOptions o;
  o.text = true;
  o.function = "both";
  EXPECT_EQ(show_instrprof(vt2_22(), o),
            ":ir\n_Z4bothPK1Bim\n# Func Hash:\n628768482812493823\n# Num Counters:\n1\n"
            "# Counter Values:\n20\n# Num Value Kinds:\n3\n"
            "# ValueKind = IPVK_IndirectCallTarget:\n0\n# NumValueSites:\n1\n2\n"
            "_ZNK2D11fEi:13\n_ZNK2D21fEi:7\n"
            "# ValueKind = IPVK_MemOPSize:\n1\n# NumValueSites:\n1\n2\n129:10\n16:10\n"
            "# ValueKind = IPVK_VTableTarget:\n2\n# NumValueSites:\n1\n2\n"
            "** External Symbol **:13\n** External Symbol **:7\n\n");
}

// llvm-profdata-22 show --all-functions --counts --text mcdc22.profdata (front end)
TEST(InstrProfShow, FrontEndProfilesSplitTheFunctionCountAndPrintBitmaps) {
  Profile p;
  p.format = ProfileFormat::indexed;
  p.version = 13;
  p.version_word = 13;
  p.records.push_back(make_record("main", 74314840, {1, 8}));
  Record check = make_record("check", 703540593752ull, {8, 3, 6, 5, 4, 2});
  check.bitmap = {0x1b};
  p.records.push_back(check);
  ShowOptions o;
  o.all_functions = true;
  o.counts = true;
  EXPECT_EQ(show_instrprof(p, o),
            "Counters:\n"
            "  main:\n"
            "    Hash: 0x00000000046df458\n"
            "    Counters: 2\n"
            "    Function count: 1\n"
            "    Block counts: [8]\n"
            "  check:\n"
            "    Hash: 0x000000a3ce498458\n"
            "    Counters: 6\n"
            "    Function count: 8\n"
            "    Block counts: [3, 6, 5, 4, 2]\n"
            "Instrumentation level: Front-end\n"
            "Functions shown: 2\n"
            "Total functions: 2\n"
            "Maximum function count: 8\n"
            "Maximum internal block count: 8\n"
            "Total number of blocks: 8\n"
            "Total count: 37\n");
  o.text = true;
  o.function = "check";
  o.all_functions = false;
  EXPECT_EQ(show_instrprof(p, o),
            "check\n# Func Hash:\n703540593752\n# Num Counters:\n6\n# Counter Values:\n"
            "8\n3\n6\n5\n4\n2\n# Num Bitmap Bytes:\n$1\n# Bitmap Byte Values:\n0x1b\n\n\n");
}

// llvm-profdata-22 show --text --all-functions mcdc22.txt: LLVM's text reader leaves the
// previous record's bitmap on a record that has none; raw and indexed readers do not.
TEST(InstrProfShow, TextInputsCarryTheLastBitmapForward) {
  Profile p;
  p.format = ProfileFormat::text;
  Record check = make_record("check", 703540593752ull, {8, 3, 6, 5, 4, 2});
  check.bitmap = {0x1b};
  p.records.push_back(check);
  p.records.push_back(make_record("main", 74314840, {1, 8}));
  ShowOptions o;
  o.text = true;
  o.function = "main";
  const std::string main_block =
      "main\n# Func Hash:\n74314840\n# Num Counters:\n2\n# Counter Values:\n1\n8\n";
  EXPECT_EQ(show_instrprof(p, o),
            main_block + "# Num Bitmap Bytes:\n$1\n# Bitmap Byte Values:\n0x1b\n\n\n");
  p.format = ProfileFormat::indexed;
  EXPECT_EQ(show_instrprof(p, o), main_block + "\n");
}

// llvm-profdata-22 show --temporal-profile-traces --binary-ids --profile-version --topn=2
// on the -pgo-temporal-instrumentation build of simple.c: raw, indexed and text files.
TEST(InstrProfShow, TrailerSectionsPerInputFormat) {
  Profile p = simple22();
  p.records[1].name = "simple.c;helper";
  p.binary_ids = {{0x04, 0xd6, 0xeb, 0x95}};
  p.traces.push_back({1, {md5_name_ref("main"), md5_name_ref("compute"),
                          md5_name_ref("simple.c;helper")}});
  p.trace_stream_size = 1;
  p.flags |= instrprof::kFlagTemporal;
  ShowOptions o;
  o.temporal_profile_traces = true;
  o.binary_ids = true;
  o.profile_version = true;
  o.topn = 2;
  const std::string head = std::string(kIrLevel) + kSimpleTrailer +
                           "Top 2 functions with the largest internal block counts: \n"
                           "  compute, max count = 5\n"
                           "  simple.c;helper, max count = 3\n";
  const std::string traces =
      "Temporal Profile Traces (samples=1 seen=1):\n"
      "  Temporal Profile Trace 0 (weight=1 count=3):\n"
      "    main\n    compute\n    simple.c;helper\n";
  EXPECT_EQ(show_instrprof(p, o), head + "Binary IDs: \n04d6eb95\nProfile version: 13\n" + traces);
  p.format = ProfileFormat::text;
  p.binary_ids.clear();
  EXPECT_EQ(show_instrprof(p, o), head + "Profile version: 0\n" + traces);
  p.format = ProfileFormat::raw;
  p.version = 10;
  p.version_word = 9295429630892703754ull;
  EXPECT_EQ(show_instrprof(p, o), head + "Profile version: 9295429630892703754\n" + traces);
  // Indexed files print the heading even without ids; raw files do not.
  p.format = ProfileFormat::indexed;
  o.profile_version = false;
  o.temporal_profile_traces = false;
  EXPECT_EQ(show_instrprof(p, o), head + "Binary IDs: \n");
}

TEST(InstrProfShow, PseudoCountsPrintAMarkerAndStayOutOfTheSummary) {
  Profile p = simple22();
  p.records[2].counts = {instrprof::kPseudoHot, 7};
  p.records[3].counts = {instrprof::kPseudoWarm};
  ShowOptions o;
  o.function = "e";
  o.counts = true;
  EXPECT_EQ(show_instrprof(p, o),
            std::string("Counters:\n"
                        "  simple.c;helper:\n"
                        "    Hash: 0x0209aa3e3852da94\n"
                        "    Counters: 2\n"
                        "    Block counts: [3, 2]\n"
                        "  never_called:\n"
                        "    Hash: 0x0a4d0ad3efffffff\n"
                        "    Counters: 2    <PseudoHot>\n"
                        "  compute:\n"
                        "    Hash: 0x0bb9fb60779cbae3\n"
                        "    Counters: 1    <PseudoWarm>\n") +
                kIrLevel +
                "Functions shown: 3\n"
                "Total functions: 2\n"
                "Maximum function count: 3\n"
                "Maximum internal block count: 2\n"
                "Total number of blocks: 4\n"
                "Total count: 6\n");
}

TEST(InstrProfShow, PiecesToASinkJoinToTheWholeText) {
  Profile p = simple22();
  for (int i = 0; i < 40000; ++i)
    p.records.push_back(make_record("f" + std::to_string(i), static_cast<uint64_t>(i), {1, 2, 3}));
  ShowOptions o;
  o.all_functions = true;
  o.counts = true;
  const std::string whole = show_instrprof(p, o);
  ASSERT_GT(whole.size(), size_t{2} << 20);  // several pieces
  std::string joined;
  size_t pieces = 0;
  EXPECT_TRUE(write_show_instrprof(p, o, [&](std::string_view piece) {
    joined += piece;
    ++pieces;
    return true;
  }));
  EXPECT_GE(pieces, 2u);
  EXPECT_EQ(joined, whole);
  size_t calls = 0;
  EXPECT_FALSE(write_show_instrprof(p, o, [&](std::string_view) { return ++calls > 1 && false; }));
  EXPECT_EQ(calls, 1u);  // stops at the first refusal
}

TEST(InstrProfShow, TopnTiesKeepIterationOrder) {
  Profile p = simple22();
  for (auto& r : p.records) r.counts = {4};
  ShowOptions o;
  o.topn = 3;
  const std::string out = show_instrprof(p, o);
  EXPECT_NE(out.find("  main, max count = 4\n  simple.c;helper, max count = 4\n"
                     "  never_called, max count = 4\n"),
            std::string::npos)
      << out;
}

TEST(InstrProfShow, CountsAboveInt64MaxPrintSignedInValueLines) {
  Profile p = vt2_22();
  p.records[1].value_sites[1] = {{{8, ~uint64_t{0}}}};
  ShowOptions o;
  o.function = "both";
  o.memop_sizes = true;
  const std::string out = show_instrprof(p, o);
  EXPECT_NE(out.find("\t[  0,    8,         -1 ] (100.00%)\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace profkit::report
