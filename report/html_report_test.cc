// HTML report: the page's own guarantees (self-contained, data cannot escape its <script>),
// then the page as Chromium renders it: summary, rows, icicle, click-to-filter, search, sort.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/testing/browser.h"
#include "report/testing/sample_heap_profile.h"

namespace profkit::report {
namespace {

using nlohmann::json;

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, DataCannotCloseItsScriptElement) {
  const std::string page = html_report(testing::sample_heap_profile());
  // Exactly the page's own two script elements close; the hostile name stays inside JSON.
  EXPECT_EQ(count(page, "</script"), 2u);
  EXPECT_EQ(count(page, "<script"), 2u);
  EXPECT_EQ(html_report_data(testing::sample_heap_profile()).find('<'), std::string::npos);
  const json data = json::parse(html_report_data(testing::sample_heap_profile(), FrameFilter()));
  EXPECT_EQ(data["frames"][7]["function"], "tricky</script><img src=x onerror=alert(1)>");
}

TEST(HtmlReport, NeedsNothingFromTheNetwork) {
  const std::string page = html_report(HeapProfile{});  // the page without data
  EXPECT_EQ(page.find("http:"), std::string::npos);
  EXPECT_EQ(page.find("https:"), std::string::npos);
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find(" href="), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);  // and forbids it
}

TEST(HtmlReport, DataCarriesEveryContextWithItsChain) {
  const json data = json::parse(html_report_data(testing::sample_heap_profile(), FrameFilter()));
  ASSERT_EQ(data["contexts"].size(), 4u);
  const json& first = data["contexts"][0];
  EXPECT_EQ(first["id"], "0x0000000000001111");
  EXPECT_EQ(first["bytes"], 4096);
  EXPECT_EQ(first["count"], 4);
  EXPECT_EQ(first["verdict"], "cold");
  ASSERT_EQ(first["frames"].size(), 3u);
  const json& leaf = data["frames"][first["frames"][0].get<size_t>()];
  EXPECT_EQ(leaf["function"], "make_buffer(unsigned long)");
  EXPECT_EQ(leaf["inlined"], true);
  EXPECT_EQ(leaf["line"], 12);
  // main:7 is interned once for both Parser::load contexts.
  EXPECT_EQ(data["contexts"][1]["frames"][2], first["frames"][2]);
  EXPECT_EQ(data["summary"]["bytes"], 4096 + 640 + (1 << 20) + 300);
  // By default the inlined std::vector<int>::push_back leaf of the second context is folded.
  const json folded = json::parse(html_report_data(testing::sample_heap_profile()));
  EXPECT_EQ(folded["contexts"][1]["folded_frames"], 1);
  EXPECT_EQ(folded["contexts"][1]["frames"].size(), 2u);
}

// Without access counts the page gets no verdicts (no "not cold" card, no notcold hints):
// its data says the counts are missing.
TEST(HtmlReport, NoAccessCountsMeansNoVerdicts) {
  HeapProfile p = testing::sample_heap_profile();
  for (HeapContext& c : p.contexts) c.mib.TotalAccessCount = c.mib.TotalLifetimeAccessDensity = 0;
  classify_contexts(p, {});
  const std::string page = html_report(p, FrameFilter());
  EXPECT_EQ(count(page, "\"verdict\":\"notcold\""), 0u);
  EXPECT_EQ(count(page, "\"verdict\":\"cold\""), 0u);
  const json data = json::parse(html_report_data(p, FrameFilter()));
  EXPECT_FALSE(data["summary"]["access_counts"].get<bool>());
  for (const json& c : data["contexts"]) {
    EXPECT_EQ(c["verdict"], "") << c.dump();
    EXPECT_NE(c["why"].get<std::string>().find("no access counts"), std::string::npos);
  }
  const json measured = json::parse(html_report_data(testing::sample_heap_profile(), FrameFilter()));
  EXPECT_TRUE(measured["summary"]["access_counts"].get<bool>());
}

TEST(HtmlReport, DataCarriesLeaksAndPeakWhenTheProfileHasThem) {
  HeapProfile p = testing::sample_heap_profile();
  EXPECT_TRUE(json::parse(html_report_data(p, FrameFilter()))["live_peak"].is_null());
  p.live_peak.present = true;
  p.live_peak.at_exit = true;
  p.live_peak.live_bytes = 640;
  p.live_peak.peak_bytes = 5000;
  p.contexts[1].live_bytes = 640;
  p.contexts[1].peak_bytes = 5000;
  const json data = json::parse(html_report_data(p, FrameFilter()));
  EXPECT_EQ(data["live_peak"]["live_bytes"], 640);
  EXPECT_EQ(data["live_peak"]["peak_bytes"], 5000);
  EXPECT_EQ(data["contexts"][1]["live_bytes"], 640);
  EXPECT_EQ(data["contexts"][1]["peak_bytes"], 5000);
  EXPECT_EQ(data["contexts"][0]["live_bytes"], 0);
}

std::vector<std::string> ids(const json& rows) {
  std::vector<std::string> out;
  for (const json& r : rows) out.push_back(r["id"]);
  return out;
}

// One Chromium launch: render, screenshot, then drive the page as a person would.
TEST(HtmlReport, ChromiumRendersTableAndIcicleAndFiltersOnClick) {
  const std::string html = testing::write_temp_file("report.html", html_report(testing::sample_heap_profile()));
  const std::string png = html + ".png";
  const json seen = testing::browser_check("--html '" + html + "' --screenshot '" + png +
                                           "' --click 'Parser::load()' --weight count"
                                           " --search cache_entry --sort count");
  ASSERT_TRUE(seen.is_object()) << seen;
  EXPECT_EQ(seen["console_errors"], json::array()) << seen;  // includes CSP violations
  EXPECT_EQ(seen["injected_images"], 0);
  EXPECT_EQ(seen["title"], "profkit heap report: sample.memprofraw");
  EXPECT_EQ(seen["summary"]["contexts"], "4");
  EXPECT_EQ(seen["summary"]["allocations"], "18");
  EXPECT_EQ(seen["summary"]["cold"], "1 \u00b7 4 KiB");
  EXPECT_EQ(seen["summary"]["hot"], "1 \u00b7 1 MiB");

  // Rows by bytes, largest first, each with its leaf frame and verdict.
  EXPECT_EQ(ids(seen["rows"]), (std::vector<std::string>{"0x0000000000003333", "0x0000000000001111",
                                                         "0x0000000000002222", "0x0000000000004444"}));
  EXPECT_EQ(seen["rows"][0]["site"], "cache_entry() /src/app/cache.cc:3:12");
  EXPECT_EQ(seen["rows"][0]["verdict"], "hot");
  EXPECT_EQ(seen["rows"][3]["site"], "tricky</script><img src=x onerror=alert(1)> /src/app/evil.cc:1:1");
  EXPECT_EQ(seen["shown"], "4 of 4 contexts");

  // Icicle by bytes: root, then main (the outermost frame) across the whole width, then
  // cache_entry with 99.5% of it.
  const json& frames = seen["frames"];
  ASSERT_GE(frames.size(), 3u);
  EXPECT_EQ(frames[0]["function"], "all contexts");
  EXPECT_EQ(frames[1]["function"], "main");
  EXPECT_EQ(frames[1]["width"], frames[0]["width"]);
  EXPECT_EQ(frames[2]["function"], "cache_entry()");
  EXPECT_EQ(frames[2]["path"], "main \u2192 cache_entry()");
  EXPECT_GT(frames[2]["width"].get<double>(), 0.99 * frames[1]["width"].get<double>());

  // Clicking Parser::load() keeps the two contexts through it and zooms to it.
  EXPECT_EQ(ids(seen["after_click"]["rows"]),
            (std::vector<std::string>{"0x0000000000001111", "0x0000000000002222"}));
  EXPECT_NE(seen["after_click"]["note"].get<std::string>().find("main \u2192 Parser::load()"),
            std::string::npos);
  EXPECT_EQ(seen["after_clear"]["rows"].size(), 4u);

  // Weighted by allocations, Parser::load() holds 14 of 18: 7/9 of main's width.
  double main_width = 0, load_width = 0;
  for (const json& f : seen["after_weight"]) {
    if (f["function"] == "main") main_width = f["width"];
    if (f["function"] == "Parser::load()") load_width = f["width"];
  }
  EXPECT_NEAR(load_width / main_width, 14.0 / 18.0, 0.01);

  EXPECT_EQ(ids(seen["after_search"]["rows"]), (std::vector<std::string>{"0x0000000000003333"}));
  EXPECT_EQ(seen["after_search"]["shown"], "1 of 4 contexts");
  // Sorted by allocations, most first: push_back (10), make_buffer (4), tricky (3), cache (1).
  EXPECT_EQ(ids(seen["after_sort"]["rows"]), (std::vector<std::string>{"0x0000000000002222", "0x0000000000001111",
                                                                       "0x0000000000004444", "0x0000000000003333"}));

  // The screenshot is a real PNG of a drawn page, not an empty canvas.
  std::ifstream in(png, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string shot = bytes.str();
  ASSERT_GT(shot.size(), 24u);
  EXPECT_EQ(shot.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(shot.size(), 20'000u) << "an almost blank screenshot";
}

}  // namespace
}  // namespace profkit::report
