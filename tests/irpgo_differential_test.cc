// Differential tests of `profkit merge`/`show` against llvm-profdata on random profiles:
// tests/gen/irpgo_text_gen.py writes 1-20 random text IR-PGO inputs with many ties among
// value-profile counts (indirect-call and memop sites, counts from a few values, random
// weights and input order, empty records, all-zero functions), and every output of both
// tools must be byte-identical. The raw path: tests/gen/vp_program_gen.py writes C
// programs with many indirect-call and memop sites, built with clang-22 and clang-14
// -fprofile-generate and run with several arguments; random selections of their raw
// files (weighted, reordered, some turned into text or indexed inputs) are merged by both.
// `overlap` is compared the same way, on pairs of random text inputs with records that
// disagree (--variants: CS records, other hashes and counter counts, repeats, vtables) and on
// pairs of raw files, with random --value-cutoff/--function/--cs: stdout and exit status.
// Each case has a seed, printed on failure.
//   PROFKIT_DIFF_SEED=S   run only case S (replay)
//   PROFKIT_DIFF_CASES=N  run cases 1..N (default 100 text and 60 raw cases;
//                         `make difftest` runs thousands)
//   PROFKIT_DIFF_FIRST=F  number the cases from F instead of 1 (new seeds past those run
//                         before: `make difftest DIFF_FIRST=3001`)
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

std::vector<uint64_t> seeds(uint64_t default_cases, uint64_t divisor = 1) {
  if (const char* s = std::getenv("PROFKIT_DIFF_SEED"); s != nullptr && *s != '\0')
    return {std::strtoull(s, nullptr, 10)};
  uint64_t n = default_cases;
  if (const char* c = std::getenv("PROFKIT_DIFF_CASES"); c != nullptr && *c != '\0')
    n = std::strtoull(c, nullptr, 10) / divisor;
  uint64_t first = 1;
  if (const char* f = std::getenv("PROFKIT_DIFF_FIRST"); f != nullptr && *f != '\0')
    first = std::strtoull(f, nullptr, 10);
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < n; ++i) out.push_back(first + i);
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

// Runs `llvm` and `profkit` (each writes to the path given as -o, appended here) and
// returns an empty string when both outputs are the same bytes, else what differs.
std::string compare_outputs(const std::string& dir, const std::string& tag,
                            const std::string& llvm, const std::string& profkit) {
  const std::string ref = dir + "/" + tag + ".ref", got = dir + "/" + tag + ".pk";
  const CommandResult l = run(llvm + " -o " + sh_quote(ref));
  if (l.status != 0) return tag + ": llvm-profdata failed: " + l.err;
  const CommandResult p = run(profkit + " -o " + sh_quote(got));
  if (p.status != 0) return tag + ": profkit failed: " + p.err;
  const std::string a = read_file(ref), b = read_file(got);
  if (a == b) return "";
  return tag + ": profkit's output (" + std::to_string(b.size()) +
         " bytes) differs from llvm-profdata's (" + std::to_string(a.size()) + " bytes), see " +
         dir;
}

std::string compare_stdout(const std::string& tag, const std::string& llvm,
                           const std::string& profkit) {
  const CommandResult l = run(llvm), p = run(profkit);
  if (l.status != 0) return tag + ": llvm-profdata failed: " + l.err;
  if (p.status != 0) return tag + ": profkit failed: " + p.err;
  return l.out == p.out ? "" : tag + ": show output differs";
}

// Compares v13 and one more output chosen by `mode` (0-3: v11, text, sparse, show) of
// merging the inputs listed in `list`, with -j `threads`.
// `extra` options go to both tools.
std::string compare_modes22(const std::string& dir, const std::string& list, int mode,
                            unsigned threads, const std::string& extra = "") {
  const std::string pk = sh_quote(profkit_bin()) + " merge -j " + std::to_string(threads) +
                         " -f " + sh_quote(list) + extra;
  const std::string l22 = "llvm-profdata-22 merge --num-threads=1 -f " + sh_quote(list) + extra;
  std::string err = compare_outputs(dir, "v13", l22, pk);
  if (!err.empty()) return err;
  switch (mode) {
    case 0:
      return compare_outputs(dir, "v11", l22 + " --write-prev-version",
                             pk + " --profile-version=11");
    case 1: return compare_outputs(dir, "text", l22 + " --text", pk + " --text");
    case 2: return compare_outputs(dir, "sparse", l22 + " --sparse", pk + " --sparse");
    case 3: {
      const std::string show = " show --all-functions --counts --ic-targets --memop-sizes ";
      const std::string merged = sh_quote(dir + "/v13.ref");
      return compare_stdout("show", "llvm-profdata-22" + show + merged,
                            sh_quote(profkit_bin()) + show + merged);
    }
    default: return "";
  }
}

// One random text case, checked in v13 and one more mode chosen by the seed.
std::string text_case(uint64_t seed) {
  const std::string dir = work_dir("text_" + std::to_string(seed));
  const std::string gen = "python3 " + sh_quote(source_path("tests/gen/irpgo_text_gen.py"));
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull);
  const int mode = static_cast<int>(rng() % 6);
  const bool llvm14 = mode == 5;
  // Every other LLVM 22 case has records that disagree between inputs (--variants), every
  // third temporal traces (merged with random reservoir and length limits).
  std::string flags = llvm14 ? " --llvm14" : seed % 2 == 0 ? " --variants" : "";
  std::string extra;
  if (!llvm14 && seed % 3 == 0) {
    flags += " --traces";
    if (rng() % 2)
      extra += " --temporal-profile-trace-reservoir-size=" + std::to_string(rng() % 120);
    if (rng() % 2) extra += " --temporal-profile-max-trace-length=" + std::to_string(rng() % 20);
  }
  // Vtable value sites (--variants) name vtables: half of those cases keep the names.
  if (seed % 4 == 0) extra += " --keep-vtable-symbols";
  const CommandResult g = run(gen + " " + std::to_string(seed) + " " + sh_quote(dir) + flags);
  if (g.status != 0) return "generator failed: " + g.err;
  std::vector<std::string> inputs = lines(g.out);
  // Some inputs become indexed profiles (written by the oracle of the mode), mixing
  // formats in one merge.
  const std::string oracle = llvm14 ? "llvm-profdata-14" : "llvm-profdata-22";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (rng() % 4 != 0) continue;
    const size_t comma = inputs[i].find(',');
    const std::string path = comma == std::string::npos ? inputs[i] : inputs[i].substr(comma + 1);
    const std::string indexed = path + ".profdata";
    const CommandResult c = run(oracle + " merge " + sh_quote(path) + " -o " + sh_quote(indexed) +
                                (!llvm14 && seed % 8 == 0 ? " --keep-vtable-symbols" : ""));
    if (c.status != 0) return "converting " + path + " failed: " + c.err;
    inputs[i] = (comma == std::string::npos ? "" : inputs[i].substr(0, comma + 1)) + indexed;
  }
  std::string list_text;
  for (const std::string& in : inputs) list_text += in + "\n";
  const std::string list = dir + "/inputs.txt";
  write_file(list, list_text);
  const unsigned threads = 1 + static_cast<unsigned>(rng() % 4);
  if (llvm14)
    return compare_outputs(dir, "v7",
                           "llvm-profdata-14 merge --num-threads=1 -f " + sh_quote(list),
                           sh_quote(profkit_bin()) + " merge -j " + std::to_string(threads) +
                               " -f " + sh_quote(list) + " --profile-version=7");
  return compare_modes22(dir, list, mode, threads, extra);
}

// `overlap ARGS` by both tools: the same stdout and exit status. One llvm-profdata defect is
// allowed for: when a profile's edge counts sum to zero it exits 0 without its one line
// ("Sum of edge counts for profile F is 0.", lost in an unflushed stream), which profkit
// prints (docs/irpgo-overlap.md).
std::string compare_overlap(const std::string& args) {
  const CommandResult l = run("llvm-profdata-22 overlap " + args);
  const CommandResult p = run(sh_quote(profkit_bin()) + " overlap " + args);
  if (l.status != p.status)
    return "overlap " + args + ": exit " + std::to_string(p.status) + ", llvm-profdata " +
           std::to_string(l.status) + " (" + p.err + l.err + ")";
  if (l.out == p.out) return "";
  if (l.out.empty() && l.status == 0 && p.out.starts_with("Sum of edge counts for profile ") &&
      p.out.ends_with(" is 0.\n") && p.out.find('\n') == p.out.size() - 1)
    return "";
  return "overlap " + args + ": stdout differs";
}

// Random --value-cutoff / --function / --cs for an overlap case.
std::string overlap_options(std::mt19937_64& rng) {
  std::string opts;
  if (rng() % 2) opts += " --value-cutoff=" + std::to_string(std::vector<int>{0, 1, 7, 100, 157}[rng() % 5]);
  if (rng() % 3 == 0) opts += " --function=f" + std::to_string(rng() % 12);
  if (rng() % 4 == 0) opts += " --cs";
  return opts;
}

// Two of one seed's random text inputs (each possibly turned into an indexed profile).
std::string overlap_text_case(uint64_t seed) {
  const std::string dir = work_dir("overlap_" + std::to_string(seed));
  const std::string gen = "python3 " + sh_quote(source_path("tests/gen/irpgo_text_gen.py"));
  std::mt19937_64 rng(seed * 0xd1b54a32d192ed03ull);
  const CommandResult g =
      run(gen + " " + std::to_string(seed) + " " + sh_quote(dir) + " --variants");
  if (g.status != 0) return "generator failed: " + g.err;
  std::vector<std::string> inputs = lines(g.out);
  std::string pair[2];
  for (std::string& path : pair) {
    const std::string& in = inputs[rng() % inputs.size()];
    path = in.substr(in.find(',') == std::string::npos ? 0 : in.find(',') + 1);
    if (rng() % 3 == 0) {
      const std::string indexed = path + ".profdata";
      const CommandResult c =
          run("llvm-profdata-22 merge " + sh_quote(path) + " -o " + sh_quote(indexed));
      if (c.status != 0) return "converting " + path + " failed: " + c.err;
      path = indexed;
    }
  }
  return compare_overlap(overlap_options(rng) + " " + sh_quote(pair[0]) + " " + sh_quote(pair[1]));
}

TEST(IrpgoDifferential, RandomTextProfilesOverlapLikeLlvm) {
  int failures = 0;
  for (uint64_t seed : seeds(100)) {
    const std::string err = overlap_text_case(seed);
    if (err.empty()) continue;
    ADD_FAILURE() << "PROFKIT_DIFF_SEED=" << seed << ": " << err;
    if (++failures == 5) break;
  }
}

TEST(IrpgoDifferential, RandomTextProfilesMergeLikeLlvm) {
  int failures = 0;
  for (uint64_t seed : seeds(100)) {
    const std::string err = text_case(seed);
    if (err.empty()) continue;
    ADD_FAILURE() << "PROFKIT_DIFF_SEED=" << seed << ": " << err;
    if (++failures == 5) break;
  }
}

// Raw files of generated programs: programs 0-2 built with clang-22, 3-4 with clang-14,
// each run with arguments 0-4. Built once per process.
struct RawPrograms {
  std::vector<std::vector<std::string>> raws;  // program -> raw files
  std::string error;
  RawPrograms() {
    const std::string dir = work_dir("programs");
    const std::string gen = "python3 " + sh_quote(source_path("tests/gen/vp_program_gen.py"));
    for (int p = 0; p < 5 && error.empty(); ++p) {
      const std::string release = p < 3 ? "22" : "14";
      const std::string base = dir + "/prog" + std::to_string(p);
      const CommandResult g = run(gen + " " + std::to_string(p + 1) + " > " + sh_quote(base + ".c"));
      const CommandResult c = run("clang-" + release + " -O1 -fprofile-generate " +
                                  sh_quote(base + ".c") + " -o " + sh_quote(base));
      if (g.status != 0 || c.status != 0) {
        error = "building " + base + " failed: " + g.err + c.err;
        break;
      }
      raws.emplace_back();
      for (int a = 0; a < 5; ++a) {
        const std::string raw = base + "_" + std::to_string(a) + ".profraw";
        const CommandResult r = run("LLVM_PROFILE_FILE=" + sh_quote(raw) + " " + sh_quote(base) +
                                    " " + std::to_string(a));
        if (r.status != 0) error = "running " + base + " failed: " + r.err;
        raws.back().push_back(raw);
      }
    }
  }
};

std::string raw_case(const RawPrograms& programs, uint64_t seed) {
  const std::string dir = work_dir("raw_" + std::to_string(seed));
  std::mt19937_64 rng(seed * 0xbf58476d1ce4e5b9ull);
  const bool llvm14 = rng() % 3 == 0;
  const std::string oracle = llvm14 ? "llvm-profdata-14" : "llvm-profdata-22";
  // Mostly one program's raw files; sometimes two programs' together.
  std::vector<std::string> pool;
  const size_t first = llvm14 ? 3 + rng() % 2 : rng() % 3;
  pool = programs.raws[first];
  if (rng() % 4 == 0) {
    const size_t second = llvm14 ? 3 + (first - 2) % 2 : (first + 1) % 3;
    pool.insert(pool.end(), programs.raws[second].begin(), programs.raws[second].end());
  }
  const size_t n = 1 + rng() % 8;
  std::string list_text;
  for (size_t i = 0; i < n; ++i) {
    std::string path = pool[rng() % pool.size()];
    const uint64_t kind = rng() % 8;
    if (kind <= 1) {  // the same profile as text or indexed input
      const std::string conv = dir + "/in" + std::to_string(i) + (kind == 0 ? ".proftext" : ".profdata");
      const CommandResult c = run(oracle + " merge " + (kind == 0 ? "--text " : "") +
                                  sh_quote(path) + " -o " + sh_quote(conv));
      if (c.status != 0) return "converting " + path + " failed: " + c.err;
      path = conv;
    }
    const uint64_t w = rng() % 3 == 0 ? 1 + rng() % 5 : 1;
    list_text += (w == 1 ? "" : std::to_string(w) + ",") + path + "\n";
  }
  const std::string list = dir + "/inputs.txt";
  write_file(list, list_text);
  const unsigned threads = 1 + static_cast<unsigned>(rng() % 4);
  const int mode = static_cast<int>(rng() % 4);
  if (llvm14)
    return compare_outputs(dir, "v7",
                           "llvm-profdata-14 merge --num-threads=1 -f " + sh_quote(list),
                           sh_quote(profkit_bin()) + " merge -j " + std::to_string(threads) +
                               " -f " + sh_quote(list) + " --profile-version=7");
  return compare_modes22(dir, list, mode, threads);
}

TEST(IrpgoDifferential, RandomRawProfilesMergeLikeLlvm) {
  static const RawPrograms programs;
  ASSERT_TRUE(programs.error.empty()) << programs.error;
  int failures = 0;
  for (uint64_t seed : seeds(60, 2)) {
    const std::string err = raw_case(programs, seed);
    if (err.empty()) continue;
    ADD_FAILURE() << "PROFKIT_DIFF_SEED=" << seed << ": " << err;
    if (++failures == 5) break;
  }
}

// Two raw files of the clang-22 programs (of one program or of two), with random options.
TEST(IrpgoDifferential, RandomRawProfilesOverlapLikeLlvm) {
  static const RawPrograms programs;
  ASSERT_TRUE(programs.error.empty()) << programs.error;
  int failures = 0;
  for (uint64_t seed : seeds(30, 4)) {
    std::mt19937_64 rng(seed * 0x94d049bb133111ebull);
    const auto& a = programs.raws[rng() % 3];
    const auto& b = rng() % 3 == 0 ? programs.raws[rng() % 3] : a;
    const std::string err = compare_overlap(overlap_options(rng) + " " +
                                            sh_quote(a[rng() % a.size()]) + " " +
                                            sh_quote(b[rng() % b.size()]));
    if (err.empty()) continue;
    ADD_FAILURE() << "PROFKIT_DIFF_SEED=" << seed << ": " << err;
    if (++failures == 5) break;
  }
}

}  // namespace
}  // namespace profkit::test
