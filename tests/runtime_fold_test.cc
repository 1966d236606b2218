// fold_recursion end to end: recursive_fold.cpp (a three-function recursion and a direct
// one, allocating at every level, entered at every depth below 60) profiled by the runtime
// with and without folding, read back by llvm-profdata-22, and the folded profile used by
// clang-22 -fmemory-profile-use.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "tests/support/harness.h"
#include "tests/support/memprof_show.h"

namespace {

using profkit::test::run;
using profkit::test::run_ok;
using profkit::test::sh_quote;

using Contexts = profkit::test::MemProfContexts;

using profkit::test::runtime_dir;
std::string source() {
  return profkit::test::source_path("tests/programs/runtime/recursive_fold.cpp");
}

// The program compiled with -fmemory-profile and linked (without it, which would pull in
// compiler-rt's runtime) with ours, once.
const std::string& instrumented() {
  static const std::string binary = [] {
    const std::string object = profkit::test::build_once(
        "recursive_fold.o", "clang++-22 -g -O1 -fmemory-profile -fno-omit-frame-pointer -c " +
                                sh_quote(source()) + " -o %o");
    return profkit::test::build_once("recursive_fold", "clang++-22 " + object + " -o %o " +
                                                           runtime_dir() + "/libprofkit_memprof.so -Wl,-rpath," +
                                                           runtime_dir());
  }();
  return binary;
}

// Runs the instrumented program with MEMPROF_OPTIONS; the raw profile's path.
std::string profile(const std::string& tag, const std::string& options) {
  const std::string path = profkit::test::work_dir("raw") + "/" + tag + ".raw";
  const auto r = run("MEMPROF_OPTIONS=" + sh_quote("output=" + path + ":" + options) + " " +
                     sh_quote(instrumented()));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "done\n");
  EXPECT_EQ(r.err, "") << tag;
  return path;
}

uint64_t total(const Contexts& contexts, const char* field) {
  uint64_t sum = 0;
  for (const auto& [key, fields] : contexts) sum += std::stoull(fields.at(field));
  return sum;
}

// The recursion's contexts (a, b, c, d: not the C library's buffers, which a frame-pointer
// walk cannot follow through libc) -> "AllocCount TotalSize" (timestamps and lifetimes
// differ from run to run).
std::map<std::string, std::string> counts(const Contexts& contexts) {
  std::map<std::string, std::string> out;
  for (const auto& [key, fields] : contexts)
    if (key.rfind("_Z1", 0) == 0) out[key] = fields.at("AllocCount") + " " + fields.at("TotalSize");
  return out;
}

TEST(FoldRecursion, RecursionLandsInABoundedNumberOfContextsWithTheSameTotals) {
  const std::string& bin = instrumented();
  const Contexts unfolded =
      profkit::test::llvm_memprof_show(bin, profile("unfolded", "malloc_context_size=255"));
  const Contexts folded = profkit::test::llvm_memprof_show(
      bin, profile("folded", "malloc_context_size=255:fold_recursion=1"));
  // Unfolded: each of the four sites at each level from each root, about 8 x 60.
  EXPECT_GE(unfolded.size(), 400u);
  // Folded: per site and root, the outermost level and any deeper one (2 x 4 x 2 = 16),
  // plus what the C++ library allocates.
  EXPECT_LE(folded.size(), 20u);
  EXPECT_GE(folded.size(), 16u);
  for (const char* field : {"AllocCount", "TotalSize"})
    EXPECT_EQ(total(folded, field), total(unfolded, field)) << field;
  for (const auto& [key, n] : counts(folded))
    EXPECT_NE(key.find(">main:"), std::string::npos) << "the recursion's caller is kept: " << key;

  // The depth limit applies after folding: the default 30 cuts none of these stacks, while
  // unfolded stacks 180 frames deep would lose main.
  const Contexts folded30 =
      profkit::test::llvm_memprof_show(bin, profile("folded30", "fold_recursion=1"));
  EXPECT_EQ(counts(folded30), counts(folded)) << "folded at the default depth";

  // Removing every cycle also merges b's and c's outermost level with the deeper ones (in
  // b > a > c > b > a > cold_root the cycle a > c > b > a goes too): each frame once.
  const Contexts cycles = profkit::test::llvm_memprof_show(
      bin, profile("cycles", "malloc_context_size=255:fold_recursion=2"));
  EXPECT_GE(counts(cycles).size(), 12u);
  EXPECT_LT(counts(cycles).size(), counts(folded).size());
  for (const char* field : {"AllocCount", "TotalSize"})
    EXPECT_EQ(total(cycles, field), total(unfolded, field)) << field;
  for (const auto& [key, n] : counts(cycles)) {
    std::set<std::string> frames;
    size_t from = 0, count = 0;
    for (size_t to; from <= key.size(); from = to + 1, ++count) {
      to = std::min(key.find('>', from), key.size());
      frames.insert(key.substr(from, to - from));
    }
    EXPECT_EQ(frames.size(), count) << "a frame twice: " << key;
  }

  // Every way of walking folds the same stacks: the walker's memo replays must return
  // folded ids only (a replayed unfolded id would add a context).
  for (const std::string walk : {"use_libunwind=1", "fast_unwind_on_malloc=1"}) {
    const Contexts other = profkit::test::llvm_memprof_show(
        bin, profile("folded-" + walk.substr(0, walk.find('=')), "fold_recursion=1:" + walk));
    EXPECT_EQ(counts(other), counts(folded)) << walk;
  }

  // The walks of a recursion repeat unfolded stacks, whose folded ids the runtime keeps
  // instead of folding them again: most walks are answered so (a cache answering wrong shows
  // above, as contexts other than libunwind's and frame pointers').
  const auto stats = run("MEMPROF_OPTIONS=" +
                         sh_quote("output=" + profkit::test::work_dir("raw") +
                                  "/stats.raw:malloc_context_size=255:fold_recursion=2:atexit=1") +
                         " " + sh_quote(bin));
  ASSERT_EQ(stats.status, 0) << stats.err;
  std::smatch walks, hits;
  ASSERT_TRUE(std::regex_search(stats.err, walks, std::regex(" ([0-9]+) walks \\(")));
  ASSERT_TRUE(std::regex_search(stats.err, hits, std::regex(" ([0-9]+) folded ids from the fold cache")));
  EXPECT_GT(std::stoull(hits[1]) * 2, std::stoull(walks[1])) << stats.err;
}

TEST(FoldRecursion, AValueOutOfRangeIsOneLineAndNoFolding) {
  const std::string path = profkit::test::work_dir("bad") + "/bad.raw";
  const auto r = run("MEMPROF_OPTIONS=" +
                     sh_quote("output=" + path + ":malloc_context_size=255:fold_recursion=3") +
                     " " + sh_quote(instrumented()));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "done\n");
  EXPECT_EQ(r.err,
            "profkit-memprof: error: MEMPROF_OPTIONS: fold_recursion must be 0, 1 or 2, using 0 "
            "for 'fold_recursion'\n");
  EXPECT_GE(profkit::test::llvm_memprof_show(instrumented(), path).size(), 400u);
}

TEST(FoldRecursion, ReachableFromProfkitRun) {
  const std::string plain = profkit::test::build_once(
      "recursive_fold.plain", "clang++-22 -g -O1 " + sh_quote(source()) + " -o %o");
  const std::string path = profkit::test::work_dir("run") + "/run.raw";
  run_ok(sh_quote(profkit::test::profkit_bin()) + " run --options=fold_recursion=1 --output " +
         path + " -- " + sh_quote(plain));
  const Contexts folded = profkit::test::llvm_memprof_show(plain, path);
  EXPECT_LE(folded.size(), 20u);
  EXPECT_GE(folded.size(), 16u);
}

// The !memprof MIBs clang attaches to each `new char[N]` call: N -> {"cold": k, "notcold": m}.
std::map<std::string, std::map<std::string, int>> mibs_by_size(const std::string& ir) {
  std::map<std::string, std::string> metadata;
  const std::regex node(R"(^(![0-9]+) = (?:distinct )?(!\{.*\})$)");
  size_t at = 0;
  while (at < ir.size()) {
    const size_t end = std::min(ir.find('\n', at), ir.size());
    std::smatch m;
    const std::string line = ir.substr(at, end - at);
    if (std::regex_match(line, m, node)) metadata[m[1]] = m[2];
    at = end + 1;
  }
  std::map<std::string, std::map<std::string, int>> out;
  const std::regex call(R"(@_Znam\(i64 noundef ([0-9]+)\).*!memprof (![0-9]+))");
  const std::regex ref("![0-9]+");
  const std::regex type("!\"(cold|notcold|hot)\"");
  for (std::sregex_iterator c(ir.begin(), ir.end(), call), e; c != e; ++c) {
    const std::string list = metadata[(*c)[2]];
    for (std::sregex_iterator r(list.begin(), list.end(), ref); r != e; ++r) {
      const std::string mib = metadata[r->str()];
      std::smatch t;
      if (std::regex_search(mib, t, type)) ++out[(*c)[1]][t[1]];
    }
  }
  return out;
}

TEST(FoldRecursion, ClangAttachesMemprofMetadataFromTheFoldedProfile) {
  // Blocks from cold_root are untouched (cold at a lifetime threshold of 0), hot_root's are
  // written: every allocation call needs context metadata to tell them apart, and the
  // folded profile must still give it, each site with a cold and a not-cold context.
  const std::string& bin = instrumented();
  const std::string dir = profkit::test::work_dir("use");
  std::map<std::string, std::map<std::string, int>> mibs[2];
  for (int fold = 0; fold < 2; ++fold) {
    const std::string tag = fold ? "folded" : "unfolded";
    const std::string raw =
        profile("use-" + tag, std::string("malloc_context_size=255") + (fold ? ":fold_recursion=1" : ""));
    run_ok("llvm-profdata-22 merge --profiled-binary=" + sh_quote(bin) + " " + raw + " -o " + dir +
           "/" + tag + ".memprofdata");
    run_ok("clang++-22 -g -O1 -fmemory-profile-use=" + dir + "/" + tag +
           ".memprofdata -mllvm -memprof-ave-lifetime-cold-threshold=0 -S -emit-llvm " +
           sh_quote(source()) + " -o " + dir + "/" + tag + ".ll");
    mibs[fold] = mibs_by_size(profkit::test::read_file(dir + "/" + tag + ".ll"));
  }
  int folded_total = 0, unfolded_total = 0;
  for (const char* size : {"16", "24", "32", "48"}) {
    EXPECT_GE(mibs[1][size]["cold"], 1) << "new char[" << size << "], folded";
    EXPECT_GE(mibs[1][size]["notcold"], 1) << "new char[" << size << "], folded";
    EXPECT_GE(mibs[0][size]["cold"], 1) << "new char[" << size << "], unfolded";
    for (const auto& [t, n] : mibs[1][size]) folded_total += n;
    for (const auto& [t, n] : mibs[0][size]) unfolded_total += n;
  }
  // Unfolded, each recursion level is a context of its own; folded, a few per site.
  EXPECT_LE(folded_total, 16);
  EXPECT_GT(unfolded_total, 100);
}

}  // namespace
