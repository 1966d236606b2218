// `profkit show` against `llvm-profdata-22 show`: the docs/formats/irpgo.md 8.1 programs are built with
// clang-22 (and clang-14 for v7 files), run, merged by the real llvm-profdata into indexed
// v13, v11 (--write-prev-version), v7 (llvm-profdata-14) and text files; then for every
// input x flag set profkit must print byte-identical standard output and standard error,
// with the same exit status.
// Every comparison reads the file through format/instrprof/reader.h (raw, indexed and
// text readers), so these tests cover the readers as much as the printer.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

constexpr const char* kProfdata22 = "llvm-profdata-22";
constexpr const char* kProfdata14 = "llvm-profdata-14";

// One program build: compiler, flags, source, and the arguments of its run.
struct Build {
  const char* tag;       // output basename
  const char* compiler;  // clang-22, clang++-22, clang-14
  const char* flags;
  const char* source;    // under tests/programs/irpgo/
  const char* args;      // command-line arguments of the profiling run
};

const Build kBuilds[] = {
    {"simple22", "clang-22", "-O0 -fprofile-generate", "simple.c", ""},
    {"simple14", "clang-14", "-O0 -fprofile-generate", "simple.c", ""},
    {"vp22", "clang-22", "-O2 -fprofile-generate", "vp.c", ""},
    {"vp14", "clang-14", "-O2 -fprofile-generate", "vp.c", ""},
    {"many22", "clang-22", "-O0 -fprofile-generate", "many.c", ""},
    {"many14", "clang-14", "-O0 -fprofile-generate", "many.c", ""},
    {"vt22", "clang++-22", "-O2 -fprofile-generate -mllvm -enable-vtable-value-profiling",
     "vt.cpp", ""},
    {"vt2_22", "clang++-22", "-O2 -fprofile-generate -mllvm -enable-vtable-value-profiling",
     "vt2.cpp", ""},
    {"temporal22", "clang-22", "-O0 -fprofile-generate -mllvm -pgo-temporal-instrumentation",
     "simple.c", ""},
    {"entry22", "clang-22", "-O0 -fprofile-generate -mllvm -pgo-instrument-entry", "simple.c",
     "7"},
    {"loopent22", "clang-22", "-O0 -fprofile-generate -mllvm -pgo-instrument-loop-entries",
     "simple.c", "4"},
    {"mcdc22", "clang-22", "-fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc",
     "mcdc.c", ""},
};

// Builds every program, runs it and makes the profiles once per process; returns
// label -> path of every input file the tests show.
const std::map<std::string, std::string>& inputs() {
  static std::map<std::string, std::string> files;
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string dir = work_dir("show");
    auto path = [&](const std::string& name) { return dir + "/" + name; };
    for (const Build& b : kBuilds) {
      const std::string exe = path(b.tag);
      const std::string raw = exe + ".profraw";
      run_ok(std::string(b.compiler) + " " + b.flags + " " +
             sh_quote(source_path(std::string("tests/programs/irpgo/") + b.source)) + " -o " +
             sh_quote(exe));
      run_ok("LLVM_PROFILE_FILE=" + sh_quote(raw) + " " + sh_quote(exe) + " " + b.args +
             " >/dev/null");
      const bool is14 = std::string(b.compiler).find("-14") != std::string::npos;
      if (is14) {
        // LLVM 14 raw files (v8) are not readable by LLVM 22; its v7 indexed files are.
        run_ok(std::string(kProfdata14) + " merge " + sh_quote(raw) + " -o " +
               sh_quote(exe + ".v7.profdata"));
        files[std::string(b.tag) + ".v7.profdata"] = exe + ".v7.profdata";
        continue;
      }
      files[std::string(b.tag) + ".profraw"] = raw;
      run_ok(std::string(kProfdata22) + " merge " + sh_quote(raw) + " -o " +
             sh_quote(exe + ".profdata"));
      files[std::string(b.tag) + ".profdata"] = exe + ".profdata";
      run_ok(std::string(kProfdata22) + " merge --write-prev-version " + sh_quote(raw) +
             " -o " + sh_quote(exe + ".v11.profdata"));
      files[std::string(b.tag) + ".v11.profdata"] = exe + ".v11.profdata";
      run_ok(std::string(kProfdata22) + " merge --text " + sh_quote(raw) + " -o " +
             sh_quote(exe + ".txt"));
      files[std::string(b.tag) + ".txt"] = exe + ".txt";
    }
    // Kept vtable names (indexed v12+ vtable-names section).
    run_ok(std::string(kProfdata22) + " merge --keep-vtable-symbols " +
           sh_quote(path("vt22.profraw")) + " -o " + sh_quote(path("vt22keep.profdata")));
    files["vt22keep.profdata"] = path("vt22keep.profdata");
    // Context-sensitive records (FuncHash bit 60) beside plain ones, for --showcs.
    run_ok("clang-22 -O2 -fprofile-use=" + sh_quote(path("simple22.profdata")) +
           " -fcs-profile-generate -Wno-backend-plugin " +
           sh_quote(source_path("tests/programs/irpgo/simple.c")) + " -o " +
           sh_quote(path("cs22")));
    run_ok("LLVM_PROFILE_FILE=" + sh_quote(path("cs22.profraw")) + " " +
           sh_quote(path("cs22")) + " >/dev/null");
    files["cs22.profraw"] = path("cs22.profraw");
    run_ok(std::string(kProfdata22) + " merge " + sh_quote(path("simple22.profdata")) + " " +
           sh_quote(path("cs22.profraw")) + " -o " + sh_quote(path("csm22.profdata")));
    files["csm22.profdata"] = path("csm22.profdata");
    run_ok(std::string(kProfdata22) + " merge --text " + sh_quote(path("csm22.profdata")) +
           " -o " + sh_quote(path("csm22.txt")));
    files["csm22.txt"] = path("csm22.txt");
    // Several images in one raw file.
    run_ok("cat " + sh_quote(path("simple22.profraw")) + " " + sh_quote(path("vp22.profraw")) +
           " > " + sh_quote(path("cat22.profraw")));
    files["cat22.profraw"] = path("cat22.profraw");
  });
  return files;
}

// The flag sets of issue 2 and docs/formats/irpgo.md 8.2 ("show variants"). Each llvm-profdata-22 run costs
// tens of milliseconds, so the full list runs on a few inputs that between them have every
// format and feature, and a shorter list that touches every code path runs on all inputs.
const char* const kEveryInputFlags[] = {
    "",
    "--all-functions --counts",
    "--text --all-functions",
    "--all-functions --ic-targets --memop-sizes --show-vtables",
    "--binary-ids --profile-version --temporal-profile-traces --detailed-summary --topn=3",
};

const char* const kDetailFlags[] = {
    "--function=c --counts",
    "--covered",
    "--showcs --all-functions --counts",
    "--topn=1",
    "--topn=400",
    "--detailed-summary",
    "--detailed-summary --detailed-summary-cutoffs=999999,500000 --detailed-summary-cutoffs=10",
    "--topn=2 --function=x --function=c --counts --topn=3",  // repeats: the last one counts
    "--detailed-summary-cutoffs=500000",
    "--all-functions --counts --ic-targets --memop-sizes --show-vtables",
    "--function=main --show-vtables --ic-targets",
    "--text",
    "--text --function=e --showcs",
    "--binary-ids",
    "--covered --showcs",
    "--profile-version",
    "--value-cutoff=3",
    "--value-cutoff=50 --list-below-cutoff",
    "--value-cutoff=2 --all-functions --counts --topn=5",
    "--showcs",
    "--showcs --topn=2 --detailed-summary",
    "--temporal-profile-traces",
    "--json",
    "--show-format=json",
    "--show-format=yaml",
    "--show-format=text --counts --all-functions",
    "-all-functions -counts -topn=2 -function=x",
    "--hot-func-list",
    "--hot-func-list --topn=2 --detailed-summary",
    "--hot-func-list --detailed-summary-cutoffs=500000,990000 --showcs",
};

// Inputs for kDetailFlags: raw, indexed v13 and v7, and text files; value profiles, CS
// records and a front-end profile.
const char* const kDetailInputs[] = {
    "vp22.profraw", "vp22.profdata", "vp14.v7.profdata", "csm22.profdata", "mcdc22.txt",
};

// Every input file the tests show (made on first use by inputs()): each program's raw file,
// indexed v13 and text files where they add something, v11 and v7 for the basic programs.
const char* const kEveryInput[] = {
    "simple22.profraw",   "simple22.profdata",   "simple22.txt",       "simple14.v7.profdata",
    "vp22.profraw",       "vp22.profdata",       "vp22.v11.profdata",  "vp22.txt",
    "vp14.v7.profdata",   "many22.profraw",      "many22.profdata",    "many14.v7.profdata",
    "vt22.profraw",       "vt22.profdata",       "vt22keep.profdata",  "vt2_22.profraw",
    "vt2_22.txt",         "temporal22.profraw",  "temporal22.v11.profdata", "temporal22.txt",
    "entry22.profdata",   "loopent22.profraw",   "mcdc22.profraw",     "mcdc22.profdata",
    "mcdc22.txt",         "cs22.profraw",        "csm22.profdata",     "csm22.txt",
    "cat22.profraw",
};

class ShowConformance
    : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(ShowConformance, StdoutAndStatusMatchLlvmProfdata22) {
  const auto& [label, flags] = GetParam();
  const auto& files = inputs();
  auto it = files.find(label);
  ASSERT_NE(it, files.end()) << label;
  const std::string file = sh_quote(it->second);
  const CommandResult llvm = run(std::string(kProfdata22) + " show " + flags + " " + file);
  const CommandResult ours = run(sh_quote(profkit_bin()) + " show " + flags + " " + file);
  EXPECT_EQ(ours.status, llvm.status) << "profkit stderr: " << ours.err
                                      << "\nllvm stderr: " << llvm.err;
  EXPECT_EQ(ours.out, llvm.out);
  // Warnings and the --json / --show-format refusals are LLVM's words too.
  EXPECT_EQ(ours.err, llvm.err);
}

std::string param_name(const ::testing::TestParamInfo<ShowConformance::ParamType>& info) {
  std::string name = std::string(std::get<0>(info.param)) + "_" + std::to_string(info.index);
  for (char& c : name)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryInput, ShowConformance,
                         ::testing::Combine(::testing::ValuesIn(kEveryInput),
                                            ::testing::ValuesIn(kEveryInputFlags)),
                         param_name);
INSTANTIATE_TEST_SUITE_P(DetailFlags, ShowConformance,
                         ::testing::Combine(::testing::ValuesIn(kDetailInputs),
                                            ::testing::ValuesIn(kDetailFlags)),
                         param_name);

TEST(ShowCli, OutputFileHoldsWhatStdoutWouldShow) {
  const std::string in = inputs().at("vp22.profdata");
  const std::string out = work_dir("show-output") + "/shown.txt";
  const CommandResult llvm =
      run_ok(std::string(kProfdata22) + " show --all-functions --counts --ic-targets " +
             sh_quote(in));
  const CommandResult ours = run_ok(sh_quote(profkit_bin()) +
                                    " show --all-functions --counts --ic-targets -o " +
                                    sh_quote(out) + " " + sh_quote(in));
  EXPECT_EQ(ours.out, "");
  EXPECT_EQ(read_file(out), llvm.out);
}

TEST(ShowCli, TruncatedInputIsAOneLineErrorAndNoOutputFile) {
  const std::string dir = work_dir("show-bad");
  const std::string whole = read_file(inputs().at("vp22.profdata"));
  const std::string bad = dir + "/cut.profdata";
  write_file(bad, whole.substr(0, whole.size() / 2));
  const std::string out = dir + "/never.txt";
  const CommandResult r =
      run(sh_quote(profkit_bin()) + " show --all-functions -o " + sh_quote(out) + " " +
          sh_quote(bad));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.find(bad + ":"), 0u) << r.err;
  EXPECT_NE(r.err.find(": error: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_FALSE(file_exists(out));
  // llvm-profdata rejects it too.
  EXPECT_EQ(run(std::string(kProfdata22) + " show " + sh_quote(bad)).status, 1);
}

TEST(ShowCli, EmptyFileIsAOneLineErrorLikeLlvmProfdata) {
  const std::string dir = work_dir("show-empty");
  const std::string empty = dir + "/empty.profraw";
  write_file(empty, "");
  const CommandResult llvm = run(std::string(kProfdata22) + " show " + sh_quote(empty));
  EXPECT_EQ(llvm.status, 1);
  EXPECT_NE(llvm.err.find("empty raw profile file"), std::string::npos) << llvm.err;
  const std::string out = dir + "/never.txt";
  const CommandResult r = run(sh_quote(profkit_bin()) + " show --all-functions -o " +
                              sh_quote(out) + " " + sh_quote(empty));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.find(empty + ":0: error: empty profile file"), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_FALSE(file_exists(out));
}

TEST(ShowCli, MissingFileIsAnError) {
  const CommandResult r = run(sh_quote(profkit_bin()) + " show /nonexistent/x.profdata");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("/nonexistent/x.profdata"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace profkit::test
