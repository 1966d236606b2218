// Differential tests of `profkit merge`/`show` against llvm-profdata on random profiles:
// tests/gen/irpgo_text_gen.py writes 1-20 random text IR-PGO inputs with many ties among
// value-profile counts (indirect-call and memop sites, counts from a few values, random
// weights and input order, empty records, all-zero functions), and every output of both
// tools must be byte-identical. Each case has a seed, printed on failure.
//   PROFKIT_DIFF_SEED=S   run only case S (replay)
//   PROFKIT_DIFF_CASES=N  run cases 1..N (default 120; `make difftest` runs thousands)
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

std::vector<uint64_t> seeds(uint64_t default_cases) {
  if (const char* s = std::getenv("PROFKIT_DIFF_SEED"); s != nullptr && *s != '\0')
    return {std::strtoull(s, nullptr, 10)};
  uint64_t n = default_cases;
  if (const char* c = std::getenv("PROFKIT_DIFF_CASES"); c != nullptr && *c != '\0')
    n = std::strtoull(c, nullptr, 10);
  std::vector<uint64_t> out;
  for (uint64_t i = 1; i <= n; ++i) out.push_back(i);
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

// One random text case, checked in v13 and one more mode chosen by the seed.
std::string text_case(uint64_t seed) {
  const std::string dir = work_dir("text_" + std::to_string(seed));
  const std::string gen = "python3 " + sh_quote(source_path("tests/gen/irpgo_text_gen.py"));
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull);
  const int mode = static_cast<int>(rng() % 6);
  const bool llvm14 = mode == 5;
  const CommandResult g = run(gen + " " + std::to_string(seed) + " " + sh_quote(dir) +
                              (llvm14 ? " --llvm14" : ""));
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
    const CommandResult c = run(oracle + " merge " + sh_quote(path) + " -o " + sh_quote(indexed));
    if (c.status != 0) return "converting " + path + " failed: " + c.err;
    inputs[i] = (comma == std::string::npos ? "" : inputs[i].substr(0, comma + 1)) + indexed;
  }
  std::string list_text;
  for (const std::string& in : inputs) list_text += in + "\n";
  const std::string list = dir + "/inputs.txt";
  write_file(list, list_text);
  const std::string threads = " -j " + std::to_string(1 + rng() % 4);
  const std::string pk = sh_quote(profkit_bin()) + " merge" + threads + " -f " + sh_quote(list);
  const std::string l22 = "llvm-profdata-22 merge --num-threads=1 -f " + sh_quote(list);
  if (llvm14)
    return compare_outputs(dir, "v7",
                           "llvm-profdata-14 merge --num-threads=1 -f " + sh_quote(list),
                           pk + " --profile-version=7");
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

TEST(IrpgoDifferential, RandomTextProfilesMergeLikeLlvm) {
  int failures = 0;
  for (uint64_t seed : seeds(120)) {
    const std::string err = text_case(seed);
    if (err.empty()) continue;
    ADD_FAILURE() << "PROFKIT_DIFF_SEED=" << seed << ": " << err;
    if (++failures == 5) break;
  }
}

}  // namespace
}  // namespace profkit::test
