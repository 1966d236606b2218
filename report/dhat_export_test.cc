// DHAT export: the fields dh_view.js requires, merged repeated program points, and what
// valgrind's own dh_view.html shows when Chromium loads the file into it.
#include "report/dhat_export.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "report/testing/browser.h"
#include "report/testing/sample_heap_profile.h"

namespace profkit::report {
namespace {

using nlohmann::json;

TEST(DhatExport, HasEveryFieldTheViewerChecks) {
  const json d = json::parse(dhat_json(testing::sample_heap_profile()));
  for (const char* field : {"dhatFileVersion", "mode", "verb", "bklt", "bkacc", "tu", "Mtu", "cmd",
                            "pid", "te", "pps", "ftbl", "tg", "tuth"})
    EXPECT_TRUE(d.contains(field)) << field;
  EXPECT_EQ(d["dhatFileVersion"], 2);
  EXPECT_EQ(d["mode"], "heap");
  EXPECT_EQ(d["ftbl"][0], "[root]");
  ASSERT_EQ(d["pps"].size(), 4u);
  for (const json& pp : d["pps"])
    for (const char* field : {"tb", "tbk", "fs", "mb", "mbk", "gb", "gbk", "eb", "ebk"})
      EXPECT_TRUE(pp.contains(field)) << field;
  const json& first = d["pps"][0];
  EXPECT_EQ(first["tb"], 4096);
  EXPECT_EQ(first["tbk"], 4);
  EXPECT_EQ(first["tl"], 1'000'000'000);  // 1,000,000 ms in microseconds
  EXPECT_EQ(d["ftbl"][first["fs"][0].get<size_t>()],
            "0x401200: make_buffer(unsigned long) (/src/app/buffers.cc:12:10) [inlined]");
  EXPECT_EQ(d["ftbl"][first["fs"][2].get<size_t>()], "0x401500: main (/src/app/main.cc:7:3)");
}

TEST(DhatExport, ContextsThatPrintAlikeBecomeOneProgramPoint) {
  HeapProfile p = testing::sample_heap_profile();
  HeapContext twin = p.contexts[2];  // same frames as cache_entry's context
  twin.id = 0x5555;
  twin.mib.TotalSize = 24;
  twin.mib.AllocCount = 2;
  p.contexts.push_back(twin);
  const json d = json::parse(dhat_json(p));
  ASSERT_EQ(d["pps"].size(), 4u);  // dh_view throws on a repeated location
  EXPECT_EQ(d["pps"][2]["tb"], (1 << 20) + 24);
  EXPECT_EQ(d["pps"][2]["tbk"], 3);
}

TEST(DhatExport, FramesWithoutAddressOrFileStillPrint) {
  HeapProfile p;
  p.path = "x.yaml";
  p.kind = "yaml";
  p.contexts.push_back(testing::context(1, {testing::frame("f", "f", "", 0, 0, false, 0)}, 1, 8, 0, 0,
                                        Verdict::not_cold));
  p.contexts[0].mib.DeallocTimestamp = 0;
  const json d = json::parse(dhat_json(p));
  EXPECT_EQ(d["ftbl"][1], "f (in unknown file)");
  EXPECT_EQ(d["te"], 1);  // never zero: the viewer divides by it
  // No timestamps (indexed): the longest average lifetime bounds the duration from below.
  p.contexts[0].mib.AllocCount = 4;
  p.contexts[0].mib.TotalLifetime = 100;
  EXPECT_EQ(json::parse(dhat_json(p))["te"], 25'000);
}

// Indexed profiles read without a binary: no file, no absolute line, only the offset in the
// function. Two call sites in one function must stay two program points.
TEST(DhatExport, LineOffsetsKeepCallSitesApartWithoutAFile) {
  HeapProfile p;
  for (uint32_t offset : {3u, 9u}) {
    HeapFrame f = testing::frame("0xdb956436e78dd5fa", "", "", 0, 5, false, 0);
    f.line_offset = offset;
    p.contexts.push_back(testing::context(offset, {f}, 1, 8, 0, 0, Verdict::not_cold));
  }
  const json d = json::parse(dhat_json(p));
  ASSERT_EQ(d["pps"].size(), 2u);
  EXPECT_EQ(d["ftbl"][1], "0xdb956436e78dd5fa (in unknown file, line +3:5)");
  EXPECT_EQ(d["ftbl"][2], "0xdb956436e78dd5fa (in unknown file, line +9:5)");
}

// valgrind's viewer loads the file (through its file <input>, as a person would) and shows
// the totals and the program points, the largest first when sorted by bytes.
TEST(DhatExport, ValgrindsViewerShowsTotalsAndTopProgramPoints) {
  const std::string path = testing::write_temp_file("sample.dhat.json", dhat_json(testing::sample_heap_profile()));
  const json seen = testing::browser_check("--dhat '" + path + "'");
  ASSERT_TRUE(seen.is_object()) << seen;
  EXPECT_EQ(seen["dhat_errors"], json::array()) << seen;
  const std::string blocks = seen["dhat_blocks"];
  const std::string bytes = seen["dhat_bytes"];
  EXPECT_NE(blocks.find("PP 1/1 (4 children)"), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("Total:     1,053,612 bytes (100%"), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("in 18 blocks (100%"), std::string::npos) << blocks;
  // Sorted by blocks (the default), push_back's 10 blocks come first.
  const size_t push_back = blocks.find("PP 1.1/4 {");
  ASSERT_NE(push_back, std::string::npos) << blocks;
  EXPECT_NE(blocks.find("in 10 blocks (55.56%", push_back), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("#1: 0x401300: std::vector<int>::push_back(int const&)", push_back),
            std::string::npos)
      << blocks;
  // Sorted by bytes, cache_entry's 1 MiB is the top program point.
  const size_t top = bytes.find("PP 1.1/");
  ASSERT_NE(top, std::string::npos) << bytes;
  EXPECT_NE(bytes.find("Total:     1,048,576 bytes (99.52%", top), std::string::npos) << bytes;
  EXPECT_NE(bytes.find("#1: 0x401600: cache_entry() (/src/app/cache.cc:3:12)", top),
            std::string::npos)
      << bytes;
  EXPECT_NE(seen["dhat_title"].get<std::string>().find("Total (bytes)"), std::string::npos);
}

}  // namespace
}  // namespace profkit::report
