// End-to-end IRPGO tests through the `profkit` command, with the real LLVM tools as oracle:
//  - raw -> indexed -> text -> indexed round trips lose nothing (v13 with LLVM 22, v7 with
//    LLVM 14) and give the bytes llvm-profdata's own chain gives;
//  - clang -fprofile-use of profkit's output attaches the same !prof metadata as with
//    llvm-profdata's output;
//  - bad input (truncated, flipped, wrong magic or version, offsets and counts past the end,
//    absurd sizes, unwritable output, wrong options) gives exit 1 and one line
//    `FILE:OFFSET: error: ...` on stderr, never a crash, and no output file.
// Every real file made here is also copied to PROFKIT_BINARY_DIR/seeds/<fuzz target>/ (the
// raw, indexed and text reader targets).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

namespace fs = std::filesystem;

// A test program: sources under tests/programs/irpgo/, compiled together at -O2, run once
// per argument string (an empty string runs it without arguments).
struct Program {
  std::string name;
  std::vector<std::string> sources;
  std::vector<std::string> runs;
  std::string flags = "";     // extra compiler flags, for -fprofile-generate and -use alike
  bool llvm14 = true;         // also built with clang 14 (v7 tests)
};

const std::vector<Program>& programs() {
  static const std::vector<Program> list = {
      {"switch", {"e2e_switch.c"}, {"", "37", "1000"}},
      {"memcpy", {"e2e_memcpy.c"}, {"", "123", "5"}},
      {"static", {"e2e_static_a.c", "e2e_static_b.c"}, {"", "13"}},
      {"templates", {"e2e_templates.cpp"}, {"", "17"}},
      {"many", {"e2e_many.c"}, {"", "4"}},
      {"vp", {"vp.c"}, {"", "37"}},
      {"vt2", {"vt2.cpp"}, {"", "7"}, "-mllvm -enable-vtable-value-profiling", false},
  };
  return list;
}

// Releases of the LLVM tools that make and consume the profiles.
struct Llvm {
  int version;          // 14 or 22
  std::string cc;       // C compiler
  std::string cxx;      // C++ compiler
  std::string profdata; // llvm-profdata of the same release
  std::string index_version;  // what profkit writes for this release's consumers
};
const Llvm kLlvm22{22, "clang-22", "clang++-22", "llvm-profdata-22", "13"};
const Llvm kLlvm14{14, "clang-14", "clang++-14", "llvm-profdata-14", "7"};

std::string q(const std::string& s) { return sh_quote(s); }

// profkit under a time limit: a hang shows up as status 137, like a crash.
std::string pk() { return "timeout -s KILL 60 " + q(profkit_bin()); }

bool is_cxx(const std::string& source) { return source.ends_with(".cpp"); }

std::string join_sources(const Program& p) {
  std::string out;
  for (const auto& s : p.sources) out += " " + q(s);
  return out;
}

// Copies `file` into the seed corpus of a reader's fuzz target.
void add_seed(const std::string& target, const std::string& file, const std::string& name) {
  const fs::path dir = fs::path(PROFKIT_BINARY_DIR) / "seeds" / target;
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::copy_file(file, dir / ("e2e_" + name), fs::copy_options::overwrite_existing, ec);
}

// A program built with -fprofile-generate by one release, and its raw profiles.
struct Built {
  std::string dir;                // holds copies of the sources, the binary and the profiles
  std::vector<std::string> raws;  // absolute paths
};

std::string raw_list(const Built& b) {
  std::string out;
  for (const auto& r : b.raws) out += " " + q(r);
  return out;
}

// Builds `p` with `llvm` (once per process) and runs it on each input. The sources are
// copied next to the binary and compiled by their relative names, so the PGO names of
// static functions are "file.c;name" and the -fprofile-use compiles below see the same.
const Built& built(const Program& p, const Llvm& llvm) {
  static std::map<std::string, Built> cache;
  const std::string key = p.name + std::to_string(llvm.version);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Built b;
  b.dir = work_dir("build/" + key);
  bool cxx = false;
  for (const auto& s : p.sources) {
    fs::copy_file(source_path("tests/programs/irpgo/" + s), fs::path(b.dir) / s,
                  fs::copy_options::overwrite_existing);
    cxx = cxx || is_cxx(s);
  }
  run_ok("cd " + q(b.dir) + " && " + (cxx ? llvm.cxx : llvm.cc) +
         " -O2 -fprofile-generate -w " + p.flags + join_sources(p) + " -o prog");
  for (size_t i = 0; i < p.runs.size(); i++) {
    const std::string raw = b.dir + "/run" + std::to_string(i) + ".profraw";
    run_ok("cd " + q(b.dir) + " && LLVM_PROFILE_FILE=" + q(raw) + " ./prog " + p.runs[i] +
           " >/dev/null");
    b.raws.push_back(raw);
    add_seed("instrprof_raw_reader_fuzz", raw, key + "_run" + std::to_string(i) + ".profraw");
  }
  return cache.emplace(key, b).first->second;
}

// What llvm-profdata shows of every record: the comparison of "same records".
std::string llvm_show_all(const Llvm& llvm, const std::string& file) {
  return run_ok(llvm.profdata + " show --all-functions --counts --ic-targets --memop-sizes " +
                q(file))
      .out;
}

// "" if equal, else the first differing line of each (outputs can be megabytes long).
std::string first_difference(const std::string& a, const std::string& b) {
  if (a == b) return "";
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; line++) {
    const bool ha = static_cast<bool>(std::getline(sa, la));
    const bool hb = static_cast<bool>(std::getline(sb, lb));
    if (!ha || !hb || la != lb)
      return "line " + std::to_string(line) + ": '" + (ha ? la : "<end>") + "' vs '" +
             (hb ? lb : "<end>") + "'";
  }
}

// ---------------------------------------------------------------------------------------
// Round trips

void check_round_trip(const Llvm& llvm) {
  for (const Program& p : programs()) {
    if (llvm.version == 14 && !p.llvm14) continue;
    SCOPED_TRACE(p.name + " LLVM " + std::to_string(llvm.version));
    const Built& b = built(p, llvm);
    const std::string d = work_dir("roundtrip/" + p.name + std::to_string(llvm.version)) + "/";
    const std::string ver = " --profile-version=" + llvm.index_version;
    // profkit: raw -> indexed -> text -> indexed -> text
    run_ok(pk() + " merge" + ver + raw_list(b) + " -o " + q(d + "a.profdata"));
    run_ok(pk() + " merge --text " + q(d + "a.profdata") + " -o " + q(d + "a.txt"));
    run_ok(pk() + " merge" + ver + " " + q(d + "a.txt") + " -o " + q(d + "b.profdata"));
    run_ok(pk() + " merge --text " + q(d + "b.profdata") + " -o " + q(d + "b.txt"));
    // llvm-profdata of the same release: the same chain
    run_ok(llvm.profdata + " merge" + raw_list(b) + " -o " + q(d + "la.profdata"));
    run_ok(llvm.profdata + " merge --text " + q(d + "la.profdata") + " -o " + q(d + "la.txt"));
    run_ok(llvm.profdata + " merge " + q(d + "la.txt") + " -o " + q(d + "lb.profdata"));

    // Same records: the text forms (sorted by name and hash) are identical, and
    // llvm-profdata shows profkit's files exactly as its own. LLVM 14's v7 record order
    // follows its hash-table insertion history, so a and b may list records in different
    // orders; LLVM 22 sorts, so there the shows must match too.
    const std::string shown = llvm_show_all(llvm, d + "a.profdata");
    EXPECT_NE(shown.find("Block counts: ["), std::string::npos) << shown;
    EXPECT_EQ(first_difference(shown, llvm_show_all(llvm, d + "la.profdata")), "")
        << "records differ from llvm-profdata's";
    EXPECT_EQ(first_difference(llvm_show_all(llvm, d + "b.profdata"),
                               llvm_show_all(llvm, d + "lb.profdata")), "")
        << "records from text differ from llvm-profdata's";
    if (llvm.version == 22) {
      EXPECT_EQ(first_difference(shown, llvm_show_all(llvm, d + "b.profdata")), "")
          << "records changed in the round trip";
    }
    EXPECT_EQ(first_difference(read_file(d + "a.txt"), read_file(d + "b.txt")), "");
    EXPECT_EQ(first_difference(read_file(d + "a.txt"), read_file(d + "la.txt")), "");
    EXPECT_TRUE(read_file(d + "b.profdata") == read_file(d + "lb.profdata"))
        << "indexed-from-text bytes differ from llvm-profdata's: " << d;
    for (const char* f : {"a.profdata", "b.profdata", "la.profdata", "lb.profdata"})
      add_seed("instrprof_indexed_reader_fuzz", d + f,
               p.name + std::to_string(llvm.version) + "_" + f);
    add_seed("instrprof_text_reader_fuzz", d + "a.txt", p.name + std::to_string(llvm.version) + "_a.txt");
  }
}

TEST(IrpgoE2e, RoundTripRawIndexedTextIndexedV13) { check_round_trip(kLlvm22); }
TEST(IrpgoE2e, RoundTripRawIndexedTextIndexedV7) { check_round_trip(kLlvm14); }

// ---------------------------------------------------------------------------------------
// clang -fprofile-use

// The lines of an -emit-llvm file that carry profile information: instructions and
// definitions with a !prof attachment, and the metadata nodes of function entry counts,
// branch weights, value profiles and the ProfileSummary (with its detailed cutoffs).
std::string profile_metadata(const std::string& ll) {
  static const std::regex node(
      R"re(^!\d+ = !\{(!"(function_entry_count|synthetic_function_entry_count|branch_weights|VP|)re"
      R"re(ProfileFormat|TotalCount|MaxCount|MaxInternalCount|MaxFunctionCount|NumCounts|)re"
      R"re(NumFunctions|IsPartialProfile|PartialProfileRatio|DetailedSummary)"|)re"
      R"re(i32 \d+, i64 \d+, i32 \d+\}|i32 1, !"ProfileSummary"))re");
  std::istringstream in(ll);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("!prof ") != std::string::npos || std::regex_search(line, node))
      out += line + "\n";
  return out;
}

struct UseResult {
  std::string metadata;  // profile_metadata() of every source, concatenated
  std::string warnings;  // clang's stderr
};

UseResult compile_with_profile(const Program& p, const Llvm& llvm, const Built& b,
                               const std::string& profile) {
  UseResult r;
  for (const auto& s : p.sources) {
    const std::string ll = profile + "." + s + ".ll";
    const CommandResult c =
        run_ok("cd " + q(b.dir) + " && " + (is_cxx(s) ? llvm.cxx : llvm.cc) +
               " -O2 -fprofile-use=" + q(profile) + " " + p.flags + " -S -emit-llvm " + q(s) + " -o " + q(ll));
    r.warnings += c.err;
    r.metadata += "; " + s + "\n" + profile_metadata(read_file(ll));
  }
  return r;
}

void check_profile_use(const Llvm& llvm) {
  for (const Program& p : programs()) {
    if (llvm.version == 14 && !p.llvm14) continue;
    SCOPED_TRACE(p.name + " LLVM " + std::to_string(llvm.version));
    const Built& b = built(p, llvm);
    const std::string d = work_dir("use/" + p.name + std::to_string(llvm.version)) + "/";
    const std::string ver = " --profile-version=" + llvm.index_version;
    run_ok(llvm.profdata + " merge" + raw_list(b) + " -o " + q(d + "llvm.profdata"));
    run_ok(pk() + " merge" + ver + raw_list(b) + " -o " + q(d + "profkit.profdata"));
    run_ok(pk() + " merge --text" + raw_list(b) + " -o " + q(d + "profkit.txt"));
    run_ok(pk() + " merge" + ver + " " + q(d + "profkit.txt") + " -o " +
           q(d + "profkit-from-text.profdata"));

    // llvm-profdata's text chain too: text drops what it cannot name (vtable targets
    // without --keep-vtable-symbols become 0), so profkit's from-text profile is compared
    // with llvm-profdata's from-text profile.
    run_ok(llvm.profdata + " merge --text" + raw_list(b) + " -o " + q(d + "llvm.txt"));
    run_ok(llvm.profdata + " merge " + q(d + "llvm.txt") + " -o " + q(d + "llvm-from-text.profdata"));

    for (const auto& [mine, theirs] : std::vector<std::pair<std::string, std::string>>{
             {"profkit.profdata", "llvm.profdata"},
             {"profkit-from-text.profdata", "llvm-from-text.profdata"}}) {
      SCOPED_TRACE(mine);
      const UseResult want = compile_with_profile(p, llvm, b, d + theirs);
      EXPECT_NE(want.metadata.find("function_entry_count"), std::string::npos) << want.metadata;
      EXPECT_NE(want.metadata.find("ProfileSummary"), std::string::npos) << want.metadata;
      const UseResult got = compile_with_profile(p, llvm, b, d + mine);
      EXPECT_EQ(first_difference(want.metadata, got.metadata), "");
      EXPECT_EQ(want.warnings, got.warnings);
    }
  }
}

TEST(IrpgoE2e, ProfileUseMetadataMatchesLlvm22) { check_profile_use(kLlvm22); }
TEST(IrpgoE2e, ProfileUseMetadataMatchesLlvm14) { check_profile_use(kLlvm14); }

// The value-profile metadata is really exercised: memcpy sizes (kind 1), indirect-call
// targets that -O2 leaves unpromoted (kind 0, the 512-way call in e2e_many.c) and vtables
// (kind 2), each from profkit's merge output.
TEST(IrpgoE2e, ProfileUseAttachesValueProfiles) {
  const std::map<std::string, std::string> wanted = {
      {"memcpy", "!{!\"VP\", i32 1,"}, {"many", "!{!\"VP\", i32 0,"}, {"vt2", "!{!\"VP\", i32 2,"}};
  for (const Program& p : programs()) {
    const auto it = wanted.find(p.name);
    if (it == wanted.end()) continue;
    SCOPED_TRACE(p.name);
    const Built& b = built(p, kLlvm22);
    const std::string d = work_dir("use-vp/" + p.name) + "/";
    run_ok(pk() + " merge" + raw_list(b) + " -o " + q(d + "profkit.profdata"));
    const UseResult got = compile_with_profile(p, kLlvm22, b, d + "profkit.profdata");
    EXPECT_NE(got.metadata.find(it->second), std::string::npos) << got.metadata;
    EXPECT_NE(got.metadata.find("branch_weights"), std::string::npos) << got.metadata;
  }
}

// ---------------------------------------------------------------------------------------
// Bad input

// Small real files of each kind, made once: the raw and indexed files of the memcpy
// program (value profiles included) and its text form.
struct Samples {
  std::string raw, indexed, text;
};

const Samples& samples() {
  static const Samples s = [] {
    const Built& b = built(programs()[1], kLlvm22);
    const std::string d = work_dir("samples") + "/";
    Samples out{b.raws[0], d + "sample.profdata", d + "sample.txt"};
    run_ok(kLlvm22.profdata + " merge " + q(b.raws[0]) + " -o " + q(out.indexed));
    run_ok(kLlvm22.profdata + " merge --text " + q(b.raws[0]) + " -o " + q(out.text));
    return out;
  }();
  return s;
}

enum class Expect { kError, kErrorOrValid };

// Checks the CLI's contract for one run of `profkit merge|show` on `file`; returns "" when
// it holds, else what went wrong.
std::string contract_problem(const CommandResult& r, const std::string& file, Expect expect,
                             const std::string& out_file) {
  std::ostringstream why;
  if (r.err.find("Sanitizer") != std::string::npos || r.err.find("runtime error") != std::string::npos)
    why << "sanitizer report";
  else if (r.status != 1 && (r.status != 0 || expect == Expect::kError))
    why << "exit status " << r.status;
  else if (r.status == 1) {
    const std::string prefix = file + ":";
    size_t i = prefix.size();
    const bool digits = r.err.starts_with(prefix) && i < r.err.size() && std::isdigit(static_cast<unsigned char>(r.err[i]));
    while (i < r.err.size() && std::isdigit(static_cast<unsigned char>(r.err[i]))) i++;
    const bool shape = digits && r.err.compare(i, 9, ": error: ") == 0 &&
                       r.err.find('\n') == r.err.size() - 1 && r.err.size() > i + 10;
    if (!shape) why << "stderr is not one line 'FILE:OFFSET: error: ...'";
    if (!out_file.empty() && file_exists(out_file)) why << "; output file left behind";
  }
  if (why.str().empty()) return "";
  return why.str() + " (status " + std::to_string(r.status) + ", stderr: " + r.err + ")";
}

// Runs `profkit merge FILE -o OUT` and `profkit show FILE` and checks both.
std::string check_both(const std::string& file, Expect expect) {
  const std::string out = file + ".out.profdata";
  fs::remove(out);
  std::string problem = contract_problem(
      run(pk() + " merge " + q(file) + " -o " + q(out)), file, expect, out);
  if (!problem.empty()) return "merge: " + problem;
  fs::remove(out);
  problem = contract_problem(run(pk() + " show " + q(file) + " >/dev/null"), file, expect, "");
  if (!problem.empty()) return "show: " + problem;
  return "";
}

// Sanitizer builds start each profkit process far more slowly, so they sample fewer offsets.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// Offsets to cut or corrupt a file of `size` bytes at. In the first 128 bytes (the headers,
// made of u64 fields): the first, second and last byte of every 8-byte word (sanitizer
// build: the first byte of every other word); then about 64 (sanitizer build: 8) more
// spread over the rest; and the last 8 (sanitizer build: the last one). Each offset costs
// two profkit runs.
std::vector<size_t> sample_offsets(size_t size) {
  std::vector<size_t> offsets;
  const size_t spread = kSanitized ? 8 : 64;
  const size_t tail = kSanitized ? 1 : 8;
  const size_t stride = size > 128 ? (size - 128) / spread + 1 : 1;
  for (size_t i = 0; i < size; i++) {
    const bool header = i < 128 && (kSanitized ? i % 16 == 0
                                               : (i % 8 == 0 || i % 8 == 1 || i % 8 == 7));
    if (header || (i >= 128 && i % stride == 0) || i + tail >= size) offsets.push_back(i);
  }
  return offsets;
}

void check_truncations(const std::string& original, const std::string& name, Expect expect) {
  const std::string bytes = read_file(original);
  ASSERT_GT(bytes.size(), 100u);
  ASSERT_LT(bytes.size(), 4096u) << "sample too large for a quick test";
  const std::string d = work_dir("truncated-" + name) + "/";
  int failures = 0;
  for (size_t n : sample_offsets(bytes.size())) {
    const std::string f = d + name + ".cut" + std::to_string(n);
    write_file(f, bytes.substr(0, n));
    // An empty file is an empty raw profile to `llvm-profdata merge` (exit 0).
    const std::string problem = check_both(f, n == 0 ? Expect::kErrorOrValid : expect);
    if (!problem.empty()) {
      ADD_FAILURE() << "truncated at " << n << " of " << bytes.size() << ": " << problem;
      if (++failures >= 5) return;
    }
    fs::remove(f);
  }
}

TEST(IrpgoE2eBadInput, TruncatedRawFile) {
  check_truncations(samples().raw, "raw", Expect::kError);
}
TEST(IrpgoE2eBadInput, TruncatedIndexedFile) {
  check_truncations(samples().indexed, "indexed", Expect::kError);
}
// A text file cut at a line end can still be a valid profile.
TEST(IrpgoE2eBadInput, TruncatedTextFile) {
  check_truncations(samples().text, "text", Expect::kErrorOrValid);
}

// Inverts one byte (all bits, or the top bit) at a time at sampled offsets: the result may still be valid (a counter
// value changed) but must never crash or print more than one line.
void check_flips(const std::string& original, const std::string& name) {
  const std::string bytes = read_file(original);
  const std::string d = work_dir("flipped-" + name) + "/";
  int failures = 0;
  for (size_t i : sample_offsets(bytes.size())) {
    const unsigned char mask = i % 2 ? 0x80 : 0xFF;
    std::string copy = bytes;
    copy[i] = static_cast<char>(copy[i] ^ mask);
    const std::string f = d + name + ".flip" + std::to_string(i);
    write_file(f, copy);
    const std::string problem = check_both(f, Expect::kErrorOrValid);
    if (!problem.empty()) {
      ADD_FAILURE() << "byte " << i << " ^ " << int{mask} << ": " << problem;
      if (++failures >= 5) return;
    }
    fs::remove(f);
  }
}

TEST(IrpgoE2eBadInput, FlippedBytesRaw) { check_flips(samples().raw, "raw"); }
TEST(IrpgoE2eBadInput, FlippedBytesIndexed) { check_flips(samples().indexed, "indexed"); }
TEST(IrpgoE2eBadInput, FlippedBytesText) { check_flips(samples().text, "text"); }

std::string with_u64(std::string bytes, size_t offset, uint64_t value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
  return bytes;
}
uint64_t u64_at(const std::string& bytes, size_t offset) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// Each (what, file contents) must be rejected with exit 1 and one error line.
void check_rejected(const std::string& name, const std::vector<std::pair<std::string, std::string>>& cases) {
  const std::string d = work_dir("rejected-" + name) + "/";
  int i = 0;
  for (const auto& [what, contents] : cases) {
    const std::string f = d + name + std::to_string(i++);
    write_file(f, contents);
    EXPECT_EQ(check_both(f, Expect::kError), "") << what;
  }
}

constexpr uint64_t kHuge = 0x0000'7fff'ffff'fff8ull;

TEST(IrpgoE2eBadInput, CorruptRawHeader) {
  const std::string raw = read_file(samples().raw);
  ASSERT_EQ(u64_at(raw, 8) & 0xffffffffu, 10u) << "expected an LLVM 22 raw v10 sample";
  const uint64_t version_flags = u64_at(raw, 8) & ~0xffffffffull;
  check_rejected("raw", {
      {"wrong magic", with_u64(raw, 0, 0x1122334455667788ull)},
      {"indexed magic on a raw body", with_u64(raw, 0, 0x8169666F72706CFFull)},
      {"version 99", with_u64(raw, 8, version_flags | 99)},
      {"version 0", with_u64(raw, 8, version_flags)},
      {"binary-id size past the end", with_u64(raw, 0x10, kHuge)},
      {"binary-id size not a multiple of 8", with_u64(raw, 0x10, 12)},
      {"data record count past the end", with_u64(raw, 0x18, kHuge)},
      {"counter count past the end", with_u64(raw, 0x28, kHuge)},
      {"bitmap size past the end", with_u64(raw, 0x38, kHuge)},
      {"names size past the end", with_u64(raw, 0x48, kHuge)},
      {"vtable count past the end", with_u64(raw, 0x68, kHuge)},
      {"vtable names size past the end", with_u64(raw, 0x70, kHuge)},
      {"absurd record count", with_u64(raw, 0x18, ~0ull)},
      {"absurd names size", with_u64(raw, 0x48, ~0ull)},
      {"header only", raw.substr(0, 128)},
      {"magic only", raw.substr(0, 8)},
  });
}

TEST(IrpgoE2eBadInput, CorruptIndexedHeader) {
  const std::string idx = read_file(samples().indexed);
  ASSERT_EQ(u64_at(idx, 8) & 0xffffffffu, 13u) << "expected an LLVM 22 v13 sample";
  const uint64_t version_flags = u64_at(idx, 8) & ~0xffffffffull;
  const uint64_t hash_offset = u64_at(idx, 0x20);
  ASSERT_LT(hash_offset + 16, idx.size());
  check_rejected("indexed", {
      {"wrong magic", with_u64(idx, 0, 0x1122334455667788ull)},
      {"version 14", with_u64(idx, 8, version_flags | 14)},
      {"version 0", with_u64(idx, 8, version_flags)},
      {"hash type 1", with_u64(idx, 0x18, 1)},
      {"hash offset past the end", with_u64(idx, 0x20, idx.size() + 64)},
      {"absurd hash offset", with_u64(idx, 0x20, ~0ull)},
      {"binary-id offset past the end", with_u64(idx, 0x30, idx.size() + 64)},
      {"vtable-names offset past the end", with_u64(idx, 0x40, idx.size() + 64)},
      {"absurd summary field count", with_u64(idx, 0x48, kHuge)},
      {"absurd summary cutoff count", with_u64(idx, 0x50, kHuge)},
      {"absurd entry count", with_u64(idx, hash_offset + 8, kHuge)},
      {"header only", idx.substr(0, 72)},
  });
}

TEST(IrpgoE2eBadInput, CorruptText) {
  const std::string head = "# IR level Instrumentation Flag\n:ir\n";
  check_rejected("text", {
      {"absurd counter count",
       head + "f\n# Func Hash:\n1\n# Num Counters:\n99999999999999\n# Counter Values:\n1\n2\n"},
      {"more counters claimed than present", head + "f\n1\n3\n5\n6\n"},
      {"zero counters", head + "f\n1\n0\n\n"},
      {"counter not a number", head + "f\n1\n2\n5\nseven\n"},
      {"counter overflows u64", head + "f\n1\n1\n99999999999999999999999\n"},
      {"name without hash", head + "f\n"},
      {"unknown header flag", "# x\n:nonsense\nf\n1\n1\n5\n"},
      {"absurd value kind count", head + "f\n1\n1\n5\n99999999\n0\n1\n1\ng:1\n"},
      {"absurd value site count", head + "f\n1\n1\n5\n1\n0\n99999999999\n1\ng:1\n"},
      {"absurd value count in a site", head + "f\n1\n1\n5\n1\n1\n1\n99999999999\n8:1\n"},
      {"invalid value kind", head + "f\n1\n1\n5\n1\n7\n1\n1\n8:1\n"},
  });
}

TEST(IrpgoE2eBadInput, UnwritableOutput) {
  const CommandResult r = run(pk() + " merge " + q(samples().raw) + " -o /nonexistent/dir/x");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_FALSE(file_exists("/nonexistent/dir/x"));
}

TEST(IrpgoE2eBadInput, MissingInput) {
  const std::string d = work_dir("missing") + "/";
  const CommandResult r = run(pk() + " merge " + q(d + "nope.profraw") + " -o " + q(d + "out"));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(file_exists(d + "out"));
  const CommandResult s = run(pk() + " show " + q(d + "nope.profraw"));
  EXPECT_EQ(s.status, 1) << s.err;
  EXPECT_EQ(std::count(s.err.begin(), s.err.end(), '\n'), 1) << s.err;
}

TEST(IrpgoE2eBadInput, WrongOptions) {
  const std::string raw = q(samples().raw);
  const std::string out = work_dir("options") + "/out";
  for (const std::string& args : std::vector<std::string>{
           "merge --no-such-option " + raw + " -o " + q(out),
           "merge --profile-version=5 " + raw + " -o " + q(out),
           "merge --failure-mode=sometimes " + raw + " -o " + q(out),
           "merge -j many " + raw + " -o " + q(out),
           "merge --weighted-input=x," + raw + " -o " + q(out),
           "show --no-such-option " + raw,
           "show --topn=lots " + raw,
           "show",
           "no-such-command",
       }) {
    const CommandResult r = run(pk() + " " + args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.err;
    EXPECT_FALSE(file_exists(out)) << args;
  }
}

}  // namespace
}  // namespace profkit::test
