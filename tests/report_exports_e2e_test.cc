// `profkit report --html/--pprof/--dhat` on a real profile: tests/programs/runtime/basic.cpp
// built with clang-22 -fmemory-profile and run under compiler-rt's runtime. Every export is
// read by its real consumer (protoc and pprof, Chromium, valgrind's dh_view.html) and must
// show what the program is known to allocate: 100 x 32 B in alloc_short, 5 x 80 B in
// inline_wrapper (inlined into make_via_inline), 120 allocations and 9,768 bytes in all.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kPprof = "/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof";
constexpr const char* kSchema = "/usr/share/gocode/src/github.com/google/pprof/proto/profile.proto";

struct Exports {
  std::string dir, raw, binary, html, pprof, dhat;
  json report;  // profkit report --json --top 0
};

// Builds and profiles basic.cpp and writes the three exports, once per process.
const Exports& exports() {
  static const Exports e = [] {
    Exports x;
    x.dir = work_dir("basic");
    x.binary = x.dir + "/basic";
    run_ok("clang++-22 -g -O1 -fmemory-profile -fno-omit-frame-pointer " +
           sh_quote(source_path("tests/programs/runtime/basic.cpp")) + " -o " + sh_quote(x.binary));
    run_ok("cd " + sh_quote(x.dir) + " && MEMPROF_OPTIONS=log_path=" + sh_quote(x.dir + "/basic.raw") +
           " ./basic");
    for (const auto& entry : fs::directory_iterator(x.dir))
      if (entry.path().filename().string().rfind("basic.raw.", 0) == 0) x.raw = entry.path();
    x.html = x.dir + "/report.html";
    x.pprof = x.dir + "/report.pb.gz";
    x.dhat = x.dir + "/report.dhat.json";
    run_ok(sh_quote(profkit_bin()) + " report " + sh_quote(x.raw) + " --profiled-binary " +
           sh_quote(x.binary) + " --html " + sh_quote(x.html) + " --pprof " + sh_quote(x.pprof) +
           " --dhat " + sh_quote(x.dhat) + " --json --top 0 -o " + sh_quote(x.dir + "/report.json"));
    x.report = json::parse(read_file(x.dir + "/report.json"), nullptr, false);
    return x;
  }();
  return e;
}

uint64_t sum_mib(const json& report, const char* field) {
  uint64_t sum = 0;
  for (const json& c : report["contexts"]) sum += c["mib"][field].get<uint64_t>();
  return sum;
}

TEST(ReportExports, PprofDecodedByProtocHasTheProgramsTotals) {
  const Exports& e = exports();
  ASSERT_FALSE(e.raw.empty());
  const std::string schema_dir = fs::path(kSchema).parent_path();
  const CommandResult text = run_ok("gzip -dc " + sh_quote(e.pprof) + " | protoc -I " + schema_dir +
                                    " --decode=perftools.profiles.Profile " + kSchema);
  // Sum each of the four values over the samples (protoc prints them in order per sample).
  std::vector<long long> totals(4, 0);
  size_t samples = 0, index = 0;
  std::istringstream in(text.out);
  for (std::string line; std::getline(in, line);) {
    if (line == "sample {") { ++samples; index = 0; }
    if (line.rfind("  value: ", 0) == 0 && index < 4) totals[index++] += std::stoll(line.substr(9));
  }
  EXPECT_EQ(samples, 8u);
  EXPECT_EQ(totals[0], 120);   // alloc_objects
  EXPECT_EQ(totals[1], 9768);  // alloc_space: 3200 + 4096 + 640 + 128 + 256 + 400 + 48 + 1000
  EXPECT_EQ(totals[2], static_cast<long long>(e.report["summary"]["accesses"].get<uint64_t>()));
  EXPECT_EQ(totals[3], static_cast<long long>(sum_mib(e.report, "TotalLifetime")));
}

TEST(ReportExports, PprofTopShowsTheSitesAndTheInlinedWrapper) {
  const Exports& e = exports();
  const CommandResult top = run_ok("HOME=" + sh_quote(e.dir) + " " + kPprof +
                                   " -top -nodefraction=0 -sample_index=alloc_objects " + sh_quote(e.pprof));
  EXPECT_NE(top.out.find("of 120 total"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("100 83.33% 83.33%        100 83.33%  alloc_short(unsigned long)"),
            std::string::npos) << top.out;
  EXPECT_NE(top.out.find("5  4.17%"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("inline_wrapper(unsigned long) (inline)"), std::string::npos) << top.out;
  const CommandResult bytes = run_ok("HOME=" + sh_quote(e.dir) + " " + kPprof +
                                     " -top -nodefraction=0 -unit=B -sample_index=alloc_space " + sh_quote(e.pprof));
  EXPECT_NE(bytes.out.find("of 9768B total"), std::string::npos) << bytes.out;
  EXPECT_NE(bytes.out.find("3200B"), std::string::npos) << bytes.out;
}

// One Chromium launch for both pages.
TEST(ReportExports, ChromiumShowsTheHtmlReportAndDhatViewerShowsTheDhatFile) {
  const Exports& e = exports();
  const std::string png = e.dir + "/report.png";
  const CommandResult r = run_ok("timeout 120 /usr/bin/python3 " +
                                 sh_quote(source_path("report/testing/browser_check.py")) +
                                 " --html " + sh_quote(e.html) + " --screenshot " + sh_quote(png) +
                                 " --click 'make_via_inline(unsigned long)' --dhat " + sh_quote(e.dhat));
  const json seen = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(seen.is_object()) << r.out << r.err;

  EXPECT_EQ(seen["console_errors"], json::array());
  EXPECT_EQ(seen["summary"]["allocations"], "120");
  EXPECT_EQ(seen["summary"]["contexts"], "8");
  ASSERT_EQ(seen["rows"].size(), 8u);
  // By bytes: main's never-freed 4096-byte block, then alloc_short's 100 x 32 B.
  EXPECT_EQ(seen["rows"][0]["bytes"], "4096");
  EXPECT_EQ(seen["rows"][1]["count"], "100");
  EXPECT_EQ(seen["rows"][1]["bytes"], "3200");
  EXPECT_EQ(seen["rows"][1]["site"].get<std::string>().rfind("alloc_short(unsigned long) ", 0), 0u)
      << seen["rows"][1];
  // The icicle starts at main, which holds every byte.
  ASSERT_GE(seen["frames"].size(), 2u);
  EXPECT_EQ(seen["frames"][1]["function"], "main");
  EXPECT_EQ(seen["frames"][1]["width"], seen["frames"][0]["width"]);
  // Clicking make_via_inline leaves the one context through it: the inlined wrapper's.
  ASSERT_EQ(seen["after_click"]["rows"].size(), 1u) << seen["after_click"];
  EXPECT_EQ(seen["after_click"]["rows"][0]["count"], "5");
  EXPECT_EQ(seen["after_click"]["rows"][0]["site"].get<std::string>().rfind("inline_wrapper(unsigned long) ", 0), 0u);
  EXPECT_GT(fs::file_size(png), 20'000u);

  // dh_view.html: totals, then the program points; by blocks (its default) alloc_short first.
  EXPECT_EQ(seen["dhat_errors"], json::array());
  const std::string blocks = seen["dhat_blocks"];
  EXPECT_NE(blocks.find("Total:     9,768 bytes (100%"), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("in 120 blocks (100%"), std::string::npos) << blocks;
  const size_t first = blocks.find("PP 1.1/");
  ASSERT_NE(first, std::string::npos) << blocks;
  EXPECT_NE(blocks.find("Total:     3,200 bytes (32.76%", first), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("in 100 blocks (83.33%", first), std::string::npos) << blocks;
  EXPECT_NE(blocks.find(": alloc_short(unsigned long) (", first), std::string::npos) << blocks;
  const std::string bytes = seen["dhat_bytes"];
  const size_t top = bytes.find("PP 1.1/");
  ASSERT_NE(top, std::string::npos) << bytes;
  EXPECT_NE(bytes.find("Total:     4,096 bytes (41.93%", top), std::string::npos) << bytes;
}

TEST(ReportExports, AnExportOnStandardOutputReplacesTheText) {
  const Exports& e = exports();
  const CommandResult r = run_ok(sh_quote(profkit_bin()) + " report " + sh_quote(e.raw) +
                                 " --profiled-binary " + sh_quote(e.binary) + " --dhat -");
  const json dhat = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(dhat.is_object()) << r.out;
  EXPECT_EQ(dhat["dhatFileVersion"], 2);
  EXPECT_EQ(dhat["pps"].size(), 8u);
}

// Unwritable outputs: one line naming the file, exit 1, nothing left behind (io/OutputFile).
TEST(ReportExports, UnwritableOutputsFailWithOneLineAndLeaveNoFile) {
  const Exports& e = exports();
  const std::string dir = work_dir("unwritable");
  const std::string missing = dir + "/no/such/dir/r.html";
  const std::string is_dir = dir + "/a_directory";
  fs::create_directory(is_dir);
  for (const auto& [option, path] : std::vector<std::pair<std::string, std::string>>{
           {"--html", missing}, {"--pprof", is_dir}, {"--dhat", is_dir}}) {
    const CommandResult r = run(sh_quote(profkit_bin()) + " report " + sh_quote(e.raw) +
                                " --profiled-binary " + sh_quote(e.binary) + " -o " +
                                sh_quote(e.dir + "/unwritable_text.txt") + " " +
                                option + " " + sh_quote(path));
    EXPECT_EQ(r.status, 1) << option << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind(path + ": error: ", 0), 0u) << r.err;
  }
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_TRUE(fs::is_directory(is_dir));
  EXPECT_TRUE(fs::is_empty(is_dir));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);  // only a_directory: no temporary file survives
}

TEST(ReportExports, BadInputWritesNoExport) {
  const std::string dir = work_dir("bad_input");
  write_file(dir + "/bad.memprofraw", std::string("\x81\x72\x66\x6f\x72\x70\x6d\xff\x05", 9));
  const CommandResult r = run(sh_quote(profkit_bin()) + " report " + sh_quote(dir + "/bad.memprofraw") +
                              " --html " + sh_quote(dir + "/r.html") + " --pprof " +
                              sh_quote(dir + "/r.pb.gz") + " --dhat " + sh_quote(dir + "/r.json"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/r.html"));
  EXPECT_FALSE(fs::exists(dir + "/r.pb.gz"));
  EXPECT_FALSE(fs::exists(dir + "/r.json"));
}

}  // namespace
}  // namespace profkit::test
