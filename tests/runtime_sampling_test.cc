// Sampled profiles (sample_interval): tests/programs/runtime/sampled.c allocates known
// counts of known sizes, one call site each, through every allocation entry point. With a
// fixed seed the estimated counts must be within 5 standard deviations of the truth (the
// deviation predicted for the Poisson sampling and the random rounding of weights, stated
// per site below); sizes, min/max fields and per-block access counts are not estimates and
// must be exact. The profiles are read by llvm-profdata-22 (show, merge) and the merged one
// is used by clang-22.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/support/harness.h"
#include "tests/support/memprof_show.h"

namespace {

using profkit::test::run;
using profkit::test::run_ok;
using profkit::test::sh_quote;
using Contexts = profkit::test::MemProfContexts;
using Fields = profkit::test::MibFields;

constexpr double kInterval = 4096;

using profkit::test::runtime_dir;
std::string source() { return profkit::test::source_path("tests/programs/runtime/sampled.c"); }

// A test program linked with the runtime, instrumented (access counts) and plain (for
// `profkit run`), in work directory `dir`.
struct Binaries {
  std::string instrumented, plain;
};
Binaries build(const std::string& dir, const std::string& name, const std::string& src) {
  Binaries r{dir + "/" + name + ".ours", dir + "/" + name + ".plain"};
  run_ok("clang-22 -g -O1 -fmemory-profile -fno-omit-frame-pointer -c " + sh_quote(src) + " -o " +
         dir + "/" + name + ".o");
  run_ok("clang-22 " + dir + "/" + name + ".o -o " + r.instrumented + " " + runtime_dir() +
         "/libprofkit_memprof.so -Wl,-rpath," + runtime_dir());
  run_ok("clang-22 -g -O1 -fno-omit-frame-pointer " + sh_quote(src) + " -o " + r.plain);
  return r;
}
// sampled.c, built once.
const Binaries& binaries() {
  static const Binaries b = build(profkit::test::work_dir("sampling"), "sampled", source());
  return b;
}

// Runs the instrumented program with `options` and returns its one profile's path.
std::string profile(const std::string& tag, const std::string& options, std::string* err = nullptr) {
  const std::string dir = profkit::test::work_dir("sampling_raw");
  const std::string prefix = dir + "/" + tag + ".raw";
  run_ok("rm -f " + prefix + ".*");
  const auto r = run("MEMPROF_OPTIONS=" + sh_quote("log_path=" + prefix + ":" + options) + " " +
                     sh_quote(binaries().instrumented));
  EXPECT_EQ(r.status, 0) << r.err;
  if (err != nullptr) *err = r.err;
  const auto ls = run_ok("ls " + prefix + ".*");
  return ls.out.substr(0, ls.out.find('\n'));
}

// The one context whose leaf frame is `site` (each site allocates from one call).
const Fields* site_fields(const Contexts& contexts, const std::string& site) {
  const Fields* found = nullptr;
  for (const auto& [key, fields] : contexts)
    if (key.rfind(site + ":", 0) == 0) {
      EXPECT_EQ(found, nullptr) << site << " has more than one context";
      found = &fields;
    }
  EXPECT_NE(found, nullptr) << "no context for " << site;
  return found;
}
uint64_t field(const Fields& f, const char* name) { return std::stoull(f.at(name)); }

struct Site {
  const char* name;
  uint64_t count, size;
};
// sampled.c's sites. Blocks of site_grown are reallocations (realloc records a new block).
const Site kSites[] = {{"site_small", 200000, 64},  {"site_page", 20000, 4096},
                       {"site_large", 2000, 100000}, {"site_aligned", 20000, 200},
                       {"site_zeroed", 20000, 1000}, {"site_grown", 5000, 3000},
                       {"site_live", 1000, 512}};

// Checks every site against the truth: exact (`tolerance_sd` 0) or within that many standard
// deviations of the estimate. A block of size s is sampled with probability p = 1 - e^(-s/T)
// and then counts w = 1/p (rounded at random to floor(w) or floor(w) + 1); the estimate of
// N blocks has variance N (w - 1) plus at most N / 4 from the rounding.
void expect_sites(const Contexts& got, double tolerance_sd, const std::string& what) {
  for (const Site& s : kSites) {
    const Fields* f = site_fields(got, s.name);
    if (f == nullptr) continue;
    const uint64_t count = field(*f, "AllocCount");
    if (tolerance_sd == 0) {
      EXPECT_EQ(count, s.count) << what << " " << s.name;
    } else {
      const double w = 1 / (1 - std::exp(-static_cast<double>(s.size) / kInterval));
      const double sd = std::sqrt(s.count * (w - 1 + 0.25));
      EXPECT_NEAR(static_cast<double>(count), static_cast<double>(s.count), tolerance_sd * sd)
          << what << " " << s.name << " (sd " << sd << ")";
    }
    // Not estimates: the same in every sampled block.
    EXPECT_EQ(field(*f, "TotalSize"), count * s.size) << what << " " << s.name;
    EXPECT_EQ(field(*f, "MinSize"), s.size) << what << " " << s.name;
    EXPECT_EQ(field(*f, "MaxSize"), s.size) << what << " " << s.name;
    const uint64_t accesses = field(*f, "MinAccessCount");
    EXPECT_GE(accesses, 2u) << what << " " << s.name;
    EXPECT_EQ(field(*f, "MaxAccessCount"), accesses) << what << " " << s.name;
    EXPECT_EQ(field(*f, "TotalAccessCount"), accesses * count) << what << " " << s.name;
  }
}

TEST(Sampling, FullProfileIsExact) {
  const std::string raw = profile("full", "");
  expect_sites(profkit::test::llvm_memprof_show(binaries().instrumented, raw), 0, "full");
}

TEST(Sampling, IntervalOneIsTheFullProfile) {
  const std::string full = profile("full1", "");
  const std::string one = profile("one", "sample_interval=1:sample_seed=3");
  const Contexts a = profkit::test::llvm_memprof_show(binaries().instrumented, full);
  const Contexts b = profkit::test::llvm_memprof_show(binaries().instrumented, one);
  expect_sites(b, 0, "sample_interval=1");
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [key, fields] : a) {
    ASSERT_TRUE(b.count(key)) << key;
    for (const char* name : {"AllocCount", "TotalSize", "TotalAccessCount", "MinSize", "MaxSize"})
      EXPECT_EQ(fields.at(name), b.at(key).at(name)) << key << " " << name;
  }
}

TEST(Sampling, EstimatesWithinToleranceForFixedSeeds) {
  for (int seed = 1; seed <= 3; ++seed) {
    const std::string what = "seed " + std::to_string(seed);
    const std::string raw =
        profile("s" + std::to_string(seed), "sample_interval=4096:sample_seed=" + std::to_string(seed));
    const Contexts got = profkit::test::llvm_memprof_show(binaries().instrumented, raw);
    expect_sites(got, 5, what);
    // Sampling did happen: the small site's estimate is not the exact count.
    const Fields* small = site_fields(got, "site_small");
    if (small != nullptr) {
      EXPECT_NE(field(*small, "AllocCount"), 200000u) << what;
    }
  }
}

TEST(Sampling, MergedProfileIsUsedByClang) {
  const std::string raw = profile("use", "sample_interval=4096:sample_seed=11");
  const std::string dir = profkit::test::work_dir("sampling_use");
  run_ok("llvm-profdata-22 merge --num-threads=1 --profiled-binary=" +
         sh_quote(binaries().instrumented) + " " + sh_quote(raw) + " -o " + dir + "/s.memprofdata");
  const auto ir = run_ok("clang-22 -g -O1 -fmemory-profile-use=" + dir + "/s.memprofdata" +
                         " -mllvm -memprof-ave-lifetime-cold-threshold=0 -S -emit-llvm -o - " +
                         sh_quote(source()));
  // The profile matched the program's calls: each site's call in main carries !callsite.
  for (const Site& s : kSites) {
    const size_t call = ir.out.find(std::string("call ptr @") + s.name + "(");
    ASSERT_NE(call, std::string::npos) << s.name;
    const std::string line = ir.out.substr(call, ir.out.find('\n', call) - call);
    EXPECT_NE(line.find("!callsite"), std::string::npos) << line;
  }
}

TEST(Sampling, BadIntervalIsOneLineAndTheProgramRunsUnsampled) {
  for (const char* value : {"-5", "abc", "2000000000000"}) {
    std::string err;
    const std::string raw = profile("bad", std::string("sample_interval=") + value, &err);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("profkit-memprof: error: MEMPROF_OPTIONS: "), std::string::npos) << err;
    EXPECT_NE(err.find("'sample_interval'"), std::string::npos) << err;
    expect_sites(profkit::test::llvm_memprof_show(binaries().instrumented, raw), 0, value);
  }
}

// The allocation-only profile `out` of the plain program, sampled at kInterval: every site's
// AllocCount within 5 standard deviations of the truth, and the small site's not exact.
void expect_sampled_counts(const std::string& out) {
  const Contexts got = profkit::test::llvm_memprof_show(binaries().plain, out);
  for (const Site& s : kSites) {
    const Fields* f = site_fields(got, s.name);
    if (f == nullptr) continue;
    const double w = 1 / (1 - std::exp(-static_cast<double>(s.size) / kInterval));
    EXPECT_NEAR(static_cast<double>(field(*f, "AllocCount")), static_cast<double>(s.count),
                5 * std::sqrt(s.count * (w - 1 + 0.25))) << s.name;
  }
  const Fields* small = site_fields(got, "site_small");
  if (small != nullptr) {
    EXPECT_NE(field(*small, "AllocCount"), 200000u) << "sampled, not the full profile";
  }
}

// Under an address-space limit (`ulimit -v`, as batch schedulers and some containers set)
// the 1 TiB range cannot be reserved: a smaller one is, and the run is still sampled (it
// used to profile every allocation, ten times the cost, and say so on the program's stderr).
TEST(Sampling, AnAddressSpaceLimitStillSamples) {
  // The limit is the program's alone (profkit itself may be a sanitizer build, which
  // reserves terabytes of shadow), with the runtime `profkit run` would preload.
  const std::string out = profkit::test::work_dir("sampling_run") + "/limited.raw";
  const auto r = run(
      "sh -c " + sh_quote("ulimit -v 4000000 && exec env LD_PRELOAD=" +
                          sh_quote(runtime_dir() + "/preload/libprofkit_memprof.so") +
                          " MEMPROF_OPTIONS=" +
                          sh_quote("output=" + out + ":sample_interval=4096:sample_seed=5") + " " +
                          sh_quote(binaries().plain)));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("cannot reserve"), std::string::npos) << r.err;
  expect_sampled_counts(out);
}

TEST(Sampling, ProfkitRunPassesTheIntervalThrough) {
  const std::string dir = profkit::test::work_dir("sampling_run");
  const std::string out = dir + "/run.raw";
  const std::string profkit = sh_quote(profkit::test::profkit_bin());
  const auto r = run(profkit + " run --sample-interval=4096 --options sample_seed=5 --output " +
                     out + " -- " + sh_quote(binaries().plain));
  EXPECT_EQ(r.status, 0) << r.err;
  expect_sampled_counts(out);
  const auto bad = run(profkit + " run --sample-interval=-1 -- true");
  EXPECT_NE(bad.status, 0);
  // One line, as every usage error: "profkit: error: --sample-interval: ...".
  EXPECT_EQ(bad.err.rfind("profkit: error: --sample-interval: ", 0), 0u) << bad.err;
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
}

// Large blocks reused (tests/programs/runtime/big_reuse.c checks itself): zeros from calloc
// on reused pages, a freed block's pages kept for the next block of its size, and a bound
// on what is kept. Sampled (every large block is sampled at this interval) and full
// profiles, instrumented and under `profkit run` (the dense layout).
TEST(Sampling, FreedLargeBlocksKeepTheirPagesWithinABound) {
  const std::string dir = profkit::test::work_dir("sampling_big_reuse");
  const Binaries b = build(dir, "big_reuse",
                           profkit::test::source_path("tests/programs/runtime/big_reuse.c"));
  for (const char* sampling : {":sample_interval=4096", ""}) {
    const auto instrumented = run("MEMPROF_OPTIONS=" +
                                  sh_quote("log_path=" + dir + "/ours.raw" + sampling) + " " +
                                  sh_quote(b.instrumented));
    EXPECT_EQ(instrumented.status, 0) << sampling << " " << instrumented.err;
    EXPECT_NE(instrumented.out.find("faults "), std::string::npos) << instrumented.out;
    const auto plain = run(sh_quote(profkit::test::profkit_bin()) + " run " +
                           (*sampling ? "--sample-interval=4096 " : "") + "--output " + dir +
                           "/run.raw -- " + sh_quote(b.plain));
    EXPECT_EQ(plain.status, 0) << sampling << " " << plain.err;
    EXPECT_NE(plain.out.find("faults "), std::string::npos) << plain.out;
  }
}

}  // namespace
