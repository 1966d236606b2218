// MemProf offline pipeline against llvm-profdata 22: test programs built with clang 22
// -fmemory-profile and run under compiler-rt's runtime give raw files; our raw reader +
// libdw symbolizer + indexed writer must produce the memprof section llvm-profdata-22
// merge writes (versions 2, 3, 4), byte for byte, and our `show --memory` printers must
// print what llvm-profdata-22 show prints (raw and indexed). Beyond llvm-profdata: shared
// libraries next to a PIE executable, several runs merged record by record, LLVM 14 v1
// raw files. Truncated or corrupted inputs must give errors, never crashes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/memprof/indexed_reader.h"
#include "format/memprof/indexed_writer.h"
#include "format/memprof/raw_reader.h"
#include "format/memprof/records.h"
#include "format/memprof/yaml_reader.h"
#include "report/memprof_show.h"
#include "symbolize/memprof_symbolizer.h"
#include "tests/support/harness.h"

namespace profkit::test {
namespace {

namespace fs = std::filesystem;
using memprof::Frame;

const char kFlags[] = "-g -O1 -fmemory-profile -fno-omit-frame-pointer";

// The single-binary programs are the runtime issue's (tests/programs/runtime/); the two-file
// shared-library pair with its pinned line numbers is this test's own.
std::string program(const std::string& name) {
  const bool own = name.starts_with("shlib");
  return source_path(std::string(own ? "tests/programs/memprof/" : "tests/programs/runtime/") +
                     name);
}

std::string build(const std::string& output, const std::string& command) {
  return build_once(output, command);
}

// Runs `binary` once per process under the memprof runtime; returns the raw profile path.
std::string run_profile(const std::string& binary, const std::string& tag = "") {
  static std::map<std::string, std::string> done;
  const std::string key = binary + "#" + tag;
  if (auto it = done.find(key); it != done.end()) return it->second;
  static const std::string dir = work_dir("raw");
  const std::string base = dir + "/" + fs::path(binary).filename().string() + tag + ".raw";
  run_ok("MEMPROF_OPTIONS=log_path=" + sh_quote(base) + " " + sh_quote(binary));
  std::string found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().string().rfind(base + ".", 0) == 0) found = e.path().string();
  EXPECT_FALSE(found.empty()) << "no raw profile written by " << binary;
  done[key] = found;
  return found;
}

std::string bin22(const std::string& src, const std::string& out, const std::string& extra) {
  const bool cxx = src.size() > 4 && src.substr(src.size() - 4) == ".cpp";
  return build(out, std::string(cxx ? "clang++-22 " : "clang-22 ") + kFlags + " " + extra + " " +
                        sh_quote(program(src)) + " -o %o");
}

struct Pipeline {
  memprof::MergedRaw raw;
  memprof::MemProfData data;
  memprof::ConversionStats stats;
  symbolize::MemProfSymbolizerStats sym_stats;
};

// Raw file + binaries -> records. Fails the test on error.
Pipeline convert(const std::string& raw_path, const std::vector<std::string>& binaries,
                 bool llvm_compatible = true) {
  Pipeline p;
  const std::string bytes = read_file(raw_path);
  auto profiles = memprof::read_raw_profiles(as_bytes(bytes));
  EXPECT_TRUE(profiles) << format_error(raw_path, profiles.error());
  if (!profiles) return p;
  auto merged = memprof::merge_raw_profiles(std::move(*profiles));
  EXPECT_TRUE(merged) << format_error(raw_path, merged.error());
  if (!merged) return p;
  p.raw = std::move(*merged);
  symbolize::MemProfSymbolizerOptions options;
  options.llvm_compatible = llvm_compatible;
  auto sym = symbolize::MemProfSymbolizer::create(binaries, p.raw.segments, p.raw.version, options);
  EXPECT_TRUE(sym) << sym.error().message;
  if (!sym) return p;
  auto* s = sym->get();
  auto data = memprof::records_from_raw(
      p.raw, [s](uint64_t pc) { return s->symbolize(pc); }, &p.stats);
  EXPECT_TRUE(data) << format_error(raw_path, data.error());
  if (data) p.data = std::move(*data);
  p.sym_stats = s->stats();
  return p;
}

// The memprof section of an indexed profile written by llvm-profdata (MemProfOffset to
// BinaryIdOffset), and its offset.
std::pair<uint64_t, std::string> memprof_section(const std::string& profdata) {
  const std::string bytes = read_file(profdata);
  EXPECT_GE(bytes.size(), 0x48u);
  if (bytes.size() < 0x48) return {0, ""};
  const uint64_t begin = load_le<uint64_t>(as_bytes(bytes).data() + 0x28);
  const uint64_t end = load_le<uint64_t>(as_bytes(bytes).data() + 0x30);
  EXPECT_LE(begin, end);
  EXPECT_LE(end, bytes.size());
  if (begin > end || end > bytes.size()) return {0, ""};
  return {begin, bytes.substr(begin, end - begin)};
}

// Drops the `AccessHistogram: <pointer>` lines llvm-profdata fills with its own heap address.
std::string mask_histogram_pointer(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    if (line.find("AccessHistogram: ") == std::string::npos || line.find(": 0") != std::string::npos)
      out += line + "\n";
    pos = nl + 1;
  }
  return out;
}

struct Case {
  const char* name;
  const char* source;
  const char* extra_flags;
};

const Case kCases[] = {
    {"tiny", "tiny.c", "-no-pie"},
    {"tiny_hist", "tiny.c", "-no-pie -mllvm -memprof-histogram"},
    {"basic", "basic.cpp", "-no-pie"},
    {"ctx", "ctx.cpp", "-no-pie"},
    {"mt", "mt.cpp", "-no-pie -pthread"},
    {"dump", "dump.cpp", "-no-pie"},
    {"basic_pie", "basic.cpp", "-fPIE -pie"},
};

class MemProfConformance : public testing::TestWithParam<Case> {
 protected:
  std::string binary() { return bin22(GetParam().source, GetParam().name, GetParam().extra_flags); }
};

TEST_P(MemProfConformance, IndexedSectionByteIdenticalForEveryVersion) {
  const std::string bin = binary();
  const std::string raw = run_profile(bin);
  Pipeline p = convert(raw, {bin});
  ASSERT_FALSE(p.data.records.empty());
  const std::string dir = work_dir(std::string("idx_") + GetParam().name);
  for (uint64_t v : memprof::kIndexedVersions) {
    const std::string ref = dir + "/v" + std::to_string(v) + ".profdata";
    run_ok("llvm-profdata-22 merge --memprof-version=" + std::to_string(v) +
           " --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) + " -o " + sh_quote(ref));
    auto [offset, theirs] = memprof_section(ref);
    memprof::IndexedWriteOptions o;
    o.version = v;
    o.section_offset = offset;
    const std::string mine = memprof::write_memprof_section(p.data, o);
    EXPECT_EQ(mine.size(), theirs.size()) << "version " << v;
    EXPECT_TRUE(mine == theirs) << "memprof section differs for version " << v;
    // Whole memprof-only file too (the layout llvm-profdata writes around the section).
    EXPECT_TRUE(memprof::write_memprof_only_profile(p.data, o) == read_file(ref))
        << "whole file differs for version " << v;
    // Fuzz seeds: real indexed files.
    const std::string seeds = std::string(PROFKIT_BINARY_DIR) + "/seeds/memprof_indexed_reader_fuzz";
    fs::create_directories(seeds);
    fs::copy_file(ref, seeds + "/" + GetParam().name + "_v" + std::to_string(v) + ".profdata",
                  fs::copy_options::overwrite_existing);
  }
  const std::string seeds = std::string(PROFKIT_BINARY_DIR) + "/seeds/memprof_raw_reader_fuzz";
  fs::create_directories(seeds);
  fs::copy_file(raw, seeds + "/" + GetParam().name + ".memprofraw",
                fs::copy_options::overwrite_existing);
}

TEST_P(MemProfConformance, ShowRawIdenticalToLlvmProfdata) {
  const std::string bin = binary();
  const std::string raw = run_profile(bin);
  Pipeline p = convert(raw, {bin});
  const auto theirs = run_ok("llvm-profdata-22 show --memory --profiled-binary=" + sh_quote(bin) +
                             " " + sh_quote(raw));
  EXPECT_EQ(mask_histogram_pointer(
                report::show_memprof_raw(p.raw.version, p.raw.segments, p.data, p.stats.stacks_kept)),
            mask_histogram_pointer(theirs.out));
}

TEST_P(MemProfConformance, ShowIndexedIdenticalToLlvmProfdata) {
  const std::string bin = binary();
  const std::string raw = run_profile(bin);
  const std::string dir = work_dir(std::string("show_") + GetParam().name);
  for (uint64_t v : memprof::kIndexedVersions) {
    const std::string ref = dir + "/v" + std::to_string(v) + ".profdata";
    run_ok("llvm-profdata-22 merge --memprof-version=" + std::to_string(v) +
           " --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) + " -o " + sh_quote(ref));
    const std::string bytes = read_file(ref);
    auto idx = memprof::read_indexed_memprof(as_bytes(bytes));
    ASSERT_TRUE(idx) << format_error(ref, idx.error());
    const auto theirs = run_ok("llvm-profdata-22 show --memory " + sh_quote(ref));
    EXPECT_EQ(report::show_memprof_indexed(*idx), theirs.out) << "version " << v;
  }
}

// `llvm-profdata show --memory` of an indexed profile is YAML that merge accepts: our YAML
// reader + writer must give what llvm-profdata merge gives for it, for every version, and
// the shown text of the result must match too.
TEST_P(MemProfConformance, YamlInputMergesLikeLlvmProfdata) {
  const std::string bin = binary();
  const std::string raw = run_profile(bin);
  const std::string dir = work_dir(std::string("yaml_") + GetParam().name);
  const std::string idx = dir + "/from_raw.profdata";
  run_ok("llvm-profdata-22 merge --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) +
         " -o " + sh_quote(idx));
  const std::string yaml = dir + "/profile.yaml";
  run_ok("llvm-profdata-22 show --memory " + sh_quote(idx) + " -o " + sh_quote(yaml));
  const std::string text = read_file(yaml);
  auto parsed = memprof::read_memprof_yaml(as_bytes(text));
  ASSERT_TRUE(parsed) << format_error(yaml, parsed.error());
  for (uint64_t v : memprof::kIndexedVersions) {
    const std::string ref = dir + "/v" + std::to_string(v) + ".profdata";
    run_ok("llvm-profdata-22 merge --memprof-version=" + std::to_string(v) + " " + sh_quote(yaml) +
           " -o " + sh_quote(ref));
    auto [offset, theirs] = memprof_section(ref);
    memprof::IndexedWriteOptions o;
    o.version = v;
    o.section_offset = offset;
    EXPECT_TRUE(memprof::write_memprof_section(parsed->data, o) == theirs) << "version " << v;
  }
  const std::string seeds = std::string(PROFKIT_BINARY_DIR) + "/seeds/memprof_yaml_reader_fuzz";
  fs::create_directories(seeds);
  write_file(seeds + "/" + GetParam().name + ".yaml", text);
}

TEST_P(MemProfConformance, EveryRawPrefixAndCorruptionFailsCleanly) {
  const std::string bytes = read_file(run_profile(binary()));
  auto whole = memprof::read_raw_profiles(as_bytes(bytes));
  ASSERT_TRUE(whole);
  // A prefix is valid exactly when it ends between two chained profiles.
  std::vector<size_t> boundaries;
  for (const auto& p : *whole) boundaries.push_back(p.file_offset + p.total_size);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = memprof::read_raw_profiles(as_bytes(std::string_view(bytes).substr(0, n)));
    const bool boundary = std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end();
    EXPECT_EQ(bool(r), boundary) << "prefix " << n;
  }
  std::mt19937 rng(42);
  for (int i = 0; i < 300; ++i) {
    std::string bad = bytes;
    for (int k = 0; k < 4; ++k)
      bad[rng() % bad.size()] = static_cast<char>(rng());
    auto r = memprof::read_raw_profiles(as_bytes(bad));
    if (r) (void)memprof::merge_raw_profiles(std::move(*r));
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, MemProfConformance, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& param_info) {
                           return param_info.param.name;
                         });

TEST(MemProfOffline, EveryIndexedPrefixAndCorruptionFailsCleanly) {
  const std::string bin = bin22("basic.cpp", "basic", "-no-pie");
  const std::string raw = run_profile(bin);
  const std::string dir = work_dir("idx_trunc");
  for (uint64_t v : memprof::kIndexedVersions) {
    const std::string ref = dir + "/v" + std::to_string(v) + ".profdata";
    run_ok("llvm-profdata-22 merge --memprof-version=" + std::to_string(v) +
           " --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) + " -o " + sh_quote(ref));
    const std::string bytes = read_file(ref);
    const uint64_t section_end = load_le<uint64_t>(as_bytes(bytes).data() + 0x30);
    for (size_t n = 0; n < section_end; ++n)
      EXPECT_FALSE(memprof::read_indexed_memprof(as_bytes(std::string_view(bytes).substr(0, n))))
          << "v" << v << " prefix " << n;
    std::mt19937 rng(7);
    for (int i = 0; i < 300; ++i) {
      std::string bad = bytes;
      for (int k = 0; k < 3; ++k) bad[0x48 + rng() % (bad.size() - 0x48)] = static_cast<char>(rng());
      (void)memprof::read_indexed_memprof(as_bytes(bad));
    }
  }
}

TEST(MemProfOffline, WrongBinaryIsRejected) {
  const std::string raw = run_profile(bin22("tiny.c", "tiny", "-no-pie"));
  const std::string other = bin22("ctx.cpp", "ctx", "-no-pie");
  const std::string bytes = read_file(raw);
  auto profiles = memprof::read_raw_profiles(as_bytes(bytes));
  ASSERT_TRUE(profiles);
  auto merged = memprof::merge_raw_profiles(std::move(*profiles));
  ASSERT_TRUE(merged);
  auto sym = symbolize::MemProfSymbolizer::create({other}, merged->segments, merged->version);
  ASSERT_FALSE(sym);
  EXPECT_NE(sym.error().message.find("No matching executable segments"), std::string::npos);
  auto none = symbolize::MemProfSymbolizer::create({}, merged->segments, merged->version);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("BuildId: "), std::string::npos);
  auto missing = symbolize::MemProfSymbolizer::create({raw + ".does-not-exist"}, merged->segments,
                                                      merged->version);
  EXPECT_FALSE(missing);
  auto not_elf = symbolize::MemProfSymbolizer::create({raw}, merged->segments, merged->version);
  EXPECT_FALSE(not_elf);
}

// Several runs merged record by record equal the sum of the runs (llvm-profdata keeps only
// the first memprof input, docs/formats/memprof.md D.7).
TEST(MemProfOffline, SeveralRunsMergeRecordByRecord) {
  const std::string bin = bin22("basic.cpp", "basic", "-no-pie");
  const std::vector<std::string> raws = {run_profile(bin, "_run1"), run_profile(bin, "_run2"),
                                         run_profile(bin, "_run3")};
  std::vector<Pipeline> runs;
  for (const auto& r : raws) runs.push_back(convert(r, {bin}));
  memprof::MemProfData merged = runs[0].data;
  for (size_t i = 1; i < runs.size(); ++i) memprof::merge_into(merged, runs[i].data);
  // Expected: for every (record, context), the field sums of the runs.
  std::map<std::pair<uint64_t, uint64_t>, memprof::MemInfoBlock> expected;
  for (const auto& run : runs)
    for (const auto& r : run.data.records)
      for (const auto& a : r.alloc_sites) {
        auto& m = expected[{r.guid, run.data.stacks.stack_id(a.stack)}];
        m.AllocCount += a.mib.AllocCount;
        m.TotalSize += a.mib.TotalSize;
        m.TotalAccessCount += a.mib.TotalAccessCount;
        m.TotalLifetime += a.mib.TotalLifetime;
        m.TotalLifetimeAccessDensity += a.mib.TotalLifetimeAccessDensity;
      }
  size_t seen = 0;
  for (const auto& r : merged.records)
    for (const auto& a : r.alloc_sites) {
      const auto it = expected.find({r.guid, merged.stacks.stack_id(a.stack)});
      ASSERT_NE(it, expected.end());
      EXPECT_EQ(a.mib.AllocCount, it->second.AllocCount);
      EXPECT_EQ(a.mib.TotalSize, it->second.TotalSize);
      EXPECT_EQ(a.mib.TotalAccessCount, it->second.TotalAccessCount);
      EXPECT_EQ(a.mib.TotalLifetime, it->second.TotalLifetime);
      EXPECT_EQ(a.mib.TotalLifetimeAccessDensity, it->second.TotalLifetimeAccessDensity);
      ++seen;
    }
  EXPECT_EQ(seen, expected.size());
  // 100 x malloc(32) per run in alloc_short: three runs give 300.
  const uint64_t alloc_short = memprof::function_guid("_Z11alloc_shortm");
  bool found = false;
  for (const auto& r : merged.records)
    if (r.guid == alloc_short) {
      ASSERT_EQ(r.alloc_sites.size(), 1u);
      EXPECT_EQ(r.alloc_sites[0].mib.AllocCount, 300u);
      found = true;
    }
  EXPECT_TRUE(found);
  // The merged profile is a valid indexed profile llvm-profdata reads.
  const std::string out = work_dir("merged") + "/merged.profdata";
  write_file(out, memprof::write_memprof_only_profile(merged, {}));
  const auto shown = run_ok("llvm-profdata-22 show --memory " + sh_quote(out));
  EXPECT_NE(shown.out.find("AllocCount:      300"), std::string::npos) << shown.out;
}

const Frame* find_frame(const memprof::MemProfData& d, uint64_t guid) {
  for (const auto& r : d.records)
    for (const auto& a : r.alloc_sites)
      for (const auto& f : d.stacks.stack(a.stack))
        if (f.function == guid) return &f;
  return nullptr;
}

// PIE executable + allocation inside a shared library: both frames are symbolized, each
// binary matched to its own segment by build id.
TEST(MemProfOffline, SharedLibraryAndPieFramesAreSymbolized) {
  const std::string lib = build("libshlib.so", "clang++-22 -g -O1 -fno-omit-frame-pointer -fPIC "
                                               "-shared " + sh_quote(program("shlib.cpp")) + " -o %o");
  const std::string dir = fs::path(lib).parent_path().string();
  const std::string exe = build("shmain", std::string("clang++-22 ") + kFlags + " -fPIE -pie " +
                                              sh_quote(program("shlib_main.cpp")) + " " +
                                              sh_quote(lib) + " -Wl,-rpath," + sh_quote(dir) +
                                              " -o %o");
  const std::string raw = run_profile(exe);
  Pipeline p = convert(raw, {exe, lib}, /*llvm_compatible=*/false);
  const uint64_t lib_alloc = memprof::function_guid("lib_alloc");
  const uint64_t main_guid = memprof::function_guid("main");
  bool found = false;
  for (const auto& r : p.data.records) {
    if (r.guid != lib_alloc) continue;
    ASSERT_EQ(r.alloc_sites.size(), 1u);
    const auto cs = p.data.stacks.stack(r.alloc_sites[0].stack);
    ASSERT_GE(cs.size(), 2u);
    // shlib.cpp: lib_alloc declared on line 4, malloc on line 5 column 21.
    EXPECT_EQ(cs[0], (Frame{lib_alloc, 1, 21, false}));
    // shlib_main.cpp: main declared on line 5, lib_alloc called on line 7 column 15.
    EXPECT_EQ(cs[1], (Frame{main_guid, 2, 15, false}));
    EXPECT_EQ(r.alloc_sites[0].mib.AllocCount, 3u);
    found = true;
  }
  EXPECT_TRUE(found);
  EXPECT_GT(p.sym_stats.outside_binaries, 0u);  // libc / interceptor PCs are counted
  // Directory search by build id finds the same binaries.
  Pipeline q = convert(raw, {dir}, false);
  EXPECT_NE(find_frame(q.data, lib_alloc), nullptr);
  // The library alone in llvm-profdata's mode is byte-identical to llvm-profdata.
  Pipeline only_lib = convert(raw, {lib});
  const std::string ref = work_dir("shlib_idx") + "/lib.profdata";
  run_ok("llvm-profdata-22 merge --profiled-binary=" + sh_quote(lib) + " " + sh_quote(raw) +
         " -o " + sh_quote(ref));
  EXPECT_TRUE(memprof::write_memprof_only_profile(only_lib.data, {}) == read_file(ref));
}

// LLVM 14 writes raw version 1 (56-byte segments without build ids, 100-byte MIBs).
TEST(MemProfOffline, Llvm14V1RawIsReadAndSymbolized) {
  const std::string bin = build("tiny14", std::string("clang-14 ") + kFlags + " " +
                                              sh_quote(program("tiny.c")) + " -o %o");
  const std::string raw = run_profile(bin);
  const std::string bytes = read_file(raw);
  auto profiles = memprof::read_raw_profiles(as_bytes(bytes));
  ASSERT_TRUE(profiles) << format_error(raw, profiles.error());
  EXPECT_EQ((*profiles)[0].version, 1u);
  // LLVM 14's own tool reads the same counts.
  const auto theirs = run_ok("llvm-profdata-14 show --memory " + sh_quote(raw));
  EXPECT_NE(theirs.out.find("NumMIBInfo: " + std::to_string((*profiles)[0].mibs.size())),
            std::string::npos)
      << theirs.out;
  Pipeline p = convert(raw, {bin});
  const uint64_t mk = memprof::function_guid("mk");
  bool found = false;
  for (const auto& r : p.data.records) {
    if (r.guid != mk) continue;
    ASSERT_EQ(r.alloc_sites.size(), 1u);
    const auto cs = p.data.stacks.stack(r.alloc_sites[0].stack);
    ASSERT_EQ(cs.size(), 2u);
    EXPECT_EQ(cs[0], (Frame{mk, 1, 13, false}));
    EXPECT_EQ(cs[1], (Frame{memprof::function_guid("main"), 2, 15, false}));
    EXPECT_EQ(r.alloc_sites[0].mib.AllocCount, 4u);
    EXPECT_EQ(r.alloc_sites[0].mib.TotalSize, 160u);
    found = true;
  }
  EXPECT_TRUE(found);
}

// clang 22 consumes our indexed profile: the same !memprof metadata as with llvm-profdata's.
TEST(MemProfOffline, ClangUsesOurProfileLikeLlvmProfdatas) {
  const std::string bin = bin22("ctx.cpp", "ctx", "-no-pie");
  const std::string raw = run_profile(bin);
  Pipeline p = convert(raw, {bin});
  const std::string dir = work_dir("use");
  write_file(dir + "/ours.profdata", memprof::write_memprof_only_profile(p.data, {}));
  run_ok("llvm-profdata-22 merge --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) +
         " -o " + sh_quote(dir + "/ref.profdata"));
  std::string ir[2];
  const char* names[2] = {"ours", "ref"};
  for (int i = 0; i < 2; ++i) {
    run_ok("clang++-22 -g -O1 -fmemory-profile-use=" + sh_quote(dir + "/" + names[i] + ".profdata") +
           " -mllvm -memprof-ave-lifetime-cold-threshold=0 -S -emit-llvm " +
           sh_quote(program("ctx.cpp")) + " -o " + sh_quote(dir + "/" + names[i] + ".ll"));
    ir[i] = read_file(dir + "/" + names[i] + ".ll");
  }
  EXPECT_NE(ir[0].find("!memprof"), std::string::npos);
  EXPECT_NE(ir[0].find("\"cold\""), std::string::npos);
  // Identical apart from the profile file name in the module.
  auto strip = [](std::string s, const std::string& name) {
    for (size_t at; (at = s.find(name)) != std::string::npos;) s.erase(at, name.size());
    return s;
  };
  EXPECT_EQ(strip(ir[0], "ours"), strip(ir[1], "ref"));
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// The command line: `profkit merge` / `profkit show --memory` against llvm-profdata-22.
TEST(MemProfCli, MergeAndShowMatchLlvmProfdata) {
  const std::string bin = bin22("basic.cpp", "basic", "-no-pie");
  const std::string raw = run_profile(bin);
  const std::string dir = work_dir("cli");
  for (int v : {2, 3, 4}) {
    const std::string ref = dir + "/ref" + std::to_string(v) + ".profdata";
    const std::string ours = dir + "/ours" + std::to_string(v) + ".profdata";
    run_ok("llvm-profdata-22 merge --memprof-version=" + std::to_string(v) +
           " --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) + " -o " + sh_quote(ref));
    run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=" + std::to_string(v) +
           " --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) + " -o " + sh_quote(ours));
    EXPECT_TRUE(read_file(ref) == read_file(ours)) << "version " << v;
    EXPECT_EQ(run_ok(sh_quote(profkit_bin()) + " show --memory " + sh_quote(ours)).out,
              run_ok("llvm-profdata-22 show --memory " + sh_quote(ref)).out);
  }
  EXPECT_EQ(mask_histogram_pointer(run_ok(sh_quote(profkit_bin()) + " show --memory --profiled-binary=" +
                                          sh_quote(bin) + " " + sh_quote(raw))
                                       .out),
            mask_histogram_pointer(run_ok("llvm-profdata-22 show --memory --profiled-binary=" +
                                          sh_quote(bin) + " " + sh_quote(raw))
                                       .out));
}

// Beyond llvm-profdata 22, which finds no frame in a binary stripped of its DWARF: the
// separate debug file named by its .gnu_debuglink gives the unstripped binary's profile,
// and a file of that name whose CRC does not match the link is not used.
TEST(MemProfCli, SeparateDebugFileIsFoundThroughDebuglink) {
  const std::string bin = bin22("basic.cpp", "basic", "-no-pie");
  const std::string raw = run_profile(bin);
  const std::string dir = work_dir("debuglink");
  run_ok("cp " + sh_quote(bin) + " " + sh_quote(dir + "/basic") + " && cd " + sh_quote(dir) +
         " && objcopy --only-keep-debug basic basic.debug && strip --strip-debug basic" +
         " && objcopy --add-gnu-debuglink=basic.debug basic");
  const std::string ref = dir + "/ref.profdata";
  const std::string ours = dir + "/ours.profdata";
  run_ok("llvm-profdata-22 merge --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) +
         " -o " + sh_quote(ref));
  const std::string merge_stripped = sh_quote(profkit_bin()) + " merge --profiled-binary=" +
                                     sh_quote(dir + "/basic") + " " + sh_quote(raw) + " -o ";
  run_ok(merge_stripped + sh_quote(ours));
  EXPECT_TRUE(read_file(ref) == read_file(ours));
  write_file(dir + "/basic.debug", read_file(bin));
  const CommandResult wrong_crc = run(merge_stripped + sh_quote(dir + "/other.profdata"));
  EXPECT_NE(wrong_crc.status, 0);
  EXPECT_NE(wrong_crc.err.find("no entries in callstack map"), std::string::npos) << wrong_crc.err;
}

// Debug sections compressed with zlib (clang's -gz, distributions' debug files) are inflated:
// the profile equals llvm-profdata's of the uncompressed binary.
TEST(MemProfCli, CompressedDebugSectionsAreRead) {
  const std::string bin = bin22("basic.cpp", "basic", "-no-pie");
  const std::string raw = run_profile(bin);
  const std::string dir = work_dir("compressed");
  const std::string packed = dir + "/basic";
  run_ok("objcopy --compress-debug-sections=zlib " + sh_quote(bin) + " " + sh_quote(packed));
  ASSERT_NE(run_ok("readelf -S -W " + sh_quote(packed)).out.find(" C "), std::string::npos);
  run_ok("llvm-profdata-22 merge --profiled-binary=" + sh_quote(bin) + " " + sh_quote(raw) +
         " -o " + sh_quote(dir + "/ref.profdata"));
  run_ok(sh_quote(profkit_bin()) + " merge --profiled-binary=" + sh_quote(packed) + " " +
         sh_quote(raw) + " -o " + sh_quote(dir + "/ours.profdata"));
  EXPECT_TRUE(read_file(dir + "/ref.profdata") == read_file(dir + "/ours.profdata"));
}

TEST(MemProfCli, IrpgoAndMemprofInputsGiveLlvmProfdatasFile) {
  const std::string dir = work_dir("cli_mixed");
  const std::string bin = bin22("ctx.cpp", "ctx", "-no-pie");
  const std::string raw = run_profile(bin);
  const std::string pgo = build("ctx_pgo", "clang++-22 -O1 -fprofile-generate " +
                                               sh_quote(program("ctx.cpp")) + " -o %o");
  const std::string profraw = dir + "/ctx.profraw";
  run_ok("LLVM_PROFILE_FILE=" + sh_quote(profraw) + " " + sh_quote(pgo));
  run_ok("llvm-profdata-22 merge " + sh_quote(profraw) + " --profiled-binary=" + sh_quote(bin) +
         " " + sh_quote(raw) + " -o " + sh_quote(dir + "/ref.profdata"));
  run_ok(sh_quote(profkit_bin()) + " merge " + sh_quote(profraw) + " --profiled-binary=" +
         sh_quote(bin) + " " + sh_quote(raw) + " -o " + sh_quote(dir + "/ours.profdata"));
  EXPECT_TRUE(read_file(dir + "/ref.profdata") == read_file(dir + "/ours.profdata"));
}

TEST(MemProfCli, SeveralRunsAndBadInputs) {
  const std::string bin = bin22("basic.cpp", "basic", "-no-pie");
  const std::string dir = work_dir("cli_runs");
  const std::string out = dir + "/merged.profdata";
  run_ok(sh_quote(profkit_bin()) + " merge --profiled-binary=" + sh_quote(bin) + " " +
         sh_quote(run_profile(bin, "_run1")) + " " + sh_quote(run_profile(bin, "_run2")) + " -o " +
         sh_quote(out));
  const auto shown = run_ok("llvm-profdata-22 show --memory " + sh_quote(out));
  EXPECT_NE(shown.out.find("AllocCount:      200"), std::string::npos) << shown.out;
  // Wrong binary: one error line naming the binary, status 1, no output file.
  const std::string other = bin22("tiny.c", "tiny", "-no-pie");
  const std::string bad_out = dir + "/bad.profdata";
  auto r = run(sh_quote(profkit_bin()) + " merge --profiled-binary=" + sh_quote(other) + " " +
               sh_quote(run_profile(bin)) + " -o " + sh_quote(bad_out));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("error: No matching executable segments"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(file_exists(bad_out));
  // Truncated raw file.
  const std::string raw = read_file(run_profile(bin));
  write_file(dir + "/trunc.raw", raw.substr(0, raw.size() / 2));
  auto t = run(sh_quote(profkit_bin()) + " show --memory --profiled-binary=" + sh_quote(bin) +
               " " + sh_quote(dir + "/trunc.raw"));
  EXPECT_EQ(t.status, 1);
  EXPECT_NE(t.err.find("trunc.raw:"), std::string::npos) << t.err;
}

// ---- v4 data-access profiles (docs/formats/memprof.md C.7.1, E.2, E.3) ----

// Heap records plus a data-access profile exercising what the payload and the printer
// encode: symbols (one with a ".llvm." suffix LLVM canonicalizes away), string-literal
// hashes (hex and decimal), locations whose file names are shared and one that is also a
// cold symbol, equal access counts (printing keeps their order), duplicated cold symbols
// and hashes, names that need YAML quoting, and enough cold hashes to wrap their flow list.
std::string data_access_yaml() {
  std::string y = R"(---
HeapProfileRecords:
  - GUID:            main
    AllocSites:
      - Callstack:
          - { Function: mk, LineOffset: 1, Column: 13, IsInlineFrame: false }
          - { Function: main, LineOffset: 2, Column: 15, IsInlineFrame: false }
        MemInfoBlock:
          AllocCount:      4
          TotalSize:       160
          TotalLifetime:   1000000
          TotalLifetimeAccessDensity: 0
    CallSites:
      - Frames:
          - { Function: main, LineOffset: 2, Column: 15, IsInlineFrame: false }
        CalleeGuids: [ 0x1111, mk ]
DataAccessProfiles:
  SampledRecords:
    - Symbol: my_global_var
      AccessCount: 100
      Locations:
        - FileName: tiny.c
          Line: 7
        - FileName: 'dir with space/other.c'
          Line: 4294967295
    - Hash: 0xabcdef
      AccessCount: 5
      Locations:
        - FileName: lit.c
          Line: 3
    - Symbol: foo.llvm.123
      AccessCount: 7
      Locations:
        - FileName: tiny.c
          Line: 9
    - Hash: 42
      AccessCount: 7
    - Symbol: 'a:b'
      AccessCount: 18446744073709551615
    - Symbol: _ZN3fooL4dataE
      AccessCount: 7
  KnownColdSymbols: [ cold_global, tiny.c, cold2, cold_global, 'true', '123' ]
  KnownColdStrHashes: [ 0x999, 12, 0x999)";
  for (int i = 1; i <= 30; ++i) y += ", " + std::to_string(uint64_t{1234567891234567} * i);
  y += " ]\n...\n";
  return y;
}

TEST(MemProfDataAccess, YamlMergesAndShowsLikeLlvmProfdata) {
  const std::string dir = work_dir("dap");
  const std::string yaml = dir + "/in.yaml";
  write_file(yaml, data_access_yaml());
  for (int v : {2, 3, 4}) {
    const std::string ref = dir + "/ref" + std::to_string(v) + ".profdata";
    const std::string ours = dir + "/ours" + std::to_string(v) + ".profdata";
    run_ok("llvm-profdata-22 merge --memprof-version=" + std::to_string(v) + " " + sh_quote(yaml) +
           " -o " + sh_quote(ref));
    const auto merged = run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=" +
                               std::to_string(v) + " " + sh_quote(yaml) + " -o " + sh_quote(ours));
    EXPECT_EQ(merged.err, "") << "no warning: the data-access profile is carried over";
    const std::string ref_bytes = read_file(ref);
    EXPECT_TRUE(ref_bytes == read_file(ours)) << "version " << v;
    const uint64_t section = load_le<uint64_t>(as_bytes(ref_bytes).data() + 0x28);
    const auto theirs_shown = run_ok("llvm-profdata-22 show --memory " + sh_quote(ref)).out;
    EXPECT_EQ(run_ok(sh_quote(profkit_bin()) + " show --memory " + sh_quote(ref)).out, theirs_shown)
        << "version " << v;
    auto idx = memprof::read_indexed_memprof(as_bytes(ref_bytes));
    ASSERT_TRUE(idx) << format_error(ref, idx.error());
    EXPECT_EQ(report::show_memprof_indexed(*idx), theirs_shown) << "version " << v;
    if (v == 4) {
      // The payload really is there (an odd-sized one: the file need not end aligned),
      // and the printer shows it.
      EXPECT_NE(load_le<uint64_t>(as_bytes(ref_bytes).data() + section + 32), 0u);
      EXPECT_TRUE(idx->has_data_access_profile);
      EXPECT_EQ(idx->data.data_access.records.size(), 6u);
      EXPECT_EQ(idx->data.data_access.known_cold_symbols.size(), 5u);
      EXPECT_EQ(idx->data.data_access.known_cold_hashes.size(), 32u);
      EXPECT_NE(theirs_shown.find("    - Symbol:          foo\n"), std::string::npos) << theirs_shown;
      EXPECT_NE(theirs_shown.find("#   Num known cold string literals: 32\n"), std::string::npos);
      // Indexed -> model -> indexed gives the same file.
      memprof::IndexedWriteOptions o;
      o.version = 4;
      EXPECT_TRUE(memprof::write_memprof_only_profile(idx->data, o) == ref_bytes);
    } else {
      // v2/v3 drop the data-access profile silently: the same file as without it.
      EXPECT_FALSE(idx->has_data_access_profile);
      EXPECT_TRUE(idx->data.data_access.empty());
      std::string plain = data_access_yaml();
      plain = plain.substr(0, plain.find("DataAccessProfiles:")) + "...\n";
      write_file(dir + "/plain.yaml", plain);
      const std::string plain_ref = dir + "/plain" + std::to_string(v) + ".profdata";
      run_ok("llvm-profdata-22 merge --memprof-version=" + std::to_string(v) + " " +
             sh_quote(dir + "/plain.yaml") + " -o " + sh_quote(plain_ref));
      EXPECT_TRUE(read_file(plain_ref) == ref_bytes) << "version " << v;
    }
  }
  // What show prints is YAML both tools merge to the same v4 file (records now in the
  // printed order: by access count).
  const std::string shown = dir + "/shown.yaml";
  run_ok("llvm-profdata-22 show --memory " + sh_quote(dir + "/ref4.profdata") + " -o " +
         sh_quote(shown));
  run_ok("llvm-profdata-22 merge --memprof-version=4 " + sh_quote(shown) + " -o " +
         sh_quote(dir + "/ref_shown.profdata"));
  run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=4 " + sh_quote(shown) + " -o " +
         sh_quote(dir + "/ours_shown.profdata"));
  EXPECT_TRUE(read_file(dir + "/ref_shown.profdata") == read_file(dir + "/ours_shown.profdata"));
  // A data-access profile alone (no heap records) and one without sampled records.
  for (const char* text : {"---\nDataAccessProfiles:\n  SampledRecords:\n    - Symbol: zeta\n"
                           "      AccessCount: 2\n    - Hash: 5\n      AccessCount: 3\n...\n",
                           "---\nDataAccessProfiles:\n  KnownColdSymbols: [ a.x, a, b ]\n...\n"}) {
    write_file(dir + "/only.yaml", text);
    for (int v : {3, 4}) {
      const std::string vs = std::to_string(v);
      run_ok("llvm-profdata-22 merge --memprof-version=" + vs + " " +
             sh_quote(dir + "/only.yaml") + " -o " + sh_quote(dir + "/only_ref.profdata"));
      run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=" + vs + " " +
             sh_quote(dir + "/only.yaml") + " -o " + sh_quote(dir + "/only_ours.profdata"));
      EXPECT_TRUE(read_file(dir + "/only_ref.profdata") == read_file(dir + "/only_ours.profdata"))
          << text << "version " << v;
      EXPECT_EQ(run_ok(sh_quote(profkit_bin()) + " show --memory " +
                       sh_quote(dir + "/only_ref.profdata")).out,
                run_ok("llvm-profdata-22 show --memory " + sh_quote(dir + "/only_ref.profdata")).out)
          << text << "version " << v;
    }
  }
  const std::string seeds = std::string(PROFKIT_BINARY_DIR) + "/seeds";
  fs::create_directories(seeds + "/memprof_indexed_reader_fuzz");
  fs::create_directories(seeds + "/memprof_yaml_reader_fuzz");
  write_file(seeds + "/memprof_indexed_reader_fuzz/data_access_v4.indexed",
             read_file(dir + "/ref4.profdata"));
  write_file(seeds + "/memprof_yaml_reader_fuzz/data_access.yaml", data_access_yaml());
}

TEST(MemProfDataAccess, TruncatedOrCorruptPayloadFailsCleanly) {
  const std::string dir = work_dir("dap_bad");
  write_file(dir + "/in.yaml", data_access_yaml());
  const std::string ref = dir + "/ref.profdata";
  run_ok("llvm-profdata-22 merge --memprof-version=4 " + sh_quote(dir + "/in.yaml") + " -o " +
         sh_quote(ref));
  const std::string bytes = read_file(ref);
  const Bytes b = as_bytes(bytes);
  const uint64_t section = load_le<uint64_t>(b.data() + 0x28);
  const uint64_t payload = load_le<uint64_t>(b.data() + section + 32);
  const uint64_t payload_end = load_le<uint64_t>(b.data() + 0x30);  // binary-id section
  ASSERT_GT(payload_end, payload);
  ASSERT_TRUE(memprof::read_indexed_memprof(b));
  // Every cut inside the payload fails with an error that names an offset in the file.
  for (uint64_t n = payload; n < payload_end; ++n) {
    auto r = memprof::read_indexed_memprof(as_bytes(std::string_view(bytes).substr(0, n)));
    ASSERT_FALSE(r) << "prefix " << n;
    EXPECT_TRUE(r.error().has_offset()) << "prefix " << n;
    EXPECT_LE(r.error().offset, n) << "prefix " << n;
  }
  // Field corruptions: counts, the names length, a symbol index, a file index, the flag.
  const auto corrupt = [&](uint64_t at, const std::string& with) {
    std::string bad = bytes;
    bad.replace(at, with.size(), with);
    return memprof::read_indexed_memprof(as_bytes(bad));
  };
  const auto u64 = [](uint64_t v) {
    std::string s(8, '\0');
    store_le<uint64_t>(reinterpret_cast<uint8_t*>(s.data()), v);
    return s;
  };
  const uint64_t names_len = load_le<uint64_t>(b.data() + payload + 16);
  const uint64_t hashes_at = payload + 24 + (names_len + 7) / 8 * 8;
  const uint64_t n_hashes = load_le<uint64_t>(b.data() + hashes_at);
  const uint64_t records_at = hashes_at + 8 + 8 * n_hashes;
  const uint64_t first_record = records_at + 8;  // my_global_var, two locations
  for (const auto& [at, with] : std::vector<std::pair<uint64_t, std::string>>{
           {payload, u64(99)},                    // more indexed strings than stored
           {payload + 8, u64(UINT64_MAX)},        // cold symbol count overflows
           {payload + 16, u64(UINT64_MAX / 2)},   // names run past the end
           {payload + 24, std::string(1, '\x7f')},  // uncompressed size wrong for the stream
           {hashes_at, u64(UINT64_MAX / 8)},      // cold hashes past the end
           {records_at, u64(1000000)},            // records past the end
           {first_record, u64(1000)},             // symbol index out of range
           {first_record + 8, std::string(1, '\x02')},  // literal flag not 0/1
           {first_record + 17, u64(UINT64_MAX)},  // location count past the end
           {first_record + 25, u64(77)},          // file index out of range
           {section + 32, u64(section)},          // payload offset inside the section
           {section + 32, u64(bytes.size() + 8)}, // payload offset past the end
       }) {
    auto r = corrupt(at, with);
    ASSERT_FALSE(r) << "corruption at " << at;
    const std::string msg = format_error(ref, r.error());
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(r.error().has_offset()) << msg;
  }
  std::mt19937 rng(11);
  for (int i = 0; i < 2000; ++i) {
    std::string bad = bytes;
    for (int k = 0; k < 3; ++k)
      bad[payload + rng() % (payload_end - payload)] = static_cast<char>(rng());
    auto r = memprof::read_indexed_memprof(as_bytes(bad));
    if (r) (void)report::show_memprof_indexed(*r);
  }
  // The CLI: one error line naming the file, status 1.
  write_file(dir + "/trunc.profdata", bytes.substr(0, payload + 20));
  auto t = run(sh_quote(profkit_bin()) + " show --memory " + sh_quote(dir + "/trunc.profdata"));
  EXPECT_EQ(t.status, 1);
  EXPECT_NE(t.err.find("trunc.profdata:"), std::string::npos) << t.err;
  EXPECT_EQ(std::count(t.err.begin(), t.err.end(), '\n'), 1) << t.err;
}

TEST(MemProfDataAccess, BadYamlGivesOneLineErrorsWithOffsets) {
  const std::string head = "---\nDataAccessProfiles:\n";
  for (const auto& [body, expect] : std::vector<std::pair<std::string, std::string>>{
           {"  SampledRecords:\n    - Symbol: foo\n", "missing AccessCount"},
           {"  SampledRecords:\n    - Symbol: foo\n      Hash: 3\n      AccessCount: 1\n",
            "exactly one of Symbol and Hash"},
           {"  SampledRecords:\n    - AccessCount: 1\n", "exactly one of Symbol and Hash"},
           {"  SampledRecords:\n    - Symbol: a.llvm.1\n      AccessCount: 1\n"
            "    - Symbol: a.llvm.2\n      AccessCount: 2\n",
            "symbol 'a' is sampled twice"},
           {"  SampledRecords:\n    - Hash: 3\n      AccessCount: 1\n    - Hash: 0x3\n"
            "      AccessCount: 1\n",
            "hash 3 is sampled twice"},
           {"  SampledRecords:\n    - Hash: x3\n      AccessCount: 1\n", "expected a number for Hash"},
           {"  SampledRecords:\n    - Symbol: ''\n      AccessCount: 1\n", "non-empty symbol name"},
           {"  SampledRecords:\n    - Symbol: s\n      AccessCount: 1\n      Locations:\n"
            "        - FileName: f.c\n          Line: 4294967296\n",
            "Line exceeds 32 bits"},
           {"  SampledRecords:\n    - Symbol: s\n      AccessCount: 1\n      Locations:\n"
            "        - Line: 3\n",
            "missing FileName"},
           {"  SampledRecords:\n    - Symbol: s\n      Count: 1\n", "unknown key 'Count'"},
           {"  KnownColdSymbols: [ a, '' ]\n", "non-empty symbol name"},
           {"  KnownColdStrHashes: [ 1, -2 ]\n", "expected a number"},
           {"  Other: 1\n", "unknown key 'Other'"},
           {"  SampledRecords: 3\n", "SampledRecords must be a list"},
       }) {
    const std::string text = head + body + "...\n";
    auto r = memprof::read_memprof_yaml(as_bytes(text));
    ASSERT_FALSE(r) << body;
    const std::string msg = format_error("in.yaml", r.error());
    EXPECT_NE(msg.find(expect), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(r.error().has_offset()) << msg;
    EXPECT_GE(r.error().offset, head.size()) << msg;
    EXPECT_LT(r.error().offset, text.size()) << msg;
  }
}

// Beyond llvm-profdata (which keeps only its first memprof input): several YAML inputs'
// data-access profiles are merged, access counts of a symbol or hash summed, locations
// and cold lists united in first-seen order.
TEST(MemProfDataAccess, SeveralInputsAreMerged) {
  const std::string dir = work_dir("dap_merge");
  write_file(dir + "/a.yaml",
             "---\nDataAccessProfiles:\n  SampledRecords:\n"
             "    - Symbol: g\n      AccessCount: 10\n      Locations:\n"
             "        - FileName: a.c\n          Line: 1\n"
             "    - Hash: 7\n      AccessCount: 1\n"
             "  KnownColdSymbols: [ c1 ]\n  KnownColdStrHashes: [ 9 ]\n...\n");
  write_file(dir + "/b.yaml",
             "---\nDataAccessProfiles:\n  SampledRecords:\n"
             "    - Symbol: g.llvm.5\n      AccessCount: 5\n      Locations:\n"
             "        - FileName: a.c\n          Line: 1\n        - FileName: b.c\n          Line: 2\n"
             "    - Symbol: h\n      AccessCount: 30\n"
             "    - Hash: 7\n      AccessCount: 2\n"
             "  KnownColdSymbols: [ c2, c1 ]\n  KnownColdStrHashes: [ 8, 9 ]\n...\n");
  const std::string out = dir + "/ab.profdata";
  run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=4 " + sh_quote(dir + "/a.yaml") + " " +
         sh_quote(dir + "/b.yaml") + " -o " + sh_quote(out));
  const std::string expected = R"(DataAccessProfiles:
  SampledRecords:
    - Symbol:          h
      AccessCount:     30
    - Symbol:          g
      AccessCount:     15
      Locations:
        - FileName:        a.c
          Line:            1
        - FileName:        b.c
          Line:            2
    - Hash:            7
      AccessCount:     3
  KnownColdSymbols:
    - c1
    - c2
  KnownColdStrHashes: [ 8, 9 ]
...
)";
  // llvm-profdata reads our merged file and prints the merged profile.
  const std::string shown = run_ok("llvm-profdata-22 show --memory " + sh_quote(out)).out;
  ASSERT_NE(shown.find("DataAccessProfiles:"), std::string::npos) << shown;
  EXPECT_EQ(shown.substr(shown.find("DataAccessProfiles:")), expected);
  EXPECT_NE(shown.find("#   Num hot symbols and string literals: 3\n"), std::string::npos);
}

// With IRPGO counters in the same file, the data-access payload leaves the binary-id
// section at an odd offset (LLVM does not pad between them; the id itself is padded
// relative to its section): still llvm-profdata's file. Beyond llvm-profdata, which writes
// an empty MemProf section for indexed inputs, `profkit merge` keeps an indexed input's
// records and data-access profile: merging a v4 file alone gives the same file back.
TEST(MemProfDataAccess, IrpgoInputsAndIndexedInputsKeepThePayload) {
  const std::string dir = work_dir("dap_mixed");
  write_file(dir + "/in.yaml", data_access_yaml());
  const std::string pgo = build("ctx_pgo", "clang++-22 -O1 -fprofile-generate " +
                                               sh_quote(program("ctx.cpp")) + " -o %o");
  const std::string profraw = dir + "/ctx.profraw";
  run_ok("LLVM_PROFILE_FILE=" + sh_quote(profraw) + " " + sh_quote(pgo));
  const std::string ref = dir + "/ref.profdata", ours = dir + "/ours.profdata";
  const std::string inputs = sh_quote(profraw) + " " + sh_quote(dir + "/in.yaml");
  run_ok("llvm-profdata-22 merge --memprof-version=4 " + inputs + " -o " + sh_quote(ref));
  run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=4 " + inputs + " -o " + sh_quote(ours));
  const std::string ref_bytes = read_file(ref);
  EXPECT_TRUE(ref_bytes == read_file(ours));
  EXPECT_NE(load_le<uint64_t>(as_bytes(ref_bytes).data() + 0x30) % 8, 0u)
      << "the case this test is for: binary ids at an odd offset";
  EXPECT_EQ(run_ok(sh_quote(profkit_bin()) + " show --memory " + sh_quote(ours)).out,
            run_ok("llvm-profdata-22 show --memory " + sh_quote(ref)).out);

  // Indexed inputs: the IRPGO + memprof file above, and a memprof-only v4 file.
  const std::string only = dir + "/only.profdata";
  run_ok("llvm-profdata-22 merge --memprof-version=4 " + sh_quote(dir + "/in.yaml") + " -o " +
         sh_quote(only));
  for (const std::string& in : {ref, only}) {
    const std::string again = dir + "/again.profdata";
    run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=4 " + sh_quote(in) + " -o " +
           sh_quote(again));
    EXPECT_TRUE(read_file(again) == read_file(in)) << in;
    const std::string shown = run_ok("llvm-profdata-22 show --memory " + sh_quote(again)).out;
    EXPECT_NE(shown.find("  KnownColdSymbols:\n    - '123'\n"), std::string::npos) << shown;
  }
  // Two indexed inputs: the memprof-only file twice doubles every access count.
  const std::string twice = dir + "/twice.profdata";
  run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=4 " + sh_quote(only) + " " +
         sh_quote(only) + " -o " + sh_quote(twice));
  auto idx = memprof::read_indexed_memprof(as_bytes(read_file(twice)));
  ASSERT_TRUE(idx);
  ASSERT_EQ(idx->data.data_access.records.size(), 6u);
  EXPECT_EQ(idx->data.data_access.records[0].symbol, "my_global_var");
  EXPECT_EQ(idx->data.data_access.records[0].access_count, 200u);
  EXPECT_EQ(idx->data.data_access.records[0].locations.size(), 2u);
  EXPECT_EQ(idx->data.data_access.records[4].access_count, UINT64_MAX) << "saturates";
}

// Names that LLVM's YAML writer quotes or escapes, read from quoted and escaped input
// (single quotes with '', double quotes with \u, \\, \", \t; ',' and ']' inside quoted
// flow items) and canonicalized as LLVM does (".str.1" stays, ".__uniq." survives):
// identical files, identical show text, and the show text merges back identically.
TEST(MemProfDataAccess, QuotedAndEscapedNamesMatchLlvmProfdata) {
  const std::string dir = work_dir("dap_quoting");
  const std::string yaml = R"(---
DataAccessProfiles:
  SampledRecords:
    - Symbol: ".str.1"
      AccessCount: 9
    - Symbol: foo.__uniq.123.llvm.4
      AccessCount: 8
      Locations:
        - FileName: ""
          Line: 0
        - FileName: "caf\u00e9\\x\"q"
          Line: 2
        - FileName: "tab\there"
          Line: 3
    - Symbol: "x y "
      AccessCount: 7
    - Symbol: "-neg"
      AccessCount: 6
    - Symbol: "1e5"
      AccessCount: 5
    - Symbol: "0x1F"
      AccessCount: 4
    - Symbol: "null"
      AccessCount: 3
    - Symbol: "a\u0085b"
      AccessCount: 2
  KnownColdSymbols: [ "~", ".5", "+1", "0o17", ".inf", "-.inf", ".", 'a''b', "é", "a,b", 'c]d', "e\"]" ]
...
)";
  write_file(dir + "/in.yaml", yaml);
  for (const std::string& in : {dir + "/in.yaml", dir + "/shown.yaml"}) {
    run_ok("llvm-profdata-22 merge --memprof-version=4 " + sh_quote(in) + " -o " +
           sh_quote(dir + "/ref.profdata"));
    run_ok(sh_quote(profkit_bin()) + " merge --memprof-version=4 " + sh_quote(in) + " -o " +
           sh_quote(dir + "/ours.profdata"));
    EXPECT_TRUE(read_file(dir + "/ref.profdata") == read_file(dir + "/ours.profdata")) << in;
    const std::string theirs = run_ok("llvm-profdata-22 show --memory " +
                                      sh_quote(dir + "/ref.profdata")).out;
    EXPECT_EQ(run_ok(sh_quote(profkit_bin()) + " show --memory " +
                     sh_quote(dir + "/ref.profdata")).out,
              theirs) << in;
    EXPECT_NE(theirs.find("\"caf\xc3\xa9\\\\x\\\"q\""), std::string::npos) << theirs;
    write_file(dir + "/shown.yaml", theirs);
  }
}

}  // namespace
}  // namespace profkit::test
