// Raw profiles of 32-bit producers (spec irpgo-format: 4-byte pointers, the "R" magic), made
// for real: the test programs are built with clang-14 and clang-22 -m32 -fprofile-generate
// and run under qemu-i386 (user-mode emulation; this kernel does not execute 32-bit binaries
// itself). profkit must read them exactly as the real llvm-profdata does:
// - LLVM 22 (raw v10): `merge` byte-identical to llvm-profdata-22, `show` identical text;
// - LLVM 14 (raw v8): `merge --profile-version=7` byte-identical to llvm-profdata-14;
// - every truncation of every file is an error with an offset, never a crash.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/instrprof/reader.h"
#include "tests/support/harness.h"

namespace profkit::test {
namespace {

struct Raw32 {
  std::string release;  // "14" or "22"
  std::string path;
};

class M32Conformance : public ::testing::Test {
 protected:
  static std::string dir_;
  static std::map<std::string, Raw32> raws_;  // name -> raw file of one run

  static void SetUpTestSuite() {
    dir_ = work_dir("m32");
    const std::string p = source_path("tests/programs/irpgo") + "/";
    struct Build {
      std::string name, release, compile, args;
    };
    std::vector<Build> builds;
    for (const std::string r : {"14", "22"}) {
      // Indirect-call and memop value profiles carry 32-bit target addresses.
      builds.push_back({"vp" + r, r, "clang-" + r + " -m32 -O2 -fprofile-generate " + p + "vp.c",
                        "37"});
      builds.push_back(
          {"many" + r, r, "clang-" + r + " -m32 -O0 -fprofile-generate " + p + "many.c", ""});
    }
    builds.push_back({"mcdc22", "22",
                      "clang-22 -m32 -fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc " +
                          p + "mcdc.c",
                      ""});
    builds.push_back({"temporal22", "22",
                      "clang-22 -m32 -O0 -fprofile-generate -mllvm -pgo-temporal-instrumentation " +
                          p + "simple.c",
                      "3"});
    for (const Build& b : builds) {
      const std::string exe = dir_ + "/" + b.name;
      const std::string raw = exe + ".profraw";
      if (run_ok(b.compile + " -o " + sh_quote(exe)).status != 0) continue;
      if (run_ok("LLVM_PROFILE_FILE=" + sh_quote(raw) + " qemu-i386 " + sh_quote(exe) + " " +
                 b.args + " >/dev/null")
              .status != 0)
        continue;
      raws_[b.name] = {b.release, raw};
    }
  }

  static std::string profkit() { return sh_quote(profkit_bin()); }
};

std::string M32Conformance::dir_;
std::map<std::string, Raw32> M32Conformance::raws_;

TEST_F(M32Conformance, FilesAreThirtyTwoBitProducers) {
  ASSERT_EQ(raws_.size(), 6u) << "a 32-bit build or run failed (see the commands above)";
  for (const auto& [name, raw] : raws_) {
    const std::string bytes = read_file(raw.path);
    ASSERT_GE(bytes.size(), 8u) << name;
    // Little-endian magic of a 32-bit producer: 0xff6c70726f665281 ('R', not 'r').
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x81Rforpl\xff", 8))
        << name;
  }
}

TEST_F(M32Conformance, MergeIsByteIdenticalToLlvmProfdata) {
  for (const auto& [name, raw] : raws_) {
    const std::string ours = dir_ + "/" + name + ".pk.profdata";
    const std::string theirs = dir_ + "/" + name + ".llvm.profdata";
    if (raw.release == "22") {
      run_ok(profkit() + " merge -o " + sh_quote(ours) + " " + sh_quote(raw.path));
      run_ok("llvm-profdata-22 merge --num-threads=1 -o " + sh_quote(theirs) + " " +
             sh_quote(raw.path));
    } else {
      run_ok(profkit() + " merge --profile-version=7 -o " + sh_quote(ours) + " " +
             sh_quote(raw.path));
      run_ok("llvm-profdata-14 merge -o " + sh_quote(theirs) + " " + sh_quote(raw.path));
    }
    const std::string a = read_file(ours), b = read_file(theirs);
    EXPECT_FALSE(b.empty()) << name;
    EXPECT_TRUE(a == b) << name << ": " << ours << " differs from " << theirs;
  }
}

TEST_F(M32Conformance, ShowPrintsWhatLlvmProfdataPrints) {
  const std::vector<std::string> flag_sets = {
      "--all-functions --counts", "--all-functions --ic-targets", "--all-functions --memop-sizes",
      "--detailed-summary", "--covered"};
  int compared = 0;
  for (const auto& [name, raw] : raws_) {
    if (raw.release != "22") continue;  // llvm-profdata-22 reads raw v10 only
    for (const std::string& flags : flag_sets) {
      const CommandResult theirs =
          run("llvm-profdata-22 show " + flags + " " + sh_quote(raw.path));
      const CommandResult ours = run(profkit() + " show " + flags + " " + sh_quote(raw.path));
      EXPECT_EQ(ours.status, theirs.status) << name << " " << flags;
      EXPECT_EQ(ours.out, theirs.out) << name << " " << flags;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 20);
}

TEST_F(M32Conformance, EveryTruncationIsAnErrorWithAnOffset) {
  for (const auto& [name, raw] : raws_) {
    const std::string bytes = read_file(raw.path);
    ASSERT_TRUE(instrprof::read_profile(as_bytes(bytes))) << name;
    for (size_t n = 1; n < bytes.size(); ++n) {  // from 1: empty is not a truncation
      auto profile = instrprof::read_profile(as_bytes(std::string_view(bytes).substr(0, n)));
      ASSERT_FALSE(profile) << name << " truncated to " << n << " bytes was accepted";
      EXPECT_LE(profile.error().offset, n) << name << " truncated to " << n;
    }
  }
}

}  // namespace
}  // namespace profkit::test
