// profkit-branch-trace against llvm-profgen-22. The test programs (tests/programs/
// branch_trace/) are built by clang-22 in four variants, traced, and the scripts given to
// llvm-profgen-22, which must accept them with no warning about broken LBR records, stack
// mismatches or unwinding failures, and whose profiles must show what the programs are known
// to do:
//  * exact traces (a sample after every taken branch, 2-entry LBR) record each execution of
//    every branch in exactly two samples and of every straight-line range in exactly one, so
//    llvm-profgen's counts are the programs' true counts (head samples doubled);
//  * LBR-like traces (32 entries, a sample every 499 instructions) give counts proportional to
//    the true ones: call-count ratios within 15%.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

const std::string kTracer = PROFKIT_BINARY_DIR "/bin/profkit-branch-trace";
const std::string kFlags = "-g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer";
const std::string kFlatCs = "--gen-cs-nested-profile=0 --csspgo-preinliner=0 "
                            "--csprof-merge-cold-context=0";

std::string program_source(const std::string& name) {
  return source_path("tests/programs/branch_trace/" + name);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// What the tracer said on stderr: "... N instructions, M taken branches, K samples, ...".
struct TraceSummary {
  uint64_t instructions = 0, branches = 0, samples = 0;
};

TraceSummary parse_summary(const std::string& err) {
  std::smatch m;
  TraceSummary s;
  if (std::regex_search(err, m,
                        std::regex(R"((\d+) instructions, (\d+) taken branches, (\d+) samples)"))) {
    s.instructions = std::stoull(m[1]);
    s.branches = std::stoull(m[2]);
    s.samples = std::stoull(m[3]);
  }
  return s;
}

// Runs the tracer on `binary` with `options`, output scripts named after `name`.
struct Trace {
  std::string lbr, hybrid;
  TraceSummary summary;
};

Trace trace(const std::string& name, const std::string& binary, const std::string& options,
            bool hybrid = true) {
  const std::string dir = work_dir("traces");
  Trace t;
  t.lbr = dir + "/" + name + ".lbr.script";
  t.hybrid = hybrid ? dir + "/" + name + ".hybrid.script" : "";
  std::string cmd = sh_quote(kTracer) + " --no-aslr " + options + " --lbr " + sh_quote(t.lbr);
  if (hybrid) cmd += " --hybrid " + sh_quote(t.hybrid);
  const CommandResult r = run_ok(cmd + " -- " + sh_quote(binary));
  t.summary = parse_summary(r.err);
  return t;
}

// The warnings llvm-profgen-22 gives for correct LBR data too: code outside any DWARF
// function (_start, .plt), samples whose IP is in libc, and the context cut at the external
// frames below main.
const char* const kExpectedWarnings[] = {
    "of samples are from ranges that do not belong to any functions.",
    "of samples have leaf external frame in call stack.",
    "of profiled contexts are truncated due to missing probe for call instruction.",
    "of branches containing paired external address.",
};

// Runs llvm-profgen-22 and fails the test on any other message, e.g. "doesn't match call
// frame stack", "doesn't have another external address to pair", "not on instruction
// boundary", "Invalid address in LBR record", "Truncated stack sample", mmap warnings.
std::string profgen(const std::string& binary, const std::string& script,
                    const std::string& extra = "--format=text",
                    const std::vector<std::string>& also_expected = {}) {
  const std::string out = script + "." + std::to_string(std::hash<std::string>{}(extra)) + ".prof";
  const CommandResult r = run_ok("llvm-profgen-22 --binary " + sh_quote(binary) +
                                 " --perfscript " + sh_quote(script) + " --output " +
                                 sh_quote(out) + " " + extra);
  for (const std::string& line : lines(r.err)) {
    if (line.empty()) continue;
    bool expected = line.rfind("warning: ", 0) == 0;
    if (expected) {
      expected = false;
      for (const char* text : kExpectedWarnings) expected = expected || line.find(text) != line.npos;
      for (const std::string& text : also_expected)
        expected = expected || line.find(text) != line.npos;
    }
    EXPECT_TRUE(expected) << "llvm-profgen-22 on " << script << ": " << line;
  }
  return read_file(out);
}

// "NAME:TOTAL:HEAD" at the top level of a text profile; -1 when NAME has no profile.
int64_t head_samples(const std::string& profile, const std::string& name) {
  for (const std::string& line : lines(profile)) {
    if (line.rfind(name + ":", 0) != 0) continue;
    return std::stoll(line.substr(line.rfind(':') + 1));
  }
  return -1;
}

// The count of body line " LOCATION: COUNT ..." in NAME's top-level profile; -1 if absent.
int64_t body_count(const std::string& profile, const std::string& name,
                   const std::string& location) {
  bool inside = false;
  for (const std::string& line : lines(profile)) {
    if (!line.empty() && line[0] != ' ') inside = line.rfind(name + ":", 0) == 0;
    else if (inside && line.rfind(" " + location + ": ", 0) == 0)
      return std::stoll(line.substr(location.size() + 3));
  }
  return -1;
}

double ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / b : 0; }

// The four builds of calls.c and the shared-library pair, traced once per process.
class BranchTrace : public ::testing::Test {
 protected:
  struct Variant {
    std::string binary;
    Trace sampled;  // 32-entry LBR, a sample every 499 instructions
  };

  static void SetUpTestSuite() {
    const std::string dir = work_dir("bin");
    const std::string calls = sh_quote(program_source("calls.c"));
    auto build = [&](const std::string& name, const std::string& flags) {
      const std::string out = dir + "/" + name;
      run_ok("clang-22 " + flags + " " + calls + " -o " + sh_quote(out));
      return out;
    };
    o0_.binary = build("calls_O0", "-O0 " + kFlags);
    line_.binary = build("calls_line", "-O2 -fdebug-info-for-profiling " + kFlags);
    probe_.binary = build("calls_probe", "-O2 -fpseudo-probe-for-profiling " + kFlags);
    nofp_.binary = build("calls_nofp", "-O2 -g -fdebug-info-for-profiling");
    for (Variant* v : {&o0_, &line_, &probe_, &nofp_})
      v->sampled = trace(v->binary.substr(dir.size() + 1), v->binary, "--period 499");
    const std::string exact = "--event branches --period 1 --depth 2";
    exact_line_ = trace("calls_line.exact", line_.binary, exact, false);
    exact_o0_ = trace("calls_O0.exact", o0_.binary, exact, false);
    fp_line_ = trace("calls_line.fp", line_.binary, "--period 499 --stack fp");

    run_ok("mkdir -p " + sh_quote(dir + "/lib"));
    library_ = dir + "/lib/libbtlib.so";
    run_ok("clang-22 -O2 -fdebug-info-for-profiling -shared -fPIC " + kFlags + " " +
           sh_quote(program_source("lib.c")) + " -o " + sh_quote(library_));
    library_main_ = dir + "/lib_main";
    run_ok("clang-22 -O2 " + kFlags + " " + sh_quote(program_source("lib_main.c")) + " -L" +
           sh_quote(dir + "/lib") + " -lbtlib -Wl,-rpath," + sh_quote(dir + "/lib") + " -o " +
           sh_quote(library_main_));
    library_exact_ = trace("lib_main.exact", library_main_, exact, false);
    stepped_line_ = trace("calls_line.insn", line_.binary, "--period 499 --step insn");
    signals_ = dir + "/signals";
    run_ok("clang-22 -O1 " + kFlags + " " + sh_quote(program_source("signals.c")) + " -o " +
           sh_quote(signals_));
    signals_block_ = trace("signals", signals_, "--period 301");
    signals_stepped_ = trace("signals.insn", signals_, "--period 301 --step insn");
    library_sampled_ = trace("lib_main", library_main_, "--period 499");
  }

  static Variant o0_, line_, probe_, nofp_;
  static Trace exact_line_, exact_o0_, fp_line_, library_exact_, library_sampled_;
  static Trace stepped_line_, signals_block_, signals_stepped_;
  static std::string library_, library_main_, signals_;
};

BranchTrace::Variant BranchTrace::o0_, BranchTrace::line_, BranchTrace::probe_,
    BranchTrace::nofp_;
Trace BranchTrace::exact_line_, BranchTrace::exact_o0_, BranchTrace::fp_line_,
    BranchTrace::library_exact_, BranchTrace::library_sampled_, BranchTrace::stepped_line_,
    BranchTrace::signals_block_, BranchTrace::signals_stepped_;
std::string BranchTrace::library_, BranchTrace::library_main_, BranchTrace::signals_;

// A script with the PIDs of its mmap events blanked: two runs differ only there.
std::string without_pids(const std::string& path) {
  return std::regex_replace(read_file(path), std::regex("PERF_RECORD_MMAP2 \\d+/\\d+:"),
                            "PERF_RECORD_MMAP2 PID/TID:");
}

TEST_F(BranchTrace, LbrOnlyScriptHasPerfLayout) {
  const std::string text = read_file(line_.sampled.lbr);
  const std::regex mmap(R"(PERF_RECORD_MMAP2 \d+/\d+: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ (0x[0-9a-f]+|0) [0-9a-f]{2}:[0-9a-f]{2} \d+ \d+\]: r-xp .+)");
  const std::regex sample(R"( [ 0-9a-f]{16}( 0x[0-9a-f]+/0x[0-9a-f]+/P/-/-/0 ){32})");
  size_t samples = 0, mmaps = 0;
  bool binary_mapped = false;
  for (const std::string& line : lines(text)) {
    if (line.rfind("PERF_RECORD_MMAP2", 0) == 0) {
      EXPECT_TRUE(std::regex_match(line, mmap)) << line;
      binary_mapped = binary_mapped || line.ends_with(" " + line_.binary);
      ++mmaps;
    } else {
      EXPECT_TRUE(std::regex_match(line, sample)) << line.substr(0, 200);
      ++samples;
    }
  }
  EXPECT_TRUE(binary_mapped);
  EXPECT_GE(mmaps, 3u);  // the program, libc, the vdso
  EXPECT_EQ(samples, line_.sampled.summary.samples);
}

TEST_F(BranchTrace, OneSampleEveryPeriodInstructions) {
  ASSERT_GT(line_.sampled.summary.instructions, 100000u);
  EXPECT_EQ(line_.sampled.summary.samples, line_.sampled.summary.instructions / 499);
  EXPECT_EQ(exact_line_.summary.samples, exact_line_.summary.branches);
}

TEST_F(BranchTrace, HybridScriptHasPerfLayout) {
  const std::vector<std::string> text = lines(read_file(line_.sampled.hybrid));
  const std::regex frame(R"(\t[ 0-9a-f]{16})");
  const std::regex branches(R"(( 0x[0-9a-f]+/0x[0-9a-f]+/P/-/-/0 ){32})");
  size_t samples = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!text[i].empty()) continue;  // each sample opens with an empty line
    size_t j = i + 1;
    while (j < text.size() && std::regex_match(text[j], frame)) ++j;
    ASSERT_GT(j, i + 1) << "no call stack after line " << i + 1;
    ASSERT_LT(j, text.size());
    EXPECT_TRUE(std::regex_match(text[j], branches)) << text[j].substr(0, 200);
    ++samples;
    i = j;
  }
  EXPECT_EQ(samples, line_.sampled.summary.samples);
}

TEST_F(BranchTrace, ExactTraceGivesTrueLineCounts) {
  const std::string p = profgen(line_.binary, exact_line_.lbr);
  EXPECT_EQ(body_count(p, "hot", "0"), 4260);
  EXPECT_EQ(body_count(p, "cold", "0"), 200);
  EXPECT_EQ(body_count(p, "spin", "2.1"), 10000);  // the loop body, 5 N times
  EXPECT_EQ(head_samples(p, "hot"), 2 * 4260);      // every branch is in two samples
  EXPECT_EQ(head_samples(p, "cold"), 2 * 200);
  EXPECT_EQ(head_samples(p, "tail"), 2 * 1000);
}

TEST_F(BranchTrace, ExactTraceAtO0CountsEveryRecursiveCall) {
  const std::string p = profgen(o0_.binary, exact_o0_.lbr);
  EXPECT_EQ(body_count(p, "rec", "0"), 500);  // 25 calls per rec(6), 20 rec(6)
  EXPECT_EQ(head_samples(p, "rec"), 2 * 500);
  EXPECT_EQ(body_count(p, "hot", "0"), 4260);
  EXPECT_EQ(body_count(p, "spin", "2"), 10001);  // the loop condition: 5 N + 1 times
}

TEST_F(BranchTrace, ExactTraceUnsymbolizedRangeOfHotCountsItsCalls) {
  // hot is straight-line code: one range from its entry to its ret, once per call.
  const std::string nm = run_ok("llvm-nm-22 " + sh_quote(line_.binary)).out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(nm, m, std::regex(R"(([0-9a-f]+) T hot\n)")));
  const uint64_t hot = std::stoull(m[1], nullptr, 16);
  std::ostringstream start;
  start << std::hex << (hot - 0x1000);  // offsets from the first executable segment
  const std::string raw = profgen(line_.binary, exact_line_.lbr, "--skip-symbolization");
  EXPECT_TRUE(std::regex_search(raw, m, std::regex("\n" + start.str() + "-[0-9a-f]+:(\\d+)\n")))
      << raw;
  EXPECT_EQ(m[1], "4260");
}

// Calls of hot : cold : tail are 4260 : 200 : 1000; LBR-like sampling must keep the ratios.
void expect_call_ratios(const std::string& profile) {
  EXPECT_NEAR(ratio(head_samples(profile, "hot"), head_samples(profile, "cold")), 21.3, 3.2);
  EXPECT_NEAR(ratio(head_samples(profile, "tail"), head_samples(profile, "cold")), 5.0, 0.75);
}

TEST_F(BranchTrace, LbrOnlyO0) { expect_call_ratios(profgen(o0_.binary, o0_.sampled.lbr)); }

TEST_F(BranchTrace, LbrOnlyO2Line) { expect_call_ratios(profgen(line_.binary, line_.sampled.lbr)); }

TEST_F(BranchTrace, LbrOnlyO2Probe) {
  expect_call_ratios(profgen(probe_.binary, probe_.sampled.lbr));
}

TEST_F(BranchTrace, LbrOnlyO2WithoutFramePointers) {
  expect_call_ratios(profgen(nofp_.binary, nofp_.sampled.lbr));
}

TEST_F(BranchTrace, UnsymbolizedProfilesAreWritten) {
  for (const auto* v : {&o0_, &line_, &probe_}) {
    const std::string raw = profgen(v->binary, v->sampled.lbr, "--skip-symbolization");
    EXPECT_TRUE(std::regex_search(raw, std::regex("\n[0-9a-f]+-[0-9a-f]+:[1-9]"))) << v->binary;
    const std::string cs = profgen(v->binary, v->sampled.hybrid, "--skip-symbolization");
    EXPECT_TRUE(std::regex_search(cs, std::regex(R"(\[.*\]\n  \d+\n)"))) << v->binary;
  }
}

// Flat context-sensitive profile: every "[context]:TOTAL:HEAD" line.
std::string contexts(const std::string& profile) {
  std::string out;
  for (const std::string& line : lines(profile))
    if (!line.empty() && line[0] == '[') out += line + "\n";
  return out;
}

TEST_F(BranchTrace, HybridO0HasCallAndRecursionContexts) {
  const std::string c = contexts(profgen(o0_.binary, o0_.sampled.hybrid, "--format=text " + kFlatCs));
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:[0-9.]+ @ hot\])"))) << c;
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:[0-9.]+ @ cold\])"))) << c;
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:[0-9.]+ @ tail:[0-9.]+ @ hot\])"))) << c;
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(@ rec:[0-9.]+ @ rec\])"))) << c;
}

TEST_F(BranchTrace, HybridO2LineSeesTheTailCall) {
  const std::string c =
      contexts(profgen(line_.binary, line_.sampled.hybrid, "--format=text " + kFlatCs));
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:[0-9.]+ @ hot\])"))) << c;
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:[0-9.]+ @ tail:0 @ hot\])"))) << c;
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(@ rec:[0-9.]+ @ rec\])"))) << c;
}

TEST_F(BranchTrace, HybridO2ProbeHasProbeContexts) {
  const std::string p = profgen(probe_.binary, probe_.sampled.hybrid, "--format=text " + kFlatCs);
  const std::string c = contexts(p);
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:\d+ @ hot\]:\d+:[1-9])"))) << c;
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:\d+ @ rec:\d+ @ rec\])"))) << c;
  EXPECT_NE(p.find("!CFGChecksum"), std::string::npos);
  // The default (nested, pre-inlined) output is accepted as well.
  EXPECT_NE(profgen(probe_.binary, probe_.sampled.hybrid).find("main:"), std::string::npos);
}

TEST_F(BranchTrace, HybridWithoutFramePointersUsesTheShadowStack) {
  const std::string c =
      contexts(profgen(nofp_.binary, nofp_.sampled.hybrid, "--format=text " + kFlatCs));
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:[0-9.]+ @ hot\])"))) << c;
}

TEST_F(BranchTrace, FramePointerStacksGiveTheShadowStackProfile) {
  const std::string flat = "--format=text " + kFlatCs;
  EXPECT_EQ(profgen(line_.binary, fp_line_.hybrid, flat),
            profgen(line_.binary, line_.sampled.hybrid, flat));
  const std::string fp_script = read_file(fp_line_.hybrid);
  EXPECT_NE(fp_script, read_file(line_.sampled.hybrid));  // below main they differ
}

TEST_F(BranchTrace, SharedLibraryIsFoundThroughItsMmapEvent) {
  const std::string p = profgen(library_, library_exact_.lbr);
  EXPECT_EQ(head_samples(p, "lib_hot"), 2 * 2000);
  const std::string sampled = profgen(library_, library_sampled_.lbr);
  EXPECT_GT(head_samples(sampled, "lib_hot"), 0);
  EXPECT_GT(head_samples(profgen(library_, library_sampled_.hybrid), "lib_hot"), 0);
}

TEST_F(BranchTrace, BlockSteppingWritesWhatSingleSteppingWrites) {
  EXPECT_EQ(stepped_line_.summary.instructions, line_.sampled.summary.instructions);
  EXPECT_EQ(without_pids(stepped_line_.lbr), without_pids(line_.sampled.lbr));
  EXPECT_EQ(without_pids(stepped_line_.hybrid), without_pids(line_.sampled.hybrid));
}

TEST_F(BranchTrace, SignalHandlersAndLongjmpAreTracedInBothModes) {
  EXPECT_EQ(without_pids(signals_stepped_.lbr), without_pids(signals_block_.lbr));
  EXPECT_EQ(without_pids(signals_stepped_.hybrid), without_pids(signals_block_.hybrid));
  // The kernel's jumps into and out of the handler are not branches a user-space LBR
  // records, so llvm-profgen sees ranges that cross them, as it would on real hardware.
  const std::vector<std::string> interrupts = {
      "of samples are from ranges that are not on instruction boundary.",
      "doesn't have another external address to pair, likely due to interrupt jmp"};
  const std::string c = contexts(
      profgen(signals_, signals_block_.hybrid, "--format=text " + kFlatCs, interrupts));
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[main:[0-9.]+ @ work\]:[1-9])"))) << c;
  EXPECT_TRUE(std::regex_search(c, std::regex(R"(\[handler\])"))) << c;  // entered from the kernel
}

}  // namespace
}  // namespace profkit::test
