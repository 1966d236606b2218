// The terminal and JSON views: lines fit the width, colour only when asked, the JSON
// carries the same contexts in the same order as the text.
#include "report/heap_view.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace profkit::report {
namespace {

HeapFrame frame(std::string function, std::string file, uint32_t line, bool inlined) {
  HeapFrame f;
  f.function = std::move(function);
  f.guid = memprof::function_guid(f.function);
  f.file = std::move(file);
  f.line = line;
  f.column = 3;
  f.inlined = inlined;
  return f;
}

HeapProfile sample() {
  HeapProfile p;
  p.path = "/a/rather/long/directory/name/that/goes/on/and/on/profile.memprofraw";
  p.kind = "raw v5";
  for (int i = 0; i < 3; ++i) {
    HeapContext c;
    c.frames.push_back(frame("std::vector<std::pair<std::string, std::string>>::"
                             "_M_realloc_insert<std::pair<std::string, std::string>>",
                             "/usr/include/c++/12/bits/vector.tcc", 453, true));
    c.frames.push_back(frame("main", "/src/app/main.cc", static_cast<uint32_t>(10 + i), false));
    c.frames[1].line_offset = static_cast<uint32_t>(i);
    c.mib.AllocCount = 10 * (i + 1);
    c.mib.TotalSize = 1000u * (3 - i);
    c.mib.TotalLifetime = 5;
    c.id = context_id(c.frames);
    p.contexts.push_back(c);
  }
  classify_contexts(p, {});
  return p;
}

TEST(HeapView, EveryLineFitsTheWidth) {
  const HeapProfile p = sample();
  for (int width : {40, 60, 80, 132}) {
    ViewOptions o;
    o.width = width;
    std::istringstream in(render_report_text(p, o));
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
      EXPECT_LE(line.size(), static_cast<size_t>(width)) << width << ": " << line;
      ++lines;
    }
    EXPECT_GT(lines, 10);
  }
}

TEST(HeapView, ColourOnlyWhenAsked) {
  const HeapProfile p = sample();
  ViewOptions o;
  EXPECT_EQ(render_report_text(p, o).find('\033'), std::string::npos);
  o.color = true;
  EXPECT_NE(render_report_text(p, o).find('\033'), std::string::npos);
}

TEST(HeapView, InlinedFramesAreMarkedAndSourceShown) {
  ViewOptions o;
  o.width = 100;
  o.frames = FrameFilter();  // --show-all-frames
  const std::string text = render_report_text(sample(), o);
  EXPECT_NE(text.find("(inlined) std::vector<...>::_M_realloc_insert<...>"), std::string::npos) << text;
  EXPECT_NE(text.find("/src/app/main.cc:10:3"), std::string::npos) << text;
}

TEST(HeapView, LibraryFramesAreFoldedIntoOneLineByDefault) {
  ViewOptions o;
  o.width = 100;
  const std::string text = render_report_text(sample(), o);
  EXPECT_EQ(text.find("_M_realloc_insert"), std::string::npos) << text;
  EXPECT_NE(text.find("... 1 allocator/library frame folded"), std::string::npos) << text;
  EXPECT_NE(text.find("/src/app/main.cc:10:3"), std::string::npos) << text;
}

TEST(HeapView, StreamedJsonIsTheDocumentPrettyPrinted) {
  // Written a context at a time, the output is still exactly what dump(2) makes of it:
  // with contexts, and with none (an empty array on one line).
  const HeapProfile p = sample();
  for (size_t top : {size_t{0}, size_t{1}}) {
    ViewOptions o;
    o.top = top;
    const std::string text = render_report_json(p, o);
    EXPECT_EQ(nlohmann::ordered_json::parse(text).dump(2) + "\n", text) << "top " << top;
  }
  ViewOptions none;
  HeapProfile empty = p;
  empty.contexts.clear();
  const std::string text = render_report_json(empty, none);
  EXPECT_NE(text.find("\"contexts\": []\n}"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::ordered_json::parse(text).dump(2) + "\n", text);
}

TEST(HeapView, JsonHasTheTextsContextsInOrder) {
  const HeapProfile p = sample();
  ViewOptions o;
  o.sort = SortKey::count;
  o.top = 2;
  const auto j = nlohmann::json::parse(render_report_json(p, o));
  ASSERT_EQ(j["contexts"].size(), 2u);
  EXPECT_EQ(j["contexts"][0]["mib"]["AllocCount"], 30);
  EXPECT_EQ(j["contexts"][1]["mib"]["AllocCount"], 20);
  EXPECT_EQ(j["contexts"][0]["id"], hex_id(sorted_contexts(p, SortKey::count)[0]->id));
  EXPECT_EQ(j["summary"]["allocations"], 60);
  EXPECT_EQ(j["thresholds"]["lifetime_access_density_cold"], 0.05);
  EXPECT_TRUE(j["contexts"][0]["frames"][0]["inlined"].get<bool>());
}

// An allocation-only profile (no access counts, as `profkit run` records) gets no verdict
// in JSON either: the text says the counts are missing, and JSON must not say "notcold".
TEST(HeapView, NoAccessCountsMeansNoVerdictInJson) {
  const HeapProfile p = sample();  // TotalAccessCount 0 everywhere
  ViewOptions o;
  o.top = 0;
  const std::string text = render_report_json(p, o);
  EXPECT_EQ(text.find("notcold"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["summary"]["access_counts"].get<bool>());
  EXPECT_TRUE(j["summary"]["not_cold_contexts"].is_null());
  EXPECT_TRUE(j["summary"]["cold_contexts"].is_null());
  ASSERT_EQ(j["contexts"].size(), 3u);
  for (const auto& c : j["contexts"]) {
    EXPECT_TRUE(c["verdict"].is_null()) << c.dump();
    EXPECT_NE(c["why"].get<std::string>().find("no access counts"), std::string::npos);
  }
  // An indexed profile's default schema keeps the density but no TotalAccessCount: measured.
  HeapProfile indexed = p;
  for (HeapContext& c : indexed.contexts) c.mib.TotalLifetimeAccessDensity = 7;
  classify_contexts(indexed, {});
  EXPECT_TRUE(nlohmann::json::parse(render_report_json(indexed, o))["summary"]["access_counts"].get<bool>());
  // With access counts, verdicts as before.
  HeapProfile measured = p;
  for (HeapContext& c : measured.contexts) c.mib.TotalAccessCount = 5;
  classify_contexts(measured, {});
  const auto m = nlohmann::json::parse(render_report_json(measured, o));
  EXPECT_TRUE(m["summary"]["access_counts"].get<bool>());
  EXPECT_EQ(m["contexts"][0]["verdict"], "notcold");
}

TEST(HeapView, Formatting) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.50 KiB");
  EXPECT_EQ(human_bytes(-2048), "-2.00 KiB");
  EXPECT_EQ(grouped(1234567), "1,234,567");
  EXPECT_EQ(grouped(12), "12");
  EXPECT_EQ(hex_id(0xab), "0x00000000000000ab");
}

}  // namespace
}  // namespace profkit::report

namespace profkit::report {
namespace {

// Contexts 0 and 2 leak (200 and 50 bytes); contexts 1 and 2 make up the peak.
HeapProfile sample_with_live_peak() {
  HeapProfile p = sample();
  p.live_peak.present = true;
  p.live_peak.at_exit = true;
  p.live_peak.live_bytes = 250;
  p.live_peak.live_blocks = 3;
  p.live_peak.peak_bytes = 900;
  p.live_peak.peak_blocks = 9;
  p.live_peak.peak_time_ms = 1500;
  p.contexts[0].live_bytes = 200;
  p.contexts[0].live_blocks = 2;
  p.contexts[2].live_bytes = 50;
  p.contexts[2].live_blocks = 1;
  p.contexts[1].peak_bytes = 600;
  p.contexts[1].peak_blocks = 6;
  p.contexts[2].peak_bytes = 300;
  p.contexts[2].peak_blocks = 3;
  return p;
}

TEST(HeapView, LeaksAndPeakViewsListTheirContextsInOrder) {
  const HeapProfile p = sample_with_live_peak();
  ViewOptions o;
  o.view = HeapViewKind::leaks;
  const auto leaks = nlohmann::json::parse(render_report_json(p, o));
  ASSERT_EQ(leaks["contexts"].size(), 2u);
  EXPECT_EQ(leaks["contexts"][0]["live_bytes"], 200);
  EXPECT_EQ(leaks["contexts"][1]["live_bytes"], 50);
  EXPECT_EQ(leaks["live_peak"]["live_bytes"], 250);
  o.view = HeapViewKind::peak;
  const auto peak = nlohmann::json::parse(render_report_json(p, o));
  ASSERT_EQ(peak["contexts"].size(), 2u);
  EXPECT_EQ(peak["contexts"][0]["peak_bytes"], 600);
  EXPECT_EQ(peak["contexts"][1]["peak_bytes"], 300);
  const std::string text = render_report_text(p, o);
  EXPECT_NE(text.find("Peak heap: 900 bytes in 9 blocks at 1.500 s"), std::string::npos) << text;
  EXPECT_NE(text.find("#2 300 bytes in 3 blocks (33.3%)"), std::string::npos) << text;
  o.view = HeapViewKind::leaks;
  for (int width : {40, 80}) {
    o.width = width;
    std::istringstream in(render_report_text(p, o));
    for (std::string line; std::getline(in, line);) {
      EXPECT_LE(line.size(), static_cast<size_t>(width)) << line;
    }
  }
}

TEST(HeapView, LivePeakMissingNamesTheRuntimeThatRecordsIt) {
  const HeapProfile p = sample();
  ViewOptions o;
  EXPECT_EQ(live_peak_missing(p, o), "");
  o.sort = SortKey::live;
  EXPECT_NE(live_peak_missing(p, o).find("--sort=live: "), std::string::npos);
  o.sort = SortKey::bytes;
  o.view = HeapViewKind::peak;
  EXPECT_NE(live_peak_missing(p, o).find("only profkit's runtime"), std::string::npos);
  EXPECT_EQ(live_peak_missing(sample_with_live_peak(), o), "");
}

}  // namespace
}  // namespace profkit::report
