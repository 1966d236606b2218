// `profkit report` / `profkit diff` against the real tools: ctx.cpp (one `new[]` site reached
// from a hot and a cold caller) built with clang++-22 -fmemory-profile and run under our
// runtime and compiler-rt's. Checked: the top contexts and their exact counts (from the
// program's loops, and field by field against `llvm-profdata-22 show --memory` of the same
// raw file); the verdicts against what clang-22 -fmemory-profile-use writes into the IR
// (docs/formats/memprof.md G.3); the indexed profile llvm-profdata-22 merges gives the same
// contexts; diff of a profile with itself is empty and diff against a variant of the demo
// program that allocates more at one site puts that site first; bad input errors are the
// ones `profkit show --memory` prints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "format/blake3/blake3.h"
#include "format/bytes/cursor.h"
#include "tests/support/harness.h"
#include "tests/support/memprof_show.h"

namespace profkit::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kFlags = "-g -O1 -fmemory-profile -fno-omit-frame-pointer";

struct Program {
  std::string binary;
  std::string raw;
};

// Compiles and links once per process, runs once; the raw file written by the run.
Program build_and_run(const std::string& name, const std::string& source, bool ours,
                      const std::string& defines = "", const std::string& args = "") {
  static std::map<std::string, Program> cache;
  const std::string key = name + (ours ? ".ours" : ".crt");
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  static const std::string dir = work_dir("bin");
  const std::string obj = dir + "/" + name + ".o";
  if (!file_exists(obj))
    run_ok("clang++-22 " + kFlags + " " + defines + " -c " + sh_quote(source) + " -o " + obj);
  Program p{dir + "/" + key, ""};
  if (ours)
    run_ok("clang++-22 " + obj + " -o " + p.binary + " " + runtime_dir() +
           "/libprofkit_memprof.so -Wl,-rpath," + runtime_dir());
  else
    run_ok("clang++-22 -fmemory-profile " + obj + " -o " + p.binary);
  const std::string prefix = dir + "/" + key + ".raw";
  run_ok("MEMPROF_OPTIONS=log_path=" + sh_quote(prefix) + " " + sh_quote(p.binary) + " " + args +
         " >/dev/null");
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string path = e.path().string();
    if (path.rfind(prefix + ".", 0) == 0) p.raw = path;
  }
  EXPECT_FALSE(p.raw.empty()) << key;
  return cache[key] = p;
}

std::string ctx_source() { return source_path("tests/programs/runtime/ctx.cpp"); }
Program ctx(bool ours) { return build_and_run("ctx", ctx_source(), ours); }

// The 1-based line of the first line of `file` containing `text`.
uint32_t line_of(const std::string& file, const std::string& text) {
  std::istringstream in(read_file(file));
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  ADD_FAILURE() << text << " not in " << file;
  return 0;
}

json report_json(const std::string& profile, const std::string& binary,
                 const std::string& extra = "") {
  const auto r = run_ok(profkit_bin() + " report --json --top=0 " + sh_quote(profile) +
                        (binary.empty() ? "" : " --profiled-binary " + sh_quote(binary)) + " " +
                        extra);
  return json::parse(r.out, nullptr, false);
}

// "helper>hot_user>main" from a context's frames (linkage names).
std::string chain(const json& context) {
  std::string s;
  for (const auto& f : context["frames"])
    s += (s.empty() ? "" : ">") + f["linkage_name"].get<std::string>();
  return s;
}

// ---- llvm-profdata-22 show --memory (raw): contexts keyed "Symbol:LineOffset:Column>..." ----

using Fields = MibFields;

MemProfContexts llvm_show(const std::string& binary, const std::string& raw) {
  return llvm_memprof_show(binary, raw);
}

std::string show_key(const json& context) {
  std::string s;
  for (const auto& f : context["frames"])
    s += (s.empty() ? "" : ">") + f["linkage_name"].get<std::string>() + ":" +
         std::to_string(f["line_offset"].get<uint32_t>()) + ":" +
         std::to_string(f["column"].get<uint32_t>());
  return s;
}

class Runtimes : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Report, Runtimes, ::testing::Values(true, false),
                         [](const auto& suite) { return suite.param ? "ours" : "compiler_rt"; });

TEST_P(Runtimes, TopSitesComeFirstWithExactMetrics) {
  const Program p = ctx(GetParam());
  const json r = report_json(p.raw, p.binary);
  ASSERT_TRUE(r.is_object());
  const json& contexts = r["contexts"];
  ASSERT_EQ(contexts.size(), 2u);
  // hot_user: 1000 x new char[32], each byte written once (32 accesses of 1 byte).
  EXPECT_EQ(chain(contexts[0]), "_Z6helperm>_Z8hot_userv>main");
  EXPECT_EQ(contexts[0]["mib"]["AllocCount"], 1000);
  EXPECT_EQ(contexts[0]["mib"]["TotalSize"], 32000);
  EXPECT_EQ(contexts[0]["mib"]["TotalAccessCount"], 32000);
  // cold_user: 3 x new char[4096], never touched.
  EXPECT_EQ(chain(contexts[1]), "_Z6helperm>_Z9cold_userv>main");
  EXPECT_EQ(contexts[1]["mib"]["AllocCount"], 3);
  EXPECT_EQ(contexts[1]["mib"]["TotalSize"], 12288);
  EXPECT_EQ(contexts[1]["mib"]["TotalAccessCount"], 0);
  EXPECT_EQ(r["summary"]["allocations"], 1003);
  // Source positions: the allocation line and the two call lines, from the source text.
  const std::string src = ctx_source();
  const json& leaf = contexts[0]["frames"][0];
  EXPECT_TRUE(leaf["file"].get<std::string>().ends_with("ctx.cpp")) << leaf;
  EXPECT_EQ(leaf["line"], line_of(src, "new char[n]"));
  EXPECT_EQ(leaf["function"], "helper(unsigned long)");
  EXPECT_EQ(contexts[0]["frames"][1]["line"], line_of(src, "helper(32)"));
  EXPECT_EQ(contexts[1]["frames"][1]["line"], line_of(src, "helper(4096)"));
  EXPECT_EQ(contexts[0]["frames"][2]["line"], line_of(src, "hot_user();"));
}

TEST_P(Runtimes, EveryMibFieldAsLlvmProfdataShowsIt) {
  const Program p = ctx(GetParam());
  const auto llvm = llvm_show(p.binary, p.raw);
  const json r = report_json(p.raw, p.binary);
  ASSERT_FALSE(llvm.empty());
  size_t compared = 0;
  for (const json& c : r["contexts"]) {
    auto it = llvm.find(show_key(c));
    ASSERT_NE(it, llvm.end()) << show_key(c);
    for (const auto& [name, value] : c["mib"].items()) {
      if (name == "AccessHistogram") continue;  // a pointer in the raw file
      auto f = it->second.find(name);
      ASSERT_NE(f, it->second.end()) << name;
      EXPECT_EQ(f->second, value.dump()) << show_key(c) << " " << name;
      ++compared;
    }
  }
  EXPECT_GT(compared, 40u);
}

// ---- clang-22 -fmemory-profile-use: the IR's memprof hints (G.3) --------------------------

// Use-time stack id of a frame (C.3): BLAKE3 of u64 GUID, u32 LineOffset, u32 Column.
uint64_t use_time_id(const json& frame) {
  uint8_t bytes[16];
  store_le<uint64_t>(bytes, std::stoull(frame["guid"].get<std::string>(), nullptr, 16));
  store_le<uint32_t>(bytes + 8, frame["line_offset"].get<uint32_t>() & 0xFFFF);
  store_le<uint32_t>(bytes + 12, frame["column"].get<uint32_t>());
  return blake3::hash64(std::span<const uint8_t>(bytes, 16));
}

// One hint in the IR: contexts whose use-time ids start with `prefix` (a !memprof MIB), or,
// for a "memprof"= attribute without !memprof or !callsite, contexts allocated directly in
// `function` (not inlined), get `type`.
struct Hint {
  std::vector<uint64_t> prefix;
  std::string function;
  std::string type;
};

std::vector<Hint> ir_hints(const std::string& ir) {
  std::map<std::string, std::string> nodes;       // "!41" -> "!{!42, !44}"
  std::map<std::string, std::string> attributes;  // "#5" -> its text
  std::istringstream in(ir);
  std::string line;
  std::vector<std::pair<std::string, std::string>> calls;  // (enclosing function, line)
  std::string function;
  static const std::regex define_re(R"(^define .*@([^(]+)\()");
  static const std::regex node_re(R"(^(![0-9]+) = (?:distinct )?(!\{.*\})$)");
  static const std::regex attr_re(R"(^attributes (#[0-9]+) = \{(.*)\}$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, node_re)) nodes[m[1]] = m[2];
    else if (std::regex_match(line, m, attr_re)) attributes[m[1]] = m[2];
    else if (std::regex_search(line, m, define_re)) function = m[1];
    else if (line.find(" call ") != std::string::npos) calls.push_back({function, line});
  }
  auto ids = [&](const std::string& ref) {
    std::vector<uint64_t> out;
    static const std::regex i64(R"(i64 (-?[0-9]+))");
    const std::string& text = nodes[ref];
    for (auto it = std::sregex_iterator(text.begin(), text.end(), i64); it != std::sregex_iterator(); ++it)
      out.push_back(static_cast<uint64_t>(std::stoll((*it)[1])));
    return out;
  };
  std::vector<Hint> hints;
  static const std::regex memprof_ref(R"(!memprof (![0-9]+))");
  static const std::regex callsite_ref(R"(!callsite (![0-9]+))");
  static const std::regex attr_ref(R"(\) (#[0-9]+))");
  static const std::regex mib_re(R"re(^!\{(![0-9]+), !"(cold|notcold|hot)"\}$)re");
  static const std::regex type_re(R"re("memprof"="(cold|notcold|hot)")re");
  for (const auto& [fn, call] : calls) {
    if (std::regex_search(call, m, memprof_ref)) {
      const std::string list = nodes[m[1]];
      static const std::regex ref(R"(![0-9]+)");
      for (auto it = std::sregex_iterator(list.begin(), list.end(), ref); it != std::sregex_iterator(); ++it) {
        std::smatch mib;
        const std::string& text = nodes[it->str()];
        if (std::regex_match(text, mib, mib_re)) hints.push_back({ids(mib[1]), "", mib[2]});
      }
    } else if (std::regex_search(call, m, attr_ref)) {
      std::smatch t, cs;
      const std::string attrs = attributes[m[1]];
      if (!std::regex_search(attrs, t, type_re)) continue;
      if (std::regex_search(call, cs, callsite_ref))
        hints.push_back({ids(cs[1]), "", t[1]});
      else
        hints.push_back({{}, fn, t[1]});
    }
  }
  return hints;
}

// Compiles ctx.cpp with the profile and checks every hint clang wrote against the verdicts
// profkit gives the contexts under it. Returns the hint types seen.
std::set<std::string> expect_verdicts_as_clang(const Program& p, const std::string& tag,
                                               const std::string& threshold_flag,
                                               const std::string& our_flag) {
  const std::string dir = work_dir("use-" + tag);
  const std::string profdata = dir + "/ctx.profdata";
  run_ok("llvm-profdata-22 merge --profiled-binary " + sh_quote(p.binary) + " " + sh_quote(p.raw) +
         " -o " + sh_quote(profdata));
  const auto ir = run_ok("clang++-22 -g -O1 -fmemory-profile-use=" + sh_quote(profdata) + " " +
                         threshold_flag + " -S -emit-llvm -o - " + sh_quote(ctx_source()));
  const auto hints = ir_hints(ir.out);
  std::set<std::string> seen;
  for (const std::string& profile : {p.raw, profdata}) {
    const json r = report_json(profile, p.binary, our_flag);
    for (const auto& [prefix, function, type] : hints) {
      size_t matched = 0;
      for (const json& c : r["contexts"]) {
        std::vector<uint64_t> ids;
        for (const json& f : c["frames"]) ids.push_back(use_time_id(f));
        if (ids.size() < prefix.size() || !std::equal(prefix.begin(), prefix.end(), ids.begin()))
          continue;
        if (!function.empty() && (c["frames"][0]["linkage_name"] != function ||
                                  c["frames"][0]["inlined"].get<bool>()))
          continue;
        ++matched;
        EXPECT_EQ(c["verdict"], type) << tag << " " << profile << " " << chain(c) << ": " << c["why"];
      }
      EXPECT_GT(matched, 0u) << tag << " " << profile << ": a hint matches no context";
      seen.insert(type);
    }
  }
  return seen;
}

TEST_P(Runtimes, VerdictsAreWhatClangDecidesWithLifetimeThresholdZero) {
  const std::string tag = std::string(GetParam() ? "ours" : "crt") + "-t0";
  const auto seen = expect_verdicts_as_clang(ctx(GetParam()), tag,
                                             "-mllvm -memprof-ave-lifetime-cold-threshold=0",
                                             "--ave-lifetime-cold-threshold=0");
  // cold_user's context is cold and hot_user's is not: an ambiguous allocation (G.3).
  EXPECT_EQ(seen, (std::set<std::string>{"cold", "notcold"}));
}

TEST_P(Runtimes, VerdictsAreWhatClangDecidesWithDefaults) {
  const std::string tag = std::string(GetParam() ? "ours" : "crt") + "-default";
  const auto seen = expect_verdicts_as_clang(ctx(GetParam()), tag, "", "");
  EXPECT_EQ(seen, (std::set<std::string>{"notcold"}));
}

TEST(Report, IndexedProfileGivesTheSameContextsWithNamesFromTheBinary) {
  const Program p = ctx(true);
  const std::string profdata = work_dir("indexed") + "/ctx.profdata";
  run_ok("llvm-profdata-22 merge --profiled-binary " + sh_quote(p.binary) + " " + sh_quote(p.raw) +
         " -o " + sh_quote(profdata));
  const json raw = report_json(p.raw, p.binary);
  const json named = report_json(profdata, p.binary);
  const json bare = report_json(profdata, "");
  ASSERT_EQ(named["contexts"].size(), raw["contexts"].size());
  for (size_t i = 0; i < raw["contexts"].size(); ++i) {
    EXPECT_EQ(named["contexts"][i]["id"], raw["contexts"][i]["id"]);
    EXPECT_EQ(chain(named["contexts"][i]), chain(raw["contexts"][i]));
    // The function table gives each frame its function's declaration file, which in this
    // one-file program is the file the raw frames' line rows name.
    for (size_t f = 0; f < raw["contexts"][i]["frames"].size(); ++f) {
      EXPECT_EQ(named["contexts"][i]["frames"][f]["line"], raw["contexts"][i]["frames"][f]["line"]);
      EXPECT_EQ(named["contexts"][i]["frames"][f]["file"], raw["contexts"][i]["frames"][f]["file"]);
    }
  }
  // Without a binary, only GUIDs are known.
  EXPECT_EQ(bare["contexts"][0]["frames"][0]["function"],
            bare["contexts"][0]["frames"][0]["guid"]);
}

// ---- diff --------------------------------------------------------------------------------

TEST(Diff, ProfileAgainstItselfIsEmpty) {
  const Program p = ctx(true);
  const auto r = run_ok(profkit_bin() + " diff --json --profiled-binary " + sh_quote(p.binary) +
                        " " + sh_quote(p.raw) + " " + sh_quote(p.raw));
  const json d = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(d.is_object());
  EXPECT_TRUE(d["changes"].empty()) << d["changes"];
}

TEST(Diff, SiteThatAllocatesMoreComesFirst) {
  const std::string src = source_path("examples/wordcache.cpp");
  const std::string inputs = sh_quote(source_path("examples/input-a.txt"));
  const Program base = build_and_run("wordcache", src, true, "", "-r 3 " + inputs);
  const Program big = build_and_run("wordcache-big", src, true, "-DBIG_ARCHIVE", "-r 3 " + inputs);
  const auto r = run_ok(profkit_bin() + " diff --json --profiled-binary " + sh_quote(base.binary) +
                        " --profiled-binary " + sh_quote(big.binary) + " " + sh_quote(base.raw) +
                        " " + sh_quote(big.raw));
  const json d = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(d.is_object());
  ASSERT_FALSE(d["changes"].empty());
  const json& first = d["changes"][0];
  EXPECT_EQ(first["kind"], "changed");
  // Three more blobs of (text + 64 KiB) in Archive::keep.
  EXPECT_EQ(first["count_delta"], 3);
  EXPECT_GT(first["bytes_delta"].get<int64_t>(), 3 * 65536);
  EXPECT_EQ(first["frames"][0]["function"].get<std::string>().rfind("Archive::keep", 0), 0u)
      << first["frames"][0];
  EXPECT_EQ(first["frames"][0]["line"], line_of(src, "new char[text.size() + kNotesRoom]"));
}

// ---- bad input ---------------------------------------------------------------------------

TEST(Report, BadInputGivesTheErrorsOfShow) {
  const Program p = ctx(true);
  const std::string bytes = read_file(p.raw);
  const std::string dir = work_dir("bad");
  std::string corrupt = bytes;
  store_le<uint64_t>(reinterpret_cast<uint8_t*>(corrupt.data()) + 8, 99);  // version
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"truncated-header", bytes.substr(0, 20)},
      {"truncated-body", bytes.substr(0, bytes.size() - 7)},
      {"bad-version", corrupt},
      {"not-a-profile", "hello, world\n"}};
  for (const auto& [name, data] : cases) {
    const std::string path = dir + "/" + name;
    write_file(path, data);
    const std::string args = " --profiled-binary " + sh_quote(p.binary) + " " + sh_quote(path);
    const auto ours = run(profkit_bin() + " report" + args);
    const auto show = run(profkit_bin() + " show --memory" + args);
    EXPECT_EQ(ours.status, 1) << name;
    EXPECT_EQ(ours.out, "") << name;
    EXPECT_EQ(ours.err, show.err) << name;
    EXPECT_EQ(std::count(ours.err.begin(), ours.err.end(), '\n'), 1) << name << ": " << ours.err;
    EXPECT_EQ(ours.err.rfind(path + ":", 0), 0u) << ours.err;
    EXPECT_NE(ours.err.find(": error: "), std::string::npos) << ours.err;
  }
}

}  // namespace
}  // namespace profkit::test
