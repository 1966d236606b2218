// `profkit merge` against the real llvm-profdata: the docs/formats/irpgo.md 8.1 programs are built with
// clang-14 and clang-22 -fprofile-generate, run on a few inputs, and the merged outputs
// must be byte-identical (v13/v11 vs llvm-profdata-22 --num-threads=1, v7 vs
// llvm-profdata-14 with at most two inputs, where it uses a single writer context).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

struct Build {
  std::string name;     // e.g. "vp22"
  std::string release;  // "14" or "22"
  std::string compile;  // compiler + flags + sources (after the release's clang)
  std::vector<std::string> runs;  // argument strings, one raw file per run
};

class MergeConformance : public ::testing::Test {
 protected:
  static std::string dir_;
  static std::map<std::string, std::vector<std::string>> raws_;  // build name -> raw files

  static void SetUpTestSuite() {
    dir_ = work_dir("merge");
    const std::string p = source_path("tests/programs/irpgo") + "/";
    std::vector<Build> builds;
    for (const std::string r : {"14", "22"}) {
      builds.push_back({"simple" + r, r, "clang-" + r + " -O0 " + p + "simple.c", {"", "37", "0"}});
      builds.push_back({"vp" + r, r, "clang-" + r + " -O2 " + p + "vp.c", {"", "37", "1"}});
      builds.push_back({"many" + r, r, "clang-" + r + " -O0 " + p + "many.c", {"", "1"}});
      builds.push_back({"tu" + r, r, "clang-" + r + " -O0 " + p + "tu_a.c " + p + "tu_b.c", {""}});
    }
    builds.push_back({"vt22", "22",
                      "clang++-22 -O2 -mllvm -enable-vtable-value-profiling " + p + "vt.cpp",
                      {"", "7"}});
    builds.push_back({"vt14", "14", "clang++-14 -O2 " + p + "vt.cpp", {""}});
    builds.push_back({"temporal22", "22",
                      "clang-22 -O0 -mllvm -pgo-temporal-instrumentation " + p + "simple.c",
                      {"", "3"}});
    builds.push_back({"blockcov22", "22",
                      "clang-22 -O0 -mllvm -pgo-block-coverage " + p + "simple.c", {""}});
    builds.push_back({"nocomp14", "14",
                      "clang-14 -O0 -mllvm -enable-name-compression=false " + p + "simple.c",
                      {""}});
    builds.push_back({"fecov14", "14",
                      "clang-14 -O0 -mllvm -pgo-function-entry-coverage " + p + "simple.c",
                      {""}});
    builds.push_back({"entry22", "22",
                      "clang-22 -O0 -mllvm -pgo-instrument-entry " + p + "simple.c", {""}});
    for (const Build& b : builds) {
      const std::string exe = dir_ + "/" + b.name;
      run_ok(b.compile + " -fprofile-generate -o " + sh_quote(exe));
      for (size_t i = 0; i < b.runs.size(); ++i) {
        const std::string raw = exe + "_" + std::to_string(i) + ".profraw";
        run_ok("LLVM_PROFILE_FILE=" + sh_quote(raw) + " " + sh_quote(exe) + " " + b.runs[i] +
               " > /dev/null");
        raws_[b.name].push_back(raw);
      }
    }
  }

  static std::string raw(const std::string& build, size_t i = 0) { return raws_.at(build).at(i); }

  // Runs both mergers with `args` (inputs and options) and compares the output files.
  static void expect_same(const std::string& tag, const std::string& llvm_cmd,
                          const std::string& profkit_args) {
    const std::string ref = dir_ + "/" + tag + ".ref";
    const std::string got = dir_ + "/" + tag + ".pk";
    run_ok(llvm_cmd + " -o " + sh_quote(ref));
    run_ok(sh_quote(profkit_bin()) + " merge " + profkit_args + " -o " + sh_quote(got));
    const std::string a = read_file(ref), b = read_file(got);
    ASSERT_FALSE(a.empty()) << tag;
    EXPECT_TRUE(a == b) << tag << ": profkit output (" << b.size()
                        << " bytes) differs from llvm-profdata's (" << a.size() << " bytes)";
  }
  static void expect_same22(const std::string& tag, const std::string& args,
                            const std::string& llvm_extra = "",
                            const std::string& profkit_extra = "") {
    expect_same(tag, "llvm-profdata-22 merge --num-threads=1 " + llvm_extra + " " + args,
                profkit_extra + " " + args);
  }
  static void expect_same14(const std::string& tag, const std::string& args,
                            const std::string& extra = "") {
    expect_same(tag, "llvm-profdata-14 merge " + extra + " " + args,
                "--profile-version=7 " + extra + " " + args);
  }
};

std::string MergeConformance::dir_;
std::map<std::string, std::vector<std::string>> MergeConformance::raws_;

TEST_F(MergeConformance, SingleRawInputV13MatchesLlvm22) {
  for (const std::string b : {"simple22", "vp22", "many22", "tu22", "vt22", "temporal22",
                              "blockcov22", "entry22"})
    expect_same22(b + "_v13", sh_quote(raw(b)));
}

TEST_F(MergeConformance, SingleRawInputV11MatchesWritePrevVersion) {
  for (const std::string b : {"simple22", "vp22", "many22", "vt22", "temporal22"})
    expect_same22(b + "_v11", sh_quote(raw(b)), "--write-prev-version", "--profile-version=11");
}

TEST_F(MergeConformance, SingleRawInputV7MatchesLlvm14) {
  for (const std::string b : {"simple14", "vp14", "many14", "tu14", "vt14", "nocomp14", "fecov14"})
    expect_same14(b + "_v7", sh_quote(raw(b)));
}

TEST_F(MergeConformance, TwoInputsMatch) {
  expect_same22("vp22_two", sh_quote(raw("vp22", 0)) + " " + sh_quote(raw("vp22", 1)));
  expect_same14("vp14_two", sh_quote(raw("vp14", 0)) + " " + sh_quote(raw("vp14", 1)));
  // Different programs: LLVM 14's StringMap order mixes both inputs' names.
  expect_same14("many_tu14", sh_quote(raw("many14")) + " " + sh_quote(raw("tu14")));
}

TEST_F(MergeConformance, WeightedInputsMatch) {
  // vp22_2 (argument 1) lacks most targets: new values from the weighted input are added
  // without the weight, as LLVM does.
  expect_same22("vp22_w", sh_quote(raw("vp22", 2)) + " --weighted-input=3," + raw("vp22", 1));
  expect_same22("vp22_w2", "--weighted-input=5," + raw("vp22", 0) + " --weighted-input=2," +
                               raw("vp22", 1));
  expect_same14("vp14_w", "--weighted-input=3," + raw("vp14", 0) + " " + sh_quote(raw("vp14", 1)));
  expect_same22("temporal22_w", sh_quote(raw("temporal22", 0)) + " --weighted-input=4," +
                                    raw("temporal22", 1));
}

TEST_F(MergeConformance, ManyInputsMatchSingleThreadedLlvm) {
  std::string all;
  for (const std::string b : {"simple22", "vp22", "many22", "tu22", "vt22"})
    for (const std::string& r : raws_.at(b)) all += " " + sh_quote(r);
  expect_same22("mix22", all);
  expect_same22("mix22_v11", all, "--write-prev-version", "--profile-version=11");
}

TEST_F(MergeConformance, SparseMatches) {
  expect_same22("simple22_sparse", sh_quote(raw("simple22")), "--sparse", "--sparse");
  expect_same14("simple14_sparse", sh_quote(raw("simple14")), "--sparse");
}

TEST_F(MergeConformance, ConcatenatedImagesMatch) {
  const std::string cat = dir_ + "/cat22.profraw";
  run_ok("cat " + sh_quote(raw("simple22")) + " " + sh_quote(raw("vp22")) + " > " + sh_quote(cat));
  expect_same22("cat22", sh_quote(cat));
  const std::string cat14 = dir_ + "/cat14.profraw";
  run_ok("cat " + sh_quote(raw("simple14")) + " " + sh_quote(raw("many14")) + " > " +
         sh_quote(cat14));
  expect_same14("cat14", sh_quote(cat14));
}

TEST_F(MergeConformance, IndexedAndRawInputsMix) {
  const std::string idx = dir_ + "/vp22_0.profdata";
  run_ok("llvm-profdata-22 merge " + sh_quote(raw("vp22")) + " -o " + sh_quote(idx));
  expect_same22("idx_raw22", sh_quote(idx) + " " + sh_quote(raw("vp22", 1)));
}

TEST_F(MergeConformance, EmptyInputsAreSkipped) {
  const std::string empty = dir_ + "/empty.profraw";
  write_file(empty, "");
  expect_same22("empty_and_simple", sh_quote(empty) + " " + sh_quote(raw("simple22")));
  expect_same22("only_empty", sh_quote(empty));
}

TEST_F(MergeConformance, IndexedTracesKeepTheirWeightRawTracesTakeTheInputWeight) {
  const std::string idx = dir_ + "/temporal22.profdata";
  run_ok("llvm-profdata-22 merge " + sh_quote(raw("temporal22")) + " -o " + sh_quote(idx));
  expect_same22("temporal_idx_w", "--weighted-input=3," + idx + " --weighted-input=2," +
                                      raw("temporal22", 1));
}

TEST_F(MergeConformance, OutputDoesNotDependOnThreadCount) {
  std::string all;
  for (const std::string b : {"vp22", "simple22", "many22", "vt22"})
    for (const std::string& r : raws_.at(b)) all += " " + sh_quote(r);
  std::string first;
  for (const std::string j : {"1", "2", "3"}) {
    const std::string out = dir_ + "/threads_" + j + ".profdata";
    run_ok(sh_quote(profkit_bin()) + " merge -j " + j + all + " -o " + sh_quote(out));
    const std::string bytes = read_file(out);
    ASSERT_FALSE(bytes.empty());
    if (first.empty()) {
      first = bytes;
    } else {
      EXPECT_TRUE(bytes == first) << "-j " << j << " differs from -j 1";
    }
  }
}

TEST_F(MergeConformance, ParallelMergeWithWeightsStillMatchesOneThread) {
  // Weights make chunked merging order-sensitive; profkit must fall back and still match.
  // With two threads each input is its own chunk; the second brings targets the first lacks,
  // which llvm-profdata inserts without the weight.
  const std::string args = sh_quote(raw("vp22", 2)) + " --weighted-input=3," + raw("vp22", 1);
  expect_same("vp22_w_j2", "llvm-profdata-22 merge --num-threads=1 " + args, "-j 2 " + args);
}

TEST_F(MergeConformance, InputListFileMatchesWeightedInputs) {
  const std::string list = dir_ + "/inputs.txt";
  write_file(list, "# comment\n" + raw("vp22", 0) + "\n\n3," + raw("vp22", 1) + "\n");
  expect_same("listfile", "llvm-profdata-22 merge --num-threads=1 -f " + sh_quote(list),
              "-f " + sh_quote(list));
}

TEST_F(MergeConformance, TextOutputMatches) {
  expect_same22("vp22_text", sh_quote(raw("vp22")), "--text", "--text");
}

TEST_F(MergeConformance, TruncatedRawInputFailsWithOffsetAndNoOutput) {
  const std::string whole = read_file(raw("vp22"));
  const std::string cut = dir_ + "/cut.profraw";
  write_file(cut, whole.substr(0, whole.size() - 20));
  const std::string out = dir_ + "/cut.profdata";
  const CommandResult r =
      run(sh_quote(profkit_bin()) + " merge " + sh_quote(cut) + " -o " + sh_quote(out));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(cut + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": error: "), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(file_exists(out));
}

TEST_F(MergeConformance, FailureModeAllSkipsBadInputs) {
  const std::string bad = dir_ + "/bad.profraw";
  write_file(bad, "this is not a profile at all\n");
  const std::string out = dir_ + "/fm_all.profdata";
  CommandResult r = run(sh_quote(profkit_bin()) + " merge --failure-mode=all " + sh_quote(bad) +
                        " " + sh_quote(raw("simple22")) + " -o " + sh_quote(out));
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string ref = dir_ + "/fm_ref.profdata";
  run_ok("llvm-profdata-22 merge --num-threads=1 " + sh_quote(raw("simple22")) + " -o " +
         sh_quote(ref));
  EXPECT_TRUE(read_file(out) == read_file(ref));
  r = run(sh_quote(profkit_bin()) + " merge " + sh_quote(bad) + " " + sh_quote(raw("simple22")) +
          " -o " + sh_quote(dir_ + "/fm_any.profdata"));
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(file_exists(dir_ + "/fm_any.profdata"));
}

// llvm-profdata's --function / --no-function on IR-PGO merges: the names left out are erased
// after the merge (every record of a name), in text and indexed output, and stderr says how
// many of how many names.
TEST_F(MergeConformance, FunctionFiltersMatch) {
  const std::string in = sh_quote(raw("many22")) + " " + sh_quote(raw("many22", 1));
  expect_same22("fn_keep", "--function='^f[0-9]*1$' " + in);
  expect_same22("fn_drop", "--no-function='2' " + in);
  expect_same22("fn_both", "--function=f --no-function='7$' " + in);
  expect_same22("fn_text", "--text --function='^f1' " + in);
  const std::string out = dir_ + "/fn_msg.pk";
  const CommandResult r = run(sh_quote(profkit_bin()) + " merge --function=main " +
                              sh_quote(raw("simple22")) + " -o " + sh_quote(out));
  const CommandResult l = run("llvm-profdata-22 merge --function=main " +
                              sh_quote(raw("simple22")) + " -o " + sh_quote(out + ".ref"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, l.err);
}

// What LLVM's option parser accepts, as build scripts written for llvm-profdata spell it:
// a value after '=' for one-letter options, two dashes for them, an option given twice
// (the last wins), and --text/--binary where the last one given wins.
TEST_F(MergeConformance, LlvmOptionSpellingsMatch) {
  const std::string in = sh_quote(raw("vp22")) + " " + sh_quote(raw("vp22", 1));
  const std::string list = dir_ + "/spell.list";
  write_file(list, raw("vp22") + "\n" + raw("vp22", 1) + "\n");
  for (const char* tag : {"eq", "dashdash", "twice", "jeq", "feq"}) {
    const std::string ref = dir_ + "/spell_" + tag + ".ref", got = dir_ + "/spell_" + tag + ".pk";
    std::string args;
    if (std::string(tag) == "eq") args = "-o=" + sh_quote(got) + " " + in;
    if (std::string(tag) == "dashdash") args = "--o=" + sh_quote(got) + " " + in;
    if (std::string(tag) == "twice") args = "-o " + sh_quote(got + ".first") + " " + in + " -o " + sh_quote(got);
    if (std::string(tag) == "jeq") args = "-j=2 -o " + sh_quote(got) + " " + in;
    if (std::string(tag) == "feq") args = "-f=" + sh_quote(list) + " -o " + sh_quote(got);
    run_ok("llvm-profdata-22 merge --num-threads=1 " + in + " -o " + sh_quote(ref));
    run_ok(sh_quote(profkit_bin()) + " merge " + args);
    EXPECT_TRUE(read_file(ref) == read_file(got)) << tag;
    EXPECT_FALSE(file_exists(got + ".first")) << tag;
  }
  expect_same22("text_binary", "--text --binary " + in);
  expect_same22("binary_text", "--binary --text " + in);
}

// --failure-mode=warn: unreadable inputs are skipped with a warning and the merge never
// fails for them, even when none is left.
TEST_F(MergeConformance, FailureModeWarnNeverFails) {
  const std::string bad = dir_ + "/warn_bad.profraw";
  write_file(bad, "garbage\n");
  expect_same22("warn_some", "--failure-mode=warn " + sh_quote(bad) + " " + sh_quote(raw("vp22")));
  expect_same22("warn_none", "--failure-mode=warn " + sh_quote(bad));
}

// Front-end (-fprofile-instr-generate) raw and indexed profiles have no profile kind for
// llvm-profdata, so they merge with IR-level ones in either order (the output is IR-level);
// a text profile whose :fe line says front end does not.
TEST_F(MergeConformance, FrontEndAndIrProfilesMergeAsLlvmMergesThem) {
  for (const std::string r : {"14", "22"}) {
    const std::string exe = dir_ + "/fe" + r;
    const std::string fe = exe + ".profraw";
    run_ok("clang-" + r + " -O0 -fprofile-instr-generate " +
           sh_quote(source_path("tests/programs/irpgo/simple.c")) + " -o " + sh_quote(exe) +
           " && LLVM_PROFILE_FILE=" + sh_quote(fe) + " " + sh_quote(exe) + " 5 > /dev/null");
    const std::string ir = sh_quote(raw("simple" + r, 1));
    if (r == "22") {
      const std::string fe_indexed = exe + ".profdata";
      run_ok("llvm-profdata-22 merge " + sh_quote(fe) + " -o " + sh_quote(fe_indexed));
      expect_same22("fe_ir", sh_quote(fe) + " " + ir);
      expect_same22("ir_fe", ir + " " + sh_quote(fe));
      expect_same22("fe_indexed_ir", sh_quote(fe_indexed) + " " + ir);
      expect_same22("fe_ir_text", sh_quote(fe) + " " + ir, "--text", "--text");
    } else {
      expect_same14("fe_ir14", sh_quote(fe) + " " + ir);
    }
  }
  const std::string fe_text = dir_ + "/fe_line.proftext";
  write_file(fe_text, ":fe\nf\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n1\n");
  const CommandResult llvm = run("llvm-profdata-22 merge --num-threads=1 " + sh_quote(fe_text) +
                                 " " + sh_quote(raw("simple22")) + " -o " +
                                 sh_quote(dir_ + "/fe_line.ref"));
  const CommandResult r = run(sh_quote(profkit_bin()) + " merge " + sh_quote(fe_text) + " " +
                              sh_quote(raw("simple22")) + " -o " +
                              sh_quote(dir_ + "/fe_line.profdata"));
  EXPECT_NE(llvm.status, 0);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("front-end"), std::string::npos) << r.err;
  EXPECT_FALSE(file_exists(dir_ + "/fe_line.profdata"));
}

}  // namespace
}  // namespace profkit::test
