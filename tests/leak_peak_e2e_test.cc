// Leaks and peak heap from profkit's runtime, end to end: tests/programs/runtime/leak_peak.c
// (known leaks from three contexts, a smaller phase X then a larger phase Y that is the
// heap's peak) built with clang-22 -fmemory-profile and linked with libprofkit_memprof, and
// built plain and run under `profkit run`. `profkit report --view=leaks|peak` and the DHAT
// export must give exactly the program's numbers, and llvm-profdata-22 must still read the
// raw files (the live/peak extension sits inside TotalSize, after the stacks).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "report/testing/browser.h"
#include "tests/support/harness.h"

namespace profkit::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// No sibling calls and no inlining of the allocating functions: each keeps its own frame,
// so the contexts are named by their leaf function.
constexpr const char* kFlags = "-g -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls";

struct Build {
  std::string dir, instrumented, plain, crt;
};

const Build& build() {
  static const Build b = [] {
    Build x;
    x.dir = work_dir("leak_peak");
    const std::string src = sh_quote(source_path("tests/programs/runtime/leak_peak.c"));
    x.instrumented = x.dir + "/leak_peak.ours";
    x.plain = x.dir + "/leak_peak.plain";
    x.crt = x.dir + "/leak_peak.crt";
    run_ok("clang-22 " + std::string(kFlags) + " -fmemory-profile -c " + src + " -o " + x.dir + "/lp.o");
    run_ok("clang-22 " + x.dir + "/lp.o -o " + x.instrumented + " " + runtime_dir() +
           "/libprofkit_memprof.so -Wl,-rpath," + runtime_dir() + " -lpthread");
    run_ok("clang-22 -fmemory-profile " + x.dir + "/lp.o -o " + x.crt + " -lpthread");
    run_ok("clang-22 " + std::string(kFlags) + " " + src + " -o " + x.plain + " -lpthread");
    return x;
  }();
  return b;
}

// Runs the instrumented program (`args`: "" single-threaded, "mt" phase Y on two threads).
std::string profile_of(const std::string& binary, const std::string& tag, const std::string& args) {
  const Build& b = build();
  const std::string prefix = b.dir + "/" + tag + ".raw";
  run_ok("MEMPROF_OPTIONS=log_path=" + sh_quote(prefix) + " " + sh_quote(binary) + " " + args);
  for (const auto& entry : fs::directory_iterator(b.dir))
    if (entry.path().string().rfind(prefix + ".", 0) == 0) return entry.path();
  ADD_FAILURE() << "no profile from " << binary;
  return {};
}

std::string profkit_run_profile() {
  const Build& b = build();
  const std::string out = b.dir + "/run.raw";
  run_ok(sh_quote(profkit_bin()) + " run --output " + sh_quote(out) + " -- " + sh_quote(b.plain));
  return out;
}

json report(const std::string& raw, const std::string& binary, const std::string& options) {
  const CommandResult r = run_ok(sh_quote(profkit_bin()) + " report " + sh_quote(raw) +
                                 " --profiled-binary " + sh_quote(binary) + " --json " +
                                 (options.find("--top") == std::string::npos ? "--top 0 " : "") + options);
  return json::parse(r.out, nullptr, false);
}

struct Amount {
  uint64_t bytes, blocks;
  friend bool operator==(const Amount&, const Amount&) = default;
};
std::ostream& operator<<(std::ostream& os, const Amount& a) {
  return os << a.bytes << " bytes in " << a.blocks << " blocks";
}

// The view's contexts by leaf function: (bytes, blocks) live at exit or at the peak.
std::map<std::string, Amount> by_leaf(const json& j, const char* what) {
  std::map<std::string, Amount> out;
  for (const json& c : j["contexts"]) {
    const std::string leaf = c["frames"][0]["function"];
    Amount& a = out[leaf];
    a.bytes += c[std::string(what) + "_bytes"].get<uint64_t>();
    a.blocks += c[std::string(what) + "_blocks"].get<uint64_t>();
  }
  return out;
}

const std::map<std::string, Amount> kLeaks = {
    {"leak_a", {3000, 3}}, {"leak_b", {1000, 5}}, {"leak_c", {7000, 1}}};
const std::map<std::string, Amount> kPeak = {{"y_big", {300000, 200}}, {"y_small", {100000, 50}}};

void expect_leaks_and_peak(const std::string& raw, const std::string& binary, const std::string& what) {
  const json leaks = report(raw, binary, "--view=leaks");
  ASSERT_TRUE(leaks.is_object()) << what;
  EXPECT_EQ(leaks["view"], "leaks");
  EXPECT_TRUE(leaks["live_peak"]["at_exit"].get<bool>()) << what;
  EXPECT_EQ(by_leaf(leaks, "live"), kLeaks) << what;
  const json peak = report(raw, binary, "--view=peak");
  EXPECT_EQ(by_leaf(peak, "peak"), kPeak) << what;
  // The header counts every context, symbolized or not (libraries' own blocks).
  EXPECT_GE(peak["live_peak"]["peak_bytes"].get<uint64_t>(), 400000u) << what;
  EXPECT_GE(leaks["live_peak"]["live_bytes"].get<uint64_t>(), 11000u) << what;
}

TEST(LeakPeak, InstrumentedSingleThreadExact) {
  const Build& b = build();
  const std::string raw = profile_of(b.instrumented, "st", "");
  expect_leaks_and_peak(raw, b.instrumented, "instrumented");
  // --sort=live ranks the default view by bytes live at exit.
  const json sorted = report(raw, b.instrumented, "--sort=live --top 1");
  ASSERT_EQ(sorted["contexts"].size(), 1u);
  EXPECT_EQ(sorted["contexts"][0]["frames"][0]["function"], "leak_c");
  EXPECT_EQ(sorted["contexts"][0]["live_bytes"], 7000);
}

TEST(LeakPeak, ProfkitRunExact) {
  expect_leaks_and_peak(profkit_run_profile(), build().plain, "profkit run");
}

// With sampling, the live and peak figures are estimates of the whole heap (each sampled
// block weighted like its MIB): three fixed seeds at a 4 KiB mean interval, each within 30%
// (about 4 standard deviations) of the full profile's peak. Unweighted, the sampled blocks
// alone come to less than half of it.
TEST(LeakPeak, SampledPeakEstimatesTheWholeHeap) {
  const Build& b = build();
  const json full = report(profkit_run_profile(), b.plain, "--view=peak");
  const double exact = static_cast<double>(full["live_peak"]["peak_bytes"].get<uint64_t>());
  for (int seed : {1, 2, 3}) {
    const std::string out = b.dir + "/sampled" + std::to_string(seed) + ".raw";
    run_ok(sh_quote(profkit_bin()) + " run --sample-interval=4096 --options sample_seed=" +
           std::to_string(seed) + " --output " + sh_quote(out) + " -- " + sh_quote(b.plain));
    const json peak = report(out, b.plain, "--view=peak");
    const double estimate = static_cast<double>(peak["live_peak"]["peak_bytes"].get<uint64_t>());
    EXPECT_NEAR(estimate / exact, 1.0, 0.3) << "seed " << seed << ": " << estimate << " vs " << exact;
    EXPECT_EQ(by_leaf(peak, "peak").count("y_big"), 1u) << "seed " << seed;
  }
}

// Three rises (X, W, Y): the peak snapshots alternate between two sets of per-context
// sums, so Y's is summed into the set X's went to, whose x_block cells must not count.
TEST(LeakPeak, ThirdRiseIsExactInTheFirstRisesCells) {
  const Build& b = build();
  const json peak = report(profile_of(b.instrumented, "three", "3"), b.instrumented, "--view=peak");
  ASSERT_TRUE(peak.is_object());
  EXPECT_EQ(by_leaf(peak, "peak"), kPeak);
}

// Phase Y on two threads, freed by the main thread after joining them: the snapshot is
// taken at the first of those frees and sums every thread's counts, so Y is exact; the
// thread library's own blocks (the threads' TLS, a few hundred bytes each) may be at the
// peak too, from contexts whose leaf is main (pthread_create): at most 4 KiB of them.
TEST(LeakPeak, TwoThreadsPeakIsY) {
  const Build& b = build();
  const std::string raw = profile_of(b.instrumented, "mt", "mt");
  const json peak = report(raw, b.instrumented, "--view=peak");
  std::map<std::string, Amount> got = by_leaf(peak, "peak");
  uint64_t other = 0;
  for (auto it = got.begin(); it != got.end();) {
    if (kPeak.count(it->first) != 0) {
      ++it;
      continue;
    }
    EXPECT_EQ(it->first, "main") << "an unexpected context at the peak";
    other += it->second.bytes;
    it = got.erase(it);
  }
  EXPECT_EQ(got, kPeak);
  EXPECT_LE(other, 4096u);
}

// Blocks allocated by one thread and freed by eight others, the heap flat at a few tens of
// KiB: the shared total the level test reads runs ahead of the heap by the workers'
// unpublished frees, and a level set from the exact snapshot alone was passed again at
// once (a snapshot per free: ~200,000). Snapshots are bounded by the levels the heap can
// rise through: about 64 + 64 ln(peak / 1 MiB), plus a few per thread for the view's drift.
TEST(LeakPeak, HandedOffBlocksTakeFewSnapshots) {
  const Build& b = build();
  const std::string src = sh_quote(source_path("tests/programs/runtime/peak_handoff.c"));
  const std::string binary = b.dir + "/peak_handoff.ours";
  run_ok("clang-22 " + std::string(kFlags) + " -fmemory-profile -c " + src + " -o " + binary + ".o");
  run_ok("clang-22 " + binary + ".o -o " + binary + " " + runtime_dir() +
         "/libprofkit_memprof.so -Wl,-rpath," + runtime_dir() + " -lpthread");
  const auto r = run("MEMPROF_OPTIONS=" + sh_quote("atexit=1:log_path=" + b.dir + "/handoff.raw") +
                     " " + sh_quote(binary));
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t at = r.err.find(" peak snapshots");
  ASSERT_NE(at, std::string::npos) << r.err;
  const size_t from = r.err.rfind(' ', at - 1);
  const uint64_t snapshots = std::stoull(r.err.substr(from + 1, at - from - 1));
  EXPECT_LE(snapshots, 200u) << r.err;
  EXPECT_GE(snapshots, 1u) << r.err;
}

TEST(LeakPeak, DhatFieldsAtPeakAndAtExit) {
  const Build& b = build();
  const std::string raw = profile_of(b.instrumented, "dhat", "");
  const std::string out = b.dir + "/dhat.json";
  run_ok(sh_quote(profkit_bin()) + " report " + sh_quote(raw) + " --profiled-binary " +
         sh_quote(b.instrumented) + " --dhat " + sh_quote(out) + " -o /dev/null");
  const json d = json::parse(read_file(out), nullptr, false);
  ASSERT_TRUE(d.is_object());
  const json j = report(raw, b.instrumented, "--view=peak");
  EXPECT_EQ(d["tg"].get<uint64_t>(), j["live_peak"]["peak_time_ms"].get<uint64_t>() * 1000);
  EXPECT_GT(d["tg"].get<uint64_t>(), 0u);
  std::map<std::string, Amount> at_peak, at_exit;
  for (const json& pp : d["pps"]) {
    const std::string frame = d["ftbl"][pp["fs"][0].get<size_t>()];
    // "0xADDR: function (file:line:column)"
    const size_t from = frame.find(": ") + 2;
    const std::string leaf = frame.substr(from, frame.find(' ', from) - from);
    if (pp["gb"].get<uint64_t>() != 0) at_peak[leaf] = {pp["gb"], pp["gbk"]};
    if (pp["eb"].get<uint64_t>() != 0) at_exit[leaf] = {pp["eb"], pp["ebk"]};
    if (leaf == "y_big") {
      EXPECT_GE(pp["mb"].get<uint64_t>(), 300000u);
    }
  }
  EXPECT_EQ(at_peak, kPeak);
  EXPECT_EQ(at_exit, kLeaks);
}

// What a person sees: the HTML report in Chromium (cards, the "At peak" column sorted, the
// icicle weighted by it) and the DHAT export in valgrind's dh_view.html.
TEST(LeakPeak, HtmlAndDhViewShowLeaksAndPeak) {
  const Build& b = build();
  const std::string raw = profile_of(b.instrumented, "browser", "");
  const std::string html = b.dir + "/r.html", dhat = b.dir + "/r.dhat.json";
  run_ok(sh_quote(profkit_bin()) + " report " + sh_quote(raw) + " --profiled-binary " +
         sh_quote(b.instrumented) + " --html " + sh_quote(html) + " --dhat " + sh_quote(dhat) +
         " -o /dev/null");
  const json seen = report::testing::browser_check("--html " + sh_quote(html) +
                                                   " --sort peak --weight peak --dhat " + sh_quote(dhat));
  EXPECT_EQ(seen["console_errors"], json::array());
  // The cards give the totals, which include blocks of libraries with no debug info.
  const json totals = report(raw, b.instrumented, "")["live_peak"];
  const std::string leak_card = seen["summary"]["leaked at exit"];
  EXPECT_NE(leak_card.find(" · " + totals["live_blocks"].dump() + " blocks"), std::string::npos) << leak_card;
  const std::string peak_card = seen["summary"]["peak heap"];
  EXPECT_NE(peak_card.find(" · " + totals["peak_blocks"].dump() + " blocks at "), std::string::npos) << peak_card;
  ASSERT_GE(seen["after_sort"]["rows"].size(), 2u);
  EXPECT_EQ(seen["after_sort"]["rows"][0]["site"].get<std::string>().rfind("y_big ", 0), 0u);
  EXPECT_EQ(seen["after_sort"]["rows"][1]["site"].get<std::string>().rfind("y_small ", 0), 0u);
  // Weighted by bytes at the peak, the icicle holds y_big and y_small only, 3:1.
  std::map<std::string, double> width;
  for (const json& f : seen["after_weight"]) width[f["function"]] += f["width"].get<double>();
  EXPECT_EQ(width.count("leak_a"), 0u);
  EXPECT_NEAR(width["y_big"] / width["y_small"], 3.0, 0.1);
  EXPECT_EQ(seen["dhat_errors"], json::array());
  const std::string pps = seen["dhat_blocks"];
  EXPECT_NE(pps.find("At t-gmax: 400,000 bytes (100%) in 250 blocks (100%)"), std::string::npos) << pps;
  EXPECT_NE(pps.find("At t-end:  11,000 bytes (100%) in 9 blocks (100%)"), std::string::npos) << pps;
  EXPECT_NE(pps.find("At t-gmax: 300,000 bytes (75%) in 200 blocks (80%)"), std::string::npos) << pps;
}

TEST(LeakPeak, LlvmProfdataStillReadsTheRawFile) {
  const Build& b = build();
  const std::string raw = profile_of(b.instrumented, "llvm", "");
  const CommandResult show = run_ok("llvm-profdata-22 show --memory --profiled-binary=" +
                                    sh_quote(b.instrumented) + " " + sh_quote(raw));
  EXPECT_NE(show.out.find("Total contexts:"), std::string::npos);
  run_ok("llvm-profdata-22 merge --profiled-binary=" + sh_quote(b.instrumented) + " " + sh_quote(raw) +
         " -o " + sh_quote(b.dir + "/lp.memprofdata"));
}

TEST(LeakPeak, CompilerRtProfileSaysWhichRuntimeHasTheData) {
  const Build& b = build();
  const std::string raw = profile_of(b.crt, "crt", "");
  for (const char* option : {"--view=leaks", "--view=peak", "--sort=live"}) {
    const CommandResult r = run(sh_quote(profkit_bin()) + " report " + sh_quote(raw) +
                                " --profiled-binary " + sh_quote(b.crt) + " " + option);
    EXPECT_EQ(r.status, 1) << option;
    EXPECT_EQ(r.out, "") << option;
    EXPECT_NE(r.err.find("only profkit's runtime (libprofkit_memprof, profkit run) records it"),
              std::string::npos)
        << option << ": " << r.err;
  }
}

}  // namespace
}  // namespace profkit::test
