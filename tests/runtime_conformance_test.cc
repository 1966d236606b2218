// The heap profiler runtime against compiler-rt's: test programs compiled once with
// clang-22 -fmemory-profile, linked with compiler-rt's runtime and with ours, run, and
// read back by llvm-profdata-22 (the oracle). With llvm_compat=1 our counts must equal
// compiler-rt's field by field; by default they must equal what the programs' access
// patterns imply. Block sizes in the compared programs are multiples of 8 but not of 32:
// then compiler-rt's counts do not depend on where its allocator puts the block (its
// one-past-the-end granule and partial clearing, docs/formats/memprof.md A.6/A.7.2), so equality is exact.
#include <gtest/gtest.h>

#include <dirent.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/memprof/raw_reader.h"
#include "tests/support/harness.h"
#include "tests/support/memprof_show.h"

namespace {

using profkit::test::run;
using profkit::test::run_ok;
using profkit::test::sh_quote;

const std::string kFlags = "-g -O1 -fmemory-profile -fno-omit-frame-pointer";
const char* const kCompared[] = {"AllocCount",       "TotalAccessCount", "MinAccessCount",
                                 "MaxAccessCount",   "TotalSize",        "MinSize",
                                 "MaxSize",          "AccessHistogramSize"};

using profkit::test::runtime_dir;
std::string program(const std::string& name) {
  return profkit::test::source_path("tests/programs/runtime/" + name);
}

using Fields = profkit::test::MibFields;
using Contexts = profkit::test::MemProfContexts;

Contexts show(const std::string& binary, const std::string& raw) {
  return profkit::test::llvm_memprof_show(binary, raw);
}

std::vector<std::string> files_with_prefix(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind(prefix, 0) == 0 && name.find(".tmp.") == std::string::npos)
        out.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Binaries {
  std::string crt;   // linked with compiler-rt's runtime
  std::string ours;  // linked with libprofkit_memprof.so
};

// Compiles `sources` once (cached for the whole test binary) and links both variants.
const Binaries& build(const std::string& name, const std::string& source,
                      const std::string& extra_compile = "", const std::string& extra_link = "") {
  static std::map<std::string, Binaries> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const std::string dir = profkit::test::work_dir("bin");
  const bool cxx = source.size() > 4 && source.substr(source.size() - 4) == ".cpp";
  const std::string cc = cxx ? "clang++-22" : "clang-22";
  const std::string obj = dir + "/" + name + ".o";
  Binaries b{dir + "/" + name + ".crt", dir + "/" + name + ".ours"};
  run_ok(cc + " " + kFlags + " " + extra_compile + " -c " + sh_quote(program(source)) + " -o " + obj);
  run_ok(cc + " -fmemory-profile " + obj + " -o " + b.crt + " " + extra_link + " -lpthread");
  run_ok(cc + " " + obj + " -o " + b.ours + " " + extra_link + " " + runtime_dir() +
         "/libprofkit_memprof.so -Wl,-rpath," + runtime_dir() + " -lpthread");
  return cache[name] = b;
}

// Runs `binary` (with `args`, shell words) with MEMPROF_OPTIONS: log_path set to the prefix
// `tag`.raw in the raw work directory, then `options`. Its output and the profiles it wrote.
struct ProfiledRun {
  profkit::test::CommandResult result;
  std::vector<std::string> files;
};
ProfiledRun run_profiled(const std::string& binary, const std::string& tag,
                         const std::string& options, const std::string& args = "") {
  const std::string dir = profkit::test::work_dir("raw");
  const std::string prefix = tag + ".raw";
  ProfiledRun out;
  out.result = run("MEMPROF_OPTIONS=" + sh_quote("log_path=" + dir + "/" + prefix +
                                                  (options.empty() ? "" : ":" + options)) +
                   " " + sh_quote(binary) + " " + args);
  out.files = files_with_prefix(dir, prefix + ".");
  return out;
}

// The profile files of `binary` run as run_profiled runs it, checking its exit status and
// that the runtime reported no error.
std::vector<std::string> profile(const std::string& binary, const std::string& tag,
                                 const std::string& options, const std::string& args = "",
                                 int expected_status = 0) {
  ProfiledRun p = run_profiled(binary, tag, options, args);
  EXPECT_EQ(p.result.status, expected_status) << binary << "\n" << p.result.err;
  EXPECT_EQ(p.result.err.find("profkit-memprof: error"), std::string::npos) << p.result.err;
  return std::move(p.files);
}

Contexts profile_one(const Binaries& b, bool ours, const std::string& tag,
                     const std::string& options, const std::string& args = "") {
  const std::string& binary = ours ? b.ours : b.crt;
  const auto files = profile(binary, tag, options, args);
  EXPECT_EQ(files.size(), 1u) << tag;
  if (files.size() != 1) return {};
  return show(binary, files[0]);
}

void expect_same(const Contexts& crt, const Contexts& ours, const std::string& what) {
  std::set<std::string> crt_keys, our_keys;
  for (const auto& [k, v] : crt) crt_keys.insert(k);
  for (const auto& [k, v] : ours) our_keys.insert(k);
  EXPECT_EQ(crt_keys, our_keys) << what;
  EXPECT_FALSE(crt.empty()) << what;
  for (const auto& [k, fields] : crt) {
    auto it = ours.find(k);
    if (it == ours.end()) continue;
    for (const char* f : kCompared)
      EXPECT_EQ(fields.at(f), it->second.at(f)) << what << ": " << k << " field " << f;
  }
}

struct Expected {
  std::string context;
  uint64_t alloc_count, total_access, min_access, max_access, total_size;
};

void expect_counts(const Contexts& got, const std::vector<Expected>& want, const std::string& what) {
  for (const auto& e : want) {
    auto it = got.find(e.context);
    ASSERT_NE(it, got.end()) << what << ": missing context " << e.context;
    const Fields& f = it->second;
    EXPECT_EQ(f.at("AllocCount"), std::to_string(e.alloc_count)) << what << " " << e.context;
    EXPECT_EQ(f.at("TotalAccessCount"), std::to_string(e.total_access)) << what << " " << e.context;
    EXPECT_EQ(f.at("MinAccessCount"), std::to_string(e.min_access)) << what << " " << e.context;
    EXPECT_EQ(f.at("MaxAccessCount"), std::to_string(e.max_access)) << what << " " << e.context;
    EXPECT_EQ(f.at("TotalSize"), std::to_string(e.total_size)) << what << " " << e.context;
  }
}

const Binaries& shlib() {
  static const Binaries* b = [] {
    const std::string dir = profkit::test::work_dir("bin");
    run_ok("clang-22 " + kFlags + " -fPIC -shared " + sh_quote(program("shlib_lib.c")) + " -o " +
           dir + "/libshlib.so");
    return &build("shlib", "shlib_main.c", "", dir + "/libshlib.so -Wl,-rpath," + dir);
  }();
  return *b;
}

// ---- compatibility mode: field-by-field equality with compiler-rt ----------------------

class CompatTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CompatTest, SameContextsAndCountsAsCompilerRt) {
  const std::string source = GetParam();
  const std::string name = source.substr(0, source.find('.'));
  const Binaries& b = name == "shlib_main" ? shlib() : build(name, source);
  const Contexts crt = profile_one(b, false, name + ".crt", "");
  const Contexts ours = profile_one(b, true, name + ".compat", "llvm_compat=1");
  expect_same(crt, ours, name);
}

INSTANTIATE_TEST_SUITE_P(Programs, CompatTest,
                         ::testing::Values("tiny.c", "basic.cpp", "mt.cpp", "realloc_aligned.cpp",
                                           "deep.c", "strings.c", "shlib_main.c",
                                           "copy_offsets.c"));

TEST(Compat, HistogramModeMatchesCompilerRt) {
  // Programs without memset/memcpy: compiler-rt adds intrinsic accesses to the u64 layout
  // even in histogram mode (A.7.4), so those counts depend on its chunk layout; and no
  // threads: compiler-rt's frame-pointer stacks through libc vary with timing.
  for (const char* source : {"tiny.c", "realloc_aligned.cpp"}) {
    const std::string name = std::string(source).substr(0, std::string(source).find('.')) + "_hist";
    const Binaries& b = build(name, source, "-mllvm -memprof-histogram");
    const Contexts crt = profile_one(b, false, name + ".crt", "");
    const Contexts ours = profile_one(b, true, name + ".compat", "llvm_compat=1");
    expect_same(crt, ours, name);
  }
}

TEST(Compat, ExplicitDumpsAndResetMatchCompilerRt) {
  const Binaries& b = build("dump", "dump.cpp");
  for (const char* args_text : {"", "reset"}) {
    const std::string args = args_text;
    const std::string tag = "dump" + args;
    const Contexts crt = profile_one(b, false, tag + ".crt", "", args);
    const Contexts ours = profile_one(b, true, tag + ".compat", "llvm_compat=1", args);
    expect_same(crt, ours, tag);
  }
}

// ---- default mode: the counts the programs' access patterns imply ----------------------

TEST(Default, TinyCounts) {
  const Contexts got = profile_one(build("tiny", "tiny.c"), true, "tiny.default", "");
  expect_counts(got, {{"mk:1:13>main:2:15", 4, 16, 4, 4, 160}}, "tiny");
}

TEST(Default, BasicCounts) {
  const Contexts got = profile_one(build("basic", "basic.cpp"), true, "basic.default", "");
  expect_counts(got,
                {{"_Z11alloc_shortm:1:21>main:3:15", 100, 800, 8, 8, 3200},
                 {"main:8:15", 1, 0, 0, 0, 4096},
                 {"main:11:14", 10, 10, 1, 1, 640},
                 {"main:17:21", 1, 1, 1, 1, 128},
                 {"main:20:15", 1, 1, 1, 1, 256},
                 {"_ZL14inline_wrapperm:1:12>_Z15make_via_inlinem:1:12>main:26:14", 5, 5, 1, 1, 400},
                 {"_Z7recursei:3:9>_Z7recursei:5:9>_Z7recursei:5:9>_Z7recursei:5:9>main:31:13", 1, 1, 1, 1, 48},
                 {"main:35:22", 1, 125, 125, 125, 1000}},
                "basic");
  // Every context of the program is accounted for: nothing else was recorded.
  EXPECT_EQ(got.size(), 8u);
}

TEST(Default, ThreadsAndCrossThreadFrees) {
  const Contexts got = profile_one(build("mt", "mt.cpp"), true, "mt.default", "");
  expect_counts(got,
                {{"_Z6workeri:2:21", 4000, 120000, 30, 30, 480000},
                 {"_Z11make_sharedl:1:21>main:8:45", 500, 1000, 2, 2, 20000},
                 {"_Z11make_sharedl:1:21>main:9:45", 500, 1000, 2, 2, 20000}},
                "mt");
}

TEST(Default, HistogramProfileListsEachContextOnce) {
  // One context with freed blocks (in the thread's table) and live ones (in the dump's
  // table of live blocks). Written as two MIB entries, llvm-profdata 22 merges their
  // equal-length histograms with a double free and crashes (docs/formats/memprof.md B.5),
  // so a histogram profile lists each id once.
  const Binaries& b = build("freed_and_live_hist", "freed_and_live.c", "-mllvm -memprof-histogram");
  const auto files = profile(b.ours, "freed_and_live_hist.default", "");
  ASSERT_EQ(files.size(), 1u);
  const std::string bytes = profkit::test::read_file(files[0]);
  auto profiles = profkit::memprof::read_raw_profiles(profkit::as_bytes(bytes));
  ASSERT_TRUE(profiles.has_value());
  ASSERT_EQ(profiles->size(), 1u);
  std::set<uint64_t> ids;
  for (const auto& m : profiles->front().mibs) EXPECT_TRUE(ids.insert(m.stack_id).second) << m.stack_id;
  const Contexts got = show(b.ours, files[0]);  // llvm-profdata-22 reads it
  ASSERT_TRUE(got.count("mk:1:13>main:2:15")) << "context missing";
  EXPECT_EQ(got.at("mk:1:13>main:2:15").at("AllocCount"), "4");
}

TEST(Default, CrossThreadFreesComeBackWhenTheFreeingThreadExits) {
  // The freeing thread hands blocks back in batches; at its exit it hands back the rest.
  const Binaries& b = build("remote_reuse", "remote_reuse.c");
  const auto r = run("MEMPROF_OPTIONS=log_path=" + profkit::test::work_dir("raw") +
                     "/remote_reuse.raw " + sh_quote(b.ours));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "reused 1000 of 1000\n");
}

TEST(Default, ReallocChainsAndAlignedAllocations) {
  const Contexts got = profile_one(build("realloc_aligned", "realloc_aligned.cpp"), true,
                                   "realloc.default", "");
  expect_counts(got,
                {{"_Z10grow_chainv:1:21>main:1:36", 3, 3, 1, 1, 72},
                 {"_Z10grow_chainv:5:17>main:1:36", 15, 15, 1, 1, 5832},
                 {"main:2:13", 1, 1, 1, 1, 512},     // aligned_alloc
                 {"main:7:7", 1, 1, 1, 1, 104},      // posix_memalign
                 {"main:11:13", 1, 2, 2, 2, 72},     // memalign
                 {"main:16:21", 1, 1, 1, 1, 72},     // operator new(align_val_t)
                 {"main:20:21", 1, 1, 1, 1, 312}},   // valloc
                "realloc_aligned");
  EXPECT_EQ(got.size(), 7u);
}

TEST(Default, LargeReallocAndCallocTouchNoPagesTheProgramDoesNot) {
  // Growing a large block is glibc's realloc (in place, or its pages moved), not a new block
  // and a copy touching every page (which made a 16 MiB growth cost milliseconds); to the
  // profile each step is still a free and an allocation.
  const Binaries& b = build("realloc_large", "realloc_large.c");
  const std::string dir = profkit::test::work_dir("raw");
  const auto r = run("MEMPROF_OPTIONS=" + sh_quote("log_path=" + dir + "/realloc_large.raw") +
                     " " + sh_quote(b.ours) + " 64");  // the full profile's blocks: 64-aligned
  ASSERT_EQ(r.status, 0) << r.err;
  long grown = -1, zeroed = -1;
  std::istringstream(r.out) >> grown >> zeroed;
  EXPECT_TRUE(grown >= 0 && grown < 32) << grown << " MiB made resident by growing 256 MiB by 1 MiB";
  EXPECT_TRUE(zeroed >= 0 && zeroed < 32) << zeroed << " MiB made resident by a 1 GiB calloc";
  const auto files = files_with_prefix(dir, "realloc_large.raw.");
  ASSERT_EQ(files.size(), 1u);
  expect_counts(show(b.ours, files[0]),
                {{"grow_chain:1:13>main:2:36", 3, 3, 1, 1, 3 * 40008},
                 {"grow_chain:6:9>main:2:36", 12, 12 + 9 + 12, 2, 3, 3 * (80008 + 160008 + 320008 + 640008)},
                 {"main:11:13", 1, 1, 1, 1, 256 << 20},
                 {"main:14:7", 1, 1, 1, 1, (256 << 20) + (1 << 20)}},
                "realloc_large");
  // Sampled, big blocks live in the sample range: a resized block's pages move (mremap),
  // and a calloc block is zeroed only where a freed block can have left bytes.
  const auto s = run("MEMPROF_OPTIONS=" +
                     sh_quote("sample_interval=65536:log_path=" + dir + "/realloc_large_sampled.raw") +
                     " " + sh_quote(b.ours));
  ASSERT_EQ(s.status, 0) << s.err;
  std::istringstream(s.out) >> grown >> zeroed;
  EXPECT_TRUE(grown >= 0 && grown < 32) << grown << " MiB made resident by growing 256 MiB, sampled";
  EXPECT_TRUE(zeroed >= 0 && zeroed < 32) << zeroed << " MiB made resident by a 1 GiB calloc, sampled";
  const auto sampled = files_with_prefix(dir, "realloc_large_sampled.raw.");
  ASSERT_EQ(sampled.size(), 1u);
  // A block this large is sampled with probability 1 - exp(-4096): its weight is 1.
  expect_counts(show(b.ours, sampled[0]), {{"main:14:7", 1, 1, 1, 1, (256 << 20) + (1 << 20)}},
                "realloc_large sampled");
}

TEST(Default, FreeingALargeBlockReadsOnlyTheShadowItsAccessesWrote) {
  // A 64 MiB block with six bytes accessed, freed: its counters are summed only on the
  // shadow pages those writes made, and the sum is still exact, in both shadow layouts.
  const Binaries& b = build("big_free", "big_free.c");
  for (const std::string options : {"", "histogram=1"}) {
    const std::string dir = profkit::test::work_dir("raw");
    const std::string prefix = options.empty() ? "big_free.raw" : "big_free_histogram.raw";
    const auto r = run("MEMPROF_OPTIONS=" + sh_quote("log_path=" + dir + "/" + prefix +
                                                      (options.empty() ? "" : ":" + options)) +
                       " " + sh_quote(b.ours));
    ASSERT_EQ(r.status, 0) << r.err;
    long faults = -1;
    std::istringstream(r.out) >> faults;
    EXPECT_TRUE(faults >= 0 && faults < 64) << faults << " page faults freeing a 64 MiB block " << options;
    const auto files = files_with_prefix(dir, prefix + ".");
    ASSERT_EQ(files.size(), 1u);
    expect_counts(show(b.ours, files[0]), {{"main:3:24", 2, 22, 11, 11, 2 * (uint64_t{64} << 20)}},
                  "big_free " + options);
  }
}

TEST(Default, AProgramWithAFewBlocksHoldsNoHugePage) {
  // The stack depot's first 2 MiB and its chains are on small pages: under
  // transparent_hugepage=always the first stack made the kernel zero a 2 MiB page, 8% of
  // the CPU of a process that makes a few blocks and exits (each program a script starts).
  const Binaries& b = build("footprint", "footprint.c");
  for (const std::string options : {"", "sample_interval=1024"}) {
    const auto r = run_profiled(b.ours, "huge_pages", options).result;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find(' ')), "0") << "KiB on huge pages, " << options;
  }
}

TEST(Default, AProgramWithAFewBlocksIsNoLargerThanUnderCompilerRt) {
  // Nothing the runtime holds is touched before it is needed: a dynamic initializer that
  // zeroed the stack depot's 32 MiB id table made every process 32 MiB larger at load.
  // At the end of main (before either runtime writes its profile), our build's resident
  // set is at most compiler-rt's (which maps its own tables: about 4 MiB here).
  const Binaries& b = build("footprint", "footprint.c");
  auto resident_kib = [&](const std::string& binary, const std::string& tag) {
    const auto r = run_profiled(binary, tag, "").result;
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? std::stol(r.out.substr(r.out.find(' ') + 1)) : -1L;
  };
  const long crt = resident_kib(b.crt, "resident-crt");
  const long ours = resident_kib(b.ours, "resident-ours");
  EXPECT_GT(crt, 0);
  EXPECT_GT(ours, 0);
  EXPECT_LE(ours, crt) << "KiB resident at the end of main";
}

TEST(Default, AThousandThreadsAtOnceAreNoLargerThanUnderCompilerRt) {
  // A thread-per-connection shape: every thread's state costs what it touches. Clearing a
  // new state's exact-stack keys touched a page per set, 64 KiB per thread: 150 MB at 1 000
  // threads against compiler-rt's 92 (plain: 10).
  const Binaries& b = build("thread_states", "thread_states.c");
  auto peak_kib = [&](const std::string& binary, const std::string& tag) {
    const auto r = run_profiled(binary, tag, "", "together 1000 peak").result;
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 && r.out.rfind("ok ", 0) == 0 ? std::stol(r.out.substr(3)) : -1L;
  };
  const long crt = peak_kib(b.crt, "threads-crt");
  const long ours = peak_kib(b.ours, "threads-ours");
  EXPECT_GT(crt, 0);
  EXPECT_GT(ours, 0);
  EXPECT_LE(ours, crt) << "peak KiB resident with 1 000 threads alive";
}

TEST(Default, SharedLibraryAndLibcStringAccesses) {
  expect_counts(profile_one(shlib(), true, "shlib.default", ""),
                {{"via_lib:1:13>main:1:36", 5, 10, 2, 2, 520}}, "shlib");
  expect_counts(profile_one(build("strings", "strings.c"), true, "strings.default", ""),
                {{"buffer:1:13>main:3:13", 1, 8, 8, 8, 64},
                 {"copy_text:1:13>main:1:13", 1, 8, 8, 8, 32}},
                "strings");
}

TEST(Default, LibcAccessesCountedInEveryKindOfBlock) {
  // The runtime counts libc's accesses only where its heap map says a block may be: every
  // kind of block must be in it (a block missing there would show 0 accesses).
  expect_counts(profile_one(build("libc_blocks", "libc_blocks.c"), true, "libc_blocks.default", ""),
                {{"inline_header:1:13>main:3:13", 1, 20, 20, 20, 96},
                 {"detached:1:13>main:6:13", 1, 8, 8, 8, 64},
                 {"over_aligned:1:13>main:8:13", 1, 32, 32, 32, 256},
                 {"large:1:13>main:10:13", 1, 8192, 8192, 8192, 65536},
                 {"mapped:1:13>main:12:13", 1, 524288, 524288, 524288, 4194304},
                 {"inline_header:1:13", 1, 12, 12, 12, 96}},
                "libc_blocks");
}

TEST(Default, StackDepthOption) {
  const Binaries& b = build("deep", "deep.c");
  for (int depth : {30, 5}) {
    const Contexts got = profile_one(b, true, "deep" + std::to_string(depth),
                                     "malloc_context_size=" + std::to_string(depth));
    ASSERT_EQ(got.size(), 1u);
    const std::string& key = got.begin()->first;
    EXPECT_EQ(std::count(key.begin(), key.end(), '>') + 1, depth) << key;
    EXPECT_EQ(key.rfind("rec:2:21>rec:2:46", 0), 0u) << key;
  }
}

TEST(Default, ForkedChildWritesItsOwnProfile) {
  const Binaries& b = build("fork", "fork.c");
  const auto files = profile(b.ours, "fork.default", "");
  ASSERT_EQ(files.size(), 2u);
  bool saw_parent = false, saw_child = false;
  for (const auto& f : files) {
    const Contexts got = show(b.ours, f);
    if (got.count("child_site:0:82>main:4:38")) {
      saw_child = true;
      expect_counts(got, {{"child_site:0:82>main:4:38", 3, 6, 2, 2, 72}}, "child");
      EXPECT_EQ(got.size(), 1u) << "the child must not repeat the parent's data";
    } else {
      saw_parent = true;
      expect_counts(got, {{"parent_site:0:83>main:1:8", 1, 1, 1, 1, 48},
                          {"parent_site:0:83>main:1:31", 1, 1, 1, 1, 48},
                          {"parent_site:0:83>main:9:8", 1, 1, 1, 1, 48}}, "parent");
      // main:1:30 is live at the fork and freed by the child: the parent reports it (live
      // at its exit), the child does not (a merge of both profiles counts it once).
      EXPECT_EQ(got.size(), 3u);
    }
  }
  EXPECT_TRUE(saw_parent && saw_child);
}

TEST(Default, DumpsAreCompleteSnapshotsAndResetStartsANewFile) {
  const Binaries& b = build("dump", "dump.cpp");
  // Without reset: one file holding every phase exactly once.
  auto files = profile(b.ours, "dump.default", "");
  ASSERT_EQ(files.size(), 1u);
  Contexts got = show(b.ours, files[0]);
  expect_counts(got, {{"_Z5phaseim:2:23>main:1:3", 3, 3, 1, 1, 72},
                      {"_Z5phaseim:2:23>main:3:3", 5, 5, 1, 1, 120},
                      {"_Z5phaseim:2:23>main:6:3", 2, 2, 1, 1, 144}}, "dump");
  // With reset: the first file ends the first round, the second holds the rest.
  files = profile(b.ours, "dump.reset", "", "reset");
  ASSERT_EQ(files.size(), 2u);
  got = show(b.ours, files[0]);
  expect_counts(got, {{"_Z5phaseim:2:23>main:1:3", 3, 3, 1, 1, 72},
                      {"_Z5phaseim:2:23>main:3:3", 5, 5, 1, 1, 120}}, "round 0");
  EXPECT_EQ(got.count("_Z5phaseim:2:23>main:6:3"), 0u);
  got = show(b.ours, files[1]);
  expect_counts(got, {{"_Z5phaseim:2:23>main:6:3", 2, 2, 1, 1, 144}}, "round 1");
  EXPECT_EQ(got.count("_Z5phaseim:2:23>main:1:3"), 0u);
}

TEST(Default, DumpOnChosenSignal) {
  const Binaries& b = build("signal", "signal.c");
  const auto files = profile(b.ours, "signal", "dump_signal=28", "", 3);
  ASSERT_EQ(files.size(), 1u);
  expect_counts(show(b.ours, files[0]), {{"before_signal:1:43>main:1:3", 7, 7, 1, 1, 280}},
                "signal");
}

TEST(Default, SameContextsOnEveryRun) {
  // libstdc++'s own functions have no frame pointers; unwind tables keep stacks whole.
  const Binaries& b = build("stable", "stable.cpp");
  std::set<std::string> first;
  for (int i = 0; i < 2; ++i) {
    const Contexts got = profile_one(b, true, "stable" + std::to_string(i), "");
    std::set<std::string> keys;
    for (const auto& [k, v] : got) keys.insert(k);
    EXPECT_GE(keys.size(), 5u);
    if (i == 0)
      first = keys;
    else
      EXPECT_EQ(first, keys);
  }
}

TEST(Default, OwnUnwinderGivesLibunwindsStacks) {
  // The runtime's cached .eh_frame walker against libunwind's unw_backtrace, through
  // libstdc++ frames (no frame pointers): same contexts, same counts.
  const Binaries& b = build("stable", "stable.cpp");
  const Contexts own = profile_one(b, true, "unwind-own", "");
  const Contexts libunwind = profile_one(b, true, "unwind-libunwind", "use_libunwind=1");
  EXPECT_GE(own.size(), 5u);
  // grow(5): 63 nodes, each a distinct path of left/right calls, allocating twice.
  size_t grown = 0;
  for (const auto& [k, v] : own) grown += k.find("_Z4growil") != std::string::npos;
  EXPECT_EQ(grown, 126u);
  expect_same(libunwind, own, "own walker vs libunwind");
}

TEST(Default, OwnUnwinderGivesLibunwindsStacksInDeepRecursion) {
  // Walks one frame deeper or shallower each time, cut at the depth limit, with a memo that
  // outgrows its buffer at 200 frames and grows outward in it on the way back up: every
  // context and count as libunwind gives them.
  const Binaries& b = build("deep_walk", "deep_walk.c");
  for (const std::string depth : {"", "malloc_context_size=200"}) {
    const std::string sep = depth.empty() ? "" : ":";
    const Contexts own = profile_one(b, true, "deep-walk-own" + depth, depth);
    const Contexts libunwind =
        profile_one(b, true, "deep-walk-libunwind" + depth, depth + sep + "use_libunwind=1");
    EXPECT_GE(own.size(), 30u) << depth;
    expect_same(libunwind, own, "deep recursion, own walker vs libunwind " + depth);
    // The stack hash the walker derives from its memo (a window of its steps) is the one
    // the depot computes from the frames: else the depot would hold a stack twice, under
    // two ids, which llvm-profdata merges back into one context.
    const auto files = profile(b.ours, "deep-walk-ids" + depth, depth);
    ASSERT_EQ(files.size(), 1u);
    const std::string bytes = profkit::test::read_file(files[0]);
    auto profiles = profkit::memprof::read_raw_profiles(profkit::as_bytes(bytes));
    ASSERT_TRUE(profiles.has_value());
    ASSERT_EQ(profiles->size(), 1u);
    std::set<std::vector<uint64_t>> stacks;
    for (const auto& s : profiles->front().stacks)
      EXPECT_TRUE(stacks.insert(std::vector<uint64_t>(s.pcs.begin(), s.pcs.end())).second)
          << depth << ": stack " << s.stack_id << " is in the depot twice";
  }
}

// The number the atexit=1 statistics print before " <what>" (~0 when they do not).
uint64_t printed_stat(const std::string& err, const std::string& what) {
  const size_t at = err.find(" " + what);
  if (at == std::string::npos || at == 0) return ~uint64_t{0};
  const size_t from = err.rfind(' ', at - 1) + 1;
  return std::stoull(err.substr(from, at - from));
}

// Runs our build of `b` with atexit=1 statistics: its stderr and its one profile's contexts.
struct StatsRun {
  std::string err;
  Contexts contexts;
};
StatsRun run_with_stats(const Binaries& b, const std::string& tag) {
  const std::string dir = profkit::test::work_dir("raw");
  const auto r = run("MEMPROF_OPTIONS=atexit=1:log_path=" + dir + "/" + tag + ".raw " + sh_quote(b.ours));
  EXPECT_EQ(r.status, 0) << r.err;
  const auto files = files_with_prefix(dir, tag + ".raw.");
  EXPECT_EQ(files.size(), 1u);
  return {r.err, files.size() == 1 ? show(b.ours, files[0]) : Contexts{}};
}

// The contexts from a frame of `first`* down to main, each expected with `allocs` allocations.
size_t contexts_to_main(const Contexts& got, const std::string& first, const std::string& allocs) {
  size_t n = 0;
  for (const auto& [k, f] : got) {
    if (k.rfind(first, 0) != 0 || k.find(">main:") == std::string::npos) continue;
    ++n;
    EXPECT_EQ(f.at("AllocCount"), allocs) << k;
  }
  return n;
}

// Every stack of a raw profile with its allocation count, each frame as "build id+offset in
// the object" (so two runs under ASLR compare), frames outside every segment as "?".
std::map<std::vector<std::string>, uint64_t> raw_stacks(const std::string& file) {
  const std::string bytes = profkit::test::read_file(file);
  auto profiles = profkit::memprof::read_raw_profiles(profkit::as_bytes(bytes));
  std::map<std::vector<std::string>, uint64_t> out;
  if (!profiles.has_value() || profiles->size() != 1) {
    ADD_FAILURE() << file << " is not one raw profile";
    return out;
  }
  const auto& p = profiles->front();
  std::map<uint64_t, uint64_t> allocs;
  for (const auto& m : p.mibs) allocs[m.stack_id] += m.mib.AllocCount;
  for (const auto& s : p.stacks) {
    std::vector<std::string> frames;
    for (const uint64_t pc : s.pcs) {
      std::string frame = "?";
      for (const auto& seg : p.segments)
        if (pc >= seg.start && pc < seg.end) {
          std::ostringstream text;
          for (const uint8_t b : seg.build_id) text << std::hex << int{b};
          text << "+" << std::hex << pc - seg.offset;
          frame = text.str();
        }
      frames.push_back(frame);
    }
    out[frames] += allocs[s.stack_id];
  }
  return out;
}

TEST(Default, FiberStacksAreWalkedAsLibunwindWalksThem) {
  // Allocations on coroutine stacks (makecontext: one malloc'd, one mmap'd) are outside the
  // thread's own stack, so each used to be left to libunwind (46% of such a program's run);
  // the runtime's walker follows them now, to the function makecontext returns to, and
  // gives libunwind's frames, down to that last one (not in the program: compared raw).
  const Binaries& b = build("fiber_stacks", "fiber_stacks.c");
  const StatsRun own = run_with_stats(b, "fiber-own");
  EXPECT_EQ(printed_stat(own.err, "left to libunwind"), 0u) << own.err;
  EXPECT_GE(printed_stat(own.err, "walks on other stacks"), 6000u) << own.err;
  const auto libunwind = profile(b.ours, "fiber-libunwind", "use_libunwind=1");
  const auto own_files = files_with_prefix(profkit::test::work_dir("raw"), "fiber-own.raw.");
  ASSERT_EQ(libunwind.size(), 1u);
  ASSERT_EQ(own_files.size(), 1u);
  const auto want = raw_stacks(libunwind[0]);
  EXPECT_EQ(raw_stacks(own_files[0]), want);
  // Two fibers x 4 depths, and main's calls.
  uint64_t fiber_allocs = 0;
  for (const auto& [k, v] : own.contexts)
    if (k.find("fiber_main") != std::string::npos) fiber_allocs += std::stoull(v.at("AllocCount"));
  EXPECT_EQ(fiber_allocs, 6000u);
}

// plugin.c built twice (once, for the whole test binary), with 4 KiB and 8 KiB frames in
// entry() and no frame pointers: the same code at the same offsets under other frame rules.
const std::pair<std::string, std::string>& plugins() {
  static const std::pair<std::string, std::string> built = [] {
    const std::string dir = profkit::test::work_dir("bin");
    const std::string a = dir + "/plugin_a.so", b = dir + "/plugin_b.so";
    for (const auto& [frame, so] : {std::pair{"4096", a}, std::pair{"8192", b}})
      run_ok("clang-22 -O2 -g -fPIC -shared -fomit-frame-pointer -DFRAME=" + std::string(frame) +
             " " + sh_quote(program("plugin.c")) + " -o " + sh_quote(so));
    return std::pair{a, b};
  }();
  return built;
}

TEST(Default, APluginLoadedWhereAnUnloadedOneWasGetsItsOwnFrames) {
  // dlclose, then a dlopen that puts another library where the first one was: the return
  // addresses the walkers know now run other code (here: entry()'s frame, 4 KiB in one
  // build and 8 KiB in the other, without frame pointers). Rules, memos and whole walks
  // from before the dlclose gave the second plugin's allocations the first one's frame
  // sizes (a return address read from inside the 8 KiB frame, and a stack ending there),
  // and so did libunwind's cache. The stack through the second plugin must be the one a
  // run that never loaded the first gives, with either walker.
  const Binaries& host = build("plugin_host", "plugin_host.c", "", "-ldl");
  const auto& [a, b] = plugins();
  auto stacks_of = [&](const std::string& tag, const std::string& options,
                       const std::string& first) {
    const ProfiledRun p =
        run_profiled(host.ours, tag, options, sh_quote(first) + " " + sh_quote(b));
    EXPECT_EQ(p.result.status, 0) << p.result.err;
    EXPECT_EQ(p.files.size(), 1u) << tag;
    return std::pair{p.result.err, p.files.size() == 1
                                       ? raw_stacks(p.files[0])
                                       : std::map<std::vector<std::string>, uint64_t>{}};
  };
  for (const std::string options : {"", "use_libunwind=1"}) {
    const std::string walker = options.empty() ? "own" : "libunwind";
    const auto [alone_err, alone] = stacks_of("plugin-alone-" + walker, options, "-");
    const auto [both_err, both] = stacks_of("plugin-both-" + walker, options, a);
    // The second plugin went where the first one was (else nothing here is tested).
    const size_t first_at = both_err.find("entry at ");
    ASSERT_NE(first_at, std::string::npos) << both_err;
    const std::string where = both_err.substr(first_at, both_err.find('\n', first_at) - first_at);
    ASSERT_NE(both_err.find(where, first_at + 1), std::string::npos) << both_err;
    // The 1000 allocations through the second plugin: one stack, the same in both runs.
    std::vector<std::string> through_b;
    for (const auto& [frames, allocs] : alone)
      if (allocs == 1000) through_b = frames;
    ASSERT_FALSE(through_b.empty()) << walker << ": no stack with 1000 allocations";
    EXPECT_GE(through_b.size(), 4u);
    const auto it = both.find(through_b);
    EXPECT_TRUE(it != both.end() && it->second == 1000u)
        << walker << ": the second plugin's allocations have other stacks after the first's";
  }
}

TEST(Default, WalksStayRightWhileAnotherThreadUnloadsCode) {
  // Four threads allocate through a plugin that stays loaded while the main thread loads,
  // uses and unloads the other one 3,000 times: each unload makes every thread drop its
  // rules and walks, and frees the shared table's slots for the next generation while
  // threads read it. Every one of the workers' allocations keeps its one stack: exactly two
  // stacks (through the plugin, and direct) with as many allocations as the workers made.
  const Binaries& host = build("plugin_race", "plugin_race.c", "", "-ldl");
  const auto& [a, b] = plugins();
  const ProfiledRun p =
      run_profiled(host.ours, "plugin_race", "", sh_quote(b) + " " + sh_quote(a));
  ASSERT_EQ(p.result.status, 0) << p.result.err;
  const uint64_t total = std::stoull(p.result.out);
  EXPECT_GT(total, 0u);
  ASSERT_EQ(p.files.size(), 1u);
  size_t with_total = 0;
  for (const auto& [frames, allocs] : raw_stacks(p.files[0])) with_total += allocs == total;
  EXPECT_EQ(with_total, 2u) << total << " iterations";
}

TEST(Default, RulesOfManyCallSitesAreComputedOnce) {
  // 4096 sites called in turn outgrow a thread's frame-rule cache: each rule is computed
  // from the unwind tables once and then found in the process's shared table (every call
  // recomputed it before, 81,920 times, a third of the run), with every context right.
  const StatsRun r = run_with_stats(build("many_sites", "many_sites.c"), "sites");
  const uint64_t computed = printed_stat(r.err, "rules computed");
  EXPECT_GE(computed, 4096u) << r.err;
  EXPECT_LE(computed, 4096u + 64) << r.err;
  EXPECT_EQ(contexts_to_main(r.contexts, "f", "20"), 4096u);
}

TEST(Default, PathsThroughOneWrapperAreAnsweredByTheExactStackCache) {
  // 96 callers of one allocation wrapper, in a scrambled order: with the exact-stack cache's
  // set chosen by the wrapper's registers alone, its 8 ways held 8 of the paths and nearly
  // every capture walked the stack (and, missing that often, stopped probing). The set
  // then also depended on the wrapper's caller, but with one set per path some set got more
  // paths than ways in 1 run of 20 with 48 callers (by where the program was loaded) and in
  // most runs with 96; each walk now has two sets and goes to the roomier one. Every
  // context stays right.
  const StatsRun r = run_with_stats(build("wrapper_callers", "wrapper_callers.c"), "wrapper");
  const uint64_t captures = printed_stat(r.err, "walker captures");
  const uint64_t hits = printed_stat(r.err, "exact-cache hits");
  ASSERT_NE(captures, ~uint64_t{0}) << r.err;
  ASSERT_NE(hits, ~uint64_t{0}) << r.err;
  EXPECT_GE(captures, 96000u) << r.err;
  EXPECT_GE(hits, captures * 95 / 100) << r.err;
  EXPECT_EQ(contexts_to_main(r.contexts, "xalloc", "1000"), 96u);
}

TEST(Default, StressThreadsSignalsForkExitHooks) {
  const Binaries& b = build("stress", "stress.cpp");
  const std::string dir = profkit::test::work_dir("raw");
  const auto r = run("MEMPROF_OPTIONS=log_path=" + dir + "/stress.raw " + sh_quote(b.ours));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
  EXPECT_EQ(r.err, "");
  const auto files = files_with_prefix(dir, "stress.raw.");
  ASSERT_EQ(files.size(), 1u);  // the exec'd child is not profiled (no runtime linked)
  const Contexts got = show(b.ours, files[0]);
  uint64_t produced = 0;
  bool saw_atexit = false, saw_tls = false;
  for (const auto& [k, f] : got) {
    if (k.rfind("_Z7producei:", 0) == 0) produced += std::stoull(f.at("AllocCount"));
    if (k.rfind("_Z9in_atexitv:", 0) == 0) saw_atexit = true;
    if (k.find("_ZN8TlsThingD2Ev") != std::string::npos) saw_tls = true;
  }
  EXPECT_EQ(produced, 10000000u);
  EXPECT_TRUE(saw_atexit) << "allocation in an atexit handler";
  EXPECT_TRUE(saw_tls) << "allocation in a thread_local destructor";
}

// ---- profile use: llvm-profdata merge, then clang -fmemory-profile-use --------------------

TEST(ProfileUse, SameIrAsFromCompilerRtProfile) {
  // ctx.cpp: one new[] site under a cold caller (3 x 4 KiB living 100 ms, untouched) and a
  // hot caller; the whole IR built with either runtime's profile must be identical (the
  // !memprof/!callsite metadata and the "memprof" attributes included), in both modes.
  const Binaries& b = build("ctx", "ctx.cpp");
  const std::string dir = profkit::test::work_dir("use");
  std::string ir[3];
  const char* const variants[] = {"crt", "ours", "compat"};
  for (int i = 0; i < 3; ++i) {
    const bool ours = i > 0;
    const std::string binary = ours ? b.ours : b.crt;
    const auto files = profile(binary, std::string("ctx.") + variants[i], i == 2 ? "llvm_compat=1" : "");
    ASSERT_EQ(files.size(), 1u);
    const std::string prof = dir + "/" + variants[i] + ".memprofdata";
    const std::string ll = dir + "/" + variants[i] + ".ll";
    run_ok("llvm-profdata-22 merge --profiled-binary=" + sh_quote(binary) + " " +
           sh_quote(files[0]) + " -o " + prof);
    run_ok("clang++-22 -g -O1 -fmemory-profile-use=" + prof +
           " -mllvm -memprof-ave-lifetime-cold-threshold=0 -S -emit-llvm " +
           sh_quote(program("ctx.cpp")) + " -o " + ll);
    ir[i] = profkit::test::read_file(ll);
  }
  EXPECT_NE(ir[0].find("!\"cold\""), std::string::npos);
  EXPECT_NE(ir[0].find("!\"notcold\""), std::string::npos);
  EXPECT_EQ(ir[0], ir[1]);
  EXPECT_EQ(ir[0], ir[2]);
}

// ---- linking, other compilers, options, errors -------------------------------------------

TEST(Linking, StaticArchiveAndClang14Objects) {
  const std::string dir = profkit::test::work_dir("bin");
  const std::string rt = runtime_dir();
  run_ok("clang-22 " + kFlags + " -c " + sh_quote(program("tiny.c")) + " -o " + dir + "/tiny_a.o");
  run_ok("clang-22 " + dir + "/tiny_a.o -o " + dir + "/tiny.static -Wl,--whole-archive " + rt +
         "/libprofkit_memprof.a -Wl,--no-whole-archive -lunwind -ldl -lpthread");
  run_ok("clang-14 " + kFlags + " -c " + sh_quote(program("tiny.c")) + " -o " + dir + "/tiny14.o");
  run_ok("clang-14 " + dir + "/tiny14.o -o " + dir + "/tiny14.ours " + rt +
         "/libprofkit_memprof.so -Wl,-rpath," + rt);
  for (const std::string& bin : {dir + "/tiny.static", dir + "/tiny14.ours"}) {
    const auto files = profile(bin, bin.substr(bin.rfind('/') + 1), "");
    ASSERT_EQ(files.size(), 1u);
    expect_counts(show(bin, files[0]), {{"mk:1:13>main:2:15", 4, 16, 4, 4, 160}}, bin);
  }
}

// The runtime loads no C++ library: a C program would pay for loading libstdc++ at every
// start (about 0.65 ms; a script under `profkit run` starts hundreds of programs). A C++
// program's new-handler and bad_alloc still work, through weak references, whether the
// runtime is linked or preloaded.
TEST(Linking, NoCxxLibraryIsLoadedAndNewHandlersStillRun) {
  const auto needed = run_ok("readelf -d " + runtime_dir() + "/libprofkit_memprof.so");
  EXPECT_EQ(needed.out.find("libstdc++"), std::string::npos) << needed.out;
  EXPECT_EQ(needed.out.find("libm.so"), std::string::npos) << needed.out;
  const Binaries& b = build("new_handler", "new_handler.cpp");
  const std::string dir = profkit::test::work_dir("raw");
  const std::string plain = dir + "/new_handler.plain";
  run_ok("clang++-22 -O1 " + sh_quote(program("new_handler.cpp")) + " -o " + plain);
  for (const std::string& cmd :
       {sh_quote(b.ours), "LD_PRELOAD=" + runtime_dir() + "/libprofkit_memprof.so " + plain}) {
    const auto r = run("MEMPROF_OPTIONS=log_path=" + dir + "/nh.raw " + cmd);
    EXPECT_EQ(r.status, 0) << cmd << "\n" << r.err;
    EXPECT_EQ(r.out, "bad_alloc after 3 handler calls\n") << cmd;
  }
  // A C program whose C++ plugin (and so libstdc++) is loaded with RTLD_LOCAL: the runtime
  // finds the plugin's libstdc++ when an operator new fails.
  const std::string plugin = dir + "/libdlopen_cxx.so";
  run_ok("clang++-22 -O1 -fPIC -shared " + sh_quote(program("dlopen_cxx_lib.cpp")) + " -o " + plugin);
  const Binaries& c = build("dlopen_cxx", "dlopen_cxx_main.c", "", "-ldl");
  const auto r = run("MEMPROF_OPTIONS=log_path=" + dir + "/nh.raw " + sh_quote(c.ours) + " " + plugin);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "bad_alloc after 2 handler calls\n") << r.err;
}

TEST(Options, BadOptionsGiveOneLineErrorsAndTheProgramRuns) {
  const Binaries& b = build("tiny", "tiny.c");
  const std::string dir = profkit::test::work_dir("raw");
  const auto r = run("MEMPROF_OPTIONS='bogus=1:malloc_context_size=abc:print_text:log_path=" + dir +
                     "/opts.raw' " + sh_quote(b.ours));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err,
            "profkit-memprof: error: MEMPROF_OPTIONS: unknown option 'bogus' (ignored)\n"
            "profkit-memprof: error: MEMPROF_OPTIONS: invalid value for int option "
            "'malloc_context_size'\n"
            "profkit-memprof: error: MEMPROF_OPTIONS: malformed option (expected name=value) "
            "'print_text'\n");
  EXPECT_EQ(files_with_prefix(dir, "opts.raw.").size(), 1u);
}

TEST(Options, TerseTextOutput) {
  const Binaries& b = build("tiny", "tiny.c");
  const auto r = run("MEMPROF_OPTIONS=print_terse=1:log_path=stdout " + sh_quote(b.ours));
  EXPECT_EQ(r.status, 0);
  // MIB:<id>/<count>/<avesize>/<min>/<max>/<aveaccess>/<min>/<max>/...
  EXPECT_NE(r.out.find("/4/40.00/40/40/4.00/4/4/"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind("MIB:", 0), 0u) << r.out;
}

TEST(Errors, FailedWriteIsReportedAndExitStatusKept) {
  const Binaries& b = build("tiny", "tiny.c");
  const auto r = run("MEMPROF_OPTIONS=log_path=/proc/self/no/such/dir/p " + sh_quote(b.ours));
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("profkit-memprof: error: cannot create '/proc/self/no/such/dir/p."),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(Runtime, NoCxxLibraryOrStdioOnTheAllocationPath) {
  const auto r = run_ok("nm -u " + runtime_dir() + "/libprofkit_memprof.a");
  for (const char* forbidden : {"_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "__cxa_guard", "printf",
                                "fopen", "fwrite", "__cxa_throw", "_ZNSt"})
    EXPECT_EQ(r.out.find(forbidden), std::string::npos) << forbidden << "\n" << r.out;
  // Only ABI symbols are exported from the shared library.
  const auto d = run_ok("nm -D --defined-only " + runtime_dir() + "/libprofkit_memprof.so");
  EXPECT_EQ(d.out.find("profkit"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("__memprof_shadow_memory_dynamic_address"), std::string::npos);
}

// ---- allocation-only mode ------------------------------------------------------------

TEST(AllocationOnly, ProfkitRunOnAGccBuiltProgram) {
  const std::string dir = profkit::test::work_dir("alloc_only");
  const std::string bin = dir + "/alloc_only";
  run_ok("g++ -g -O1 -fno-omit-frame-pointer " + sh_quote(program("alloc_only.cpp")) + " -o " + bin);
  const std::string out = dir + "/prof.raw";
  const auto r = run(sh_quote(profkit::test::profkit_bin()) + " run --output " + out + " -- " + bin);
  EXPECT_EQ(r.status, 7) << r.err;
  EXPECT_EQ(r.out, "alloc-only done\n");
  // The program's own stderr is empty: only profkit's summary line is there.
  EXPECT_EQ(r.err, "profkit run: 1 profile written: " + out + "\n");
  const Contexts got = show(bin, out);
  expect_counts(got, {{"_Z10make_blockm:1:24>main:1:40", 6, 0, 0, 0, 240},
                      {"_Z10make_blockm:1:24>main:2:26", 1, 0, 0, 0, 1000}}, "alloc-only");
  bool saw_string = false;
  for (const auto& [k, f] : got)
    if (k.rfind("main:", 0) == 0 && f.at("TotalSize") == "32") saw_string = true;
  EXPECT_TRUE(saw_string) << "operator new of the std::string";
}

// `profkit run` preloads the build of the runtime that replaces no libc function into a
// program without instrumented code (every replaced memcpy or strcmp was a jump through the
// runtime), and the full one into an instrumented program, whose libc accesses must still
// be counted: the counts of strings.c are those of running it directly.
TEST(AllocationOnly, ProfkitRunPreloadsTheRuntimeTheProgramNeeds) {
  const std::string dir = profkit::test::work_dir("alloc_only");
  const std::string profkit = sh_quote(profkit::test::profkit_bin());
  const auto maps = run(profkit + " run --output " + dir + "/cat.raw -- cat /proc/self/maps");
  ASSERT_EQ(maps.status, 0) << maps.err;
  EXPECT_NE(maps.out.find("/lib/preload/libprofkit_memprof.so"), std::string::npos) << maps.out;
  const auto exports = run("nm -D --defined-only " +
                           sh_quote(runtime_dir() + "/preload/libprofkit_memprof.so"));
  ASSERT_EQ(exports.status, 0) << exports.err;
  for (const char* name : {" memcpy\n", " strcpy\n", " strlen\n", " memcmp\n"})
    EXPECT_EQ(exports.out.find(name), std::string::npos) << name;
  EXPECT_NE(exports.out.find(" malloc\n"), std::string::npos);

  const Binaries& b = build("strings", "strings.c");
  const std::string out = dir + "/strings.raw";
  const auto r = run(profkit + " run --output " + out + " -- " + sh_quote(b.ours));
  ASSERT_EQ(r.status, 0) << r.err;
  expect_counts(show(b.ours, out),
                {{"buffer:1:13>main:3:13", 1, 8, 8, 8, 64},
                 {"copy_text:1:13>main:1:13", 1, 8, 8, 8, 32}},
                "strings under profkit run");
}

}  // namespace
