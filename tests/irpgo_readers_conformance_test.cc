// The indexed and text readers and the text writer against the real llvm-profdata: the spec
// 8.1 programs are built with clang-14 and clang-22 -fprofile-generate, indexed by the real
// llvm-profdata (v13, v11 via --write-prev-version, v7 by llvm-profdata-14), and
// write_text_profile(read_indexed_profile(file)) must equal llvm-profdata's own
// `merge --text` of that file byte for byte. Text output must read back to the same bytes.
// Real files are also truncated at every offset and byte-flipped: error or value, no crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/instrprof/indexed_reader.h"
#include "format/instrprof/reader.h"
#include "format/instrprof/summary.h"
#include "format/instrprof/text_reader.h"
#include "format/instrprof/text_writer.h"
#include "tests/support/harness.h"

namespace profkit::test {
namespace {

using instrprof::TextFlavor;

struct Indexed {
  std::string path;
  std::string release;             // llvm-profdata that wrote it: "14" or "22"
  uint64_t version = 0;            // expected low version number
  std::string text_flags;          // extra flags for the reference `merge --text`
};

class ReadersConformance : public ::testing::Test {
 protected:
  static std::string dir_;
  static std::map<std::string, Indexed> indexed_;      // name -> file
  static std::map<std::string, std::string> raws_;     // name -> first raw file
  static std::map<std::string, std::string> texts_;    // name -> llvm text file (22 or 14)

  static void SetUpTestSuite() {
    dir_ = work_dir("readers");
    const std::string p = source_path("tests/programs/irpgo") + "/";
    struct Build {
      std::string name, release, compile;
      std::vector<std::string> runs;
    };
    std::vector<Build> builds;
    for (const std::string r : {"14", "22"}) {
      builds.push_back({"simple" + r, r, "clang-" + r + " -O0 " + p + "simple.c", {"", "37"}});
      builds.push_back({"vp" + r, r, "clang-" + r + " -O2 " + p + "vp.c", {"", "37"}});
      builds.push_back({"many" + r, r, "clang-" + r + " -O0 " + p + "many.c", {""}});
      builds.push_back({"entry" + r, r,
                        "clang-" + r + " -O0 -mllvm -pgo-instrument-entry " + p + "simple.c",
                        {""}});
      builds.push_back({"fecov" + r, r,
                        "clang-" + r + " -O0 -mllvm -pgo-function-entry-coverage " + p +
                            "simple.c",
                        {""}});
    }
    builds.push_back({"vt22", "22",
                      "clang++-22 -O2 -mllvm -enable-vtable-value-profiling " + p + "vt.cpp", {""}});
    builds.push_back({"vt2_22", "22",
                      "clang++-22 -O2 -mllvm -enable-vtable-value-profiling " + p + "vt2.cpp",
                      {""}});
    builds.push_back({"temporal22", "22",
                      "clang-22 -O0 -mllvm -pgo-temporal-instrumentation " + p + "simple.c",
                      {"", "3"}});
    builds.push_back({"blockcov22", "22",
                      "clang-22 -O0 -mllvm -pgo-block-coverage " + p + "simple.c", {""}});
    builds.push_back({"loopent22", "22",
                      "clang-22 -O0 -mllvm -pgo-instrument-loop-entries " + p + "simple.c", {""}});
    builds.push_back({"mcdc22", "22",
                      "clang-22 -fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc " + p +
                          "mcdc.c",
                      {""}});
    std::map<std::string, std::vector<std::string>> all_raws;
    for (const Build& b : builds) {
      const std::string exe = dir_ + "/" + b.name;
      // mcdc is a front-end build: -fprofile-instr-generate is already in its flags.
      const std::string gen = b.name == "mcdc22" ? "" : " -fprofile-generate";
      run_ok(b.compile + gen + " -o " + sh_quote(exe));
      for (size_t i = 0; i < b.runs.size(); ++i) {
        const std::string raw = exe + "_" + std::to_string(i) + ".profraw";
        run_ok("LLVM_PROFILE_FILE=" + sh_quote(raw) + " " + sh_quote(exe) + " " + b.runs[i] +
               " > /dev/null");
        all_raws[b.name].push_back(raw);
      }
      raws_[b.name] = all_raws[b.name][0];
    }
    auto merge = [&](const std::string& release, const std::string& flags,
                     const std::vector<std::string>& inputs, const std::string& out) {
      std::string cmd = "llvm-profdata-" + release + " merge " + flags;
      for (const auto& in : inputs) cmd += " " + sh_quote(in);
      run_ok(cmd + " -o " + sh_quote(out));
    };
    for (const auto& [name, raws] : all_raws) {
      const std::string release = name.substr(name.size() - 2);
      const std::string base = dir_ + "/" + name;
      if (release == "14") {
        merge("14", "", raws, base + ".v7.profdata");
        indexed_[name + ".v7"] = {base + ".v7.profdata", "14", 7, ""};
      } else {
        merge("22", "--num-threads=1", raws, base + ".v13.profdata");
        merge("22", "--num-threads=1 --write-prev-version", raws, base + ".v11.profdata");
        indexed_[name + ".v13"] = {base + ".v13.profdata", "22", 13, ""};
        indexed_[name + ".v11"] = {base + ".v11.profdata", "22", 11, ""};
      }
    }
    // Kept vtable names (v12+ section non-empty); the reference keeps them too.
    for (const std::string name : {"vt22", "vt2_22"}) {
      const std::string out = dir_ + "/" + name + ".keep.profdata";
      merge("22", "--keep-vtable-symbols", all_raws[name], out);
      indexed_[name + ".keep"] = {out, "22", 13, "--keep-vtable-symbols"};
    }
    // Several programs in one profile (multiple value kinds, temporal traces, many keys).
    merge("22", "--num-threads=1",
          {all_raws["vp22"][0], all_raws["vt22"][0], all_raws["temporal22"][0],
           all_raws["many22"][0]},
          dir_ + "/combo22.profdata");
    indexed_["combo22.v13"] = {dir_ + "/combo22.profdata", "22", 13, ""};
    // Context-sensitive records: a CS profile merged with the profile it was built from.
    const std::string s22 = indexed_["simple22.v13"].path;
    run_ok("clang-22 -O2 -fprofile-use=" + sh_quote(s22) + " -fcs-profile-generate " + p +
           "simple.c -o " + sh_quote(dir_ + "/cs22") + " 2>/dev/null");
    run_ok("LLVM_PROFILE_FILE=" + sh_quote(dir_ + "/cs22.profraw") + " " +
           sh_quote(dir_ + "/cs22") + " > /dev/null");
    merge("22", "", {s22, dir_ + "/cs22.profraw"}, dir_ + "/csm22.profdata");
    indexed_["csm22.v13"] = {dir_ + "/csm22.profdata", "22", 13, ""};
    const std::string s14 = indexed_["simple14.v7"].path;
    run_ok("clang-14 -O2 -fprofile-use=" + sh_quote(s14) + " -fcs-profile-generate " + p +
           "simple.c -o " + sh_quote(dir_ + "/cs14") + " 2>/dev/null");
    run_ok("LLVM_PROFILE_FILE=" + sh_quote(dir_ + "/cs14.profraw") + " " +
           sh_quote(dir_ + "/cs14") + " > /dev/null");
    merge("14", "", {s14, dir_ + "/cs14.profraw"}, dir_ + "/csm14.profdata");
    indexed_["csm14.v7"] = {dir_ + "/csm14.profdata", "14", 7, ""};

    // LLVM's text output of every indexed file, and seeds for the fuzz targets.
    namespace fs = std::filesystem;
    const std::string seeds = std::string(PROFKIT_BINARY_DIR) + "/seeds/";
    fs::create_directories(seeds + "instrprof_indexed_reader_fuzz");
    fs::create_directories(seeds + "instrprof_text_reader_fuzz");
    for (const auto& [name, f] : indexed_) {
      const std::string txt = dir_ + "/" + name + ".txt";
      run_ok("llvm-profdata-" + f.release + " merge --text " + f.text_flags + " " +
             sh_quote(f.path) + " -o " + sh_quote(txt));
      texts_[name] = txt;
      fs::copy_file(f.path, seeds + "instrprof_indexed_reader_fuzz/" + name + ".profdata",
                    fs::copy_options::overwrite_existing);
      fs::copy_file(txt, seeds + "instrprof_text_reader_fuzz/" + name + ".txt",
                    fs::copy_options::overwrite_existing);
    }
  }

  static TextFlavor flavor_of(const Indexed& f) {
    return f.release == "14" ? TextFlavor::llvm14 : TextFlavor::llvm22;
  }
};

std::string ReadersConformance::dir_;
std::map<std::string, Indexed> ReadersConformance::indexed_;
std::map<std::string, std::string> ReadersConformance::raws_;
std::map<std::string, std::string> ReadersConformance::texts_;

Expected<instrprof::Profile> read_indexed(const std::string& bytes) {
  return instrprof::read_indexed_profile(as_bytes(bytes));
}

TEST_F(ReadersConformance, EveryKindOfFileWasBuilt) {
  // v7 x 5 + csm14, v13 and v11 x 11, kept vtables x 2, combo, csm22.
  EXPECT_EQ(indexed_.size(), 6u + 2 * 11 + 2 + 1 + 1);
  for (const auto& [name, f] : indexed_) EXPECT_TRUE(file_exists(f.path)) << name;
}

TEST_F(ReadersConformance, IndexedTextMatchesLlvmProfdataMergeText) {
  for (const auto& [name, f] : indexed_) {
    const std::string bytes = read_file(f.path);
    auto p = read_indexed(bytes);
    ASSERT_TRUE(p) << name << ": " << format_error(f.path, p.error());
    EXPECT_EQ(p->version, f.version) << name;
    EXPECT_EQ(instrprof::write_text_profile(*p, flavor_of(f)), read_file(texts_[name])) << name;
  }
}

TEST_F(ReadersConformance, StoredSummariesMatchTheRecords) {
  // The summary llvm-profdata stored (and clang uses) is what summary.h computes from the
  // records we read: checks both the summary fields and the records they count.
  for (const auto& [name, f] : indexed_) {
    auto file = instrprof::read_indexed_file(as_bytes(read_file(f.path)));
    ASSERT_TRUE(file) << name;
    ASSERT_TRUE(file->summary.has_value()) << name;
    instrprof::SummaryBuilder plain(f.release == "22"), cs(f.release == "22");
    for (const auto& r : file->profile.records) (r.is_context_sensitive() ? cs : plain).add_record(r);
    EXPECT_EQ(*file->summary, plain.finish()) << name;
    EXPECT_EQ(file->cs_summary.has_value(), (file->profile.flags & instrprof::kFlagCSIR) != 0);
    if (file->cs_summary) {
      EXPECT_EQ(*file->cs_summary, cs.finish()) << name;
    }
  }
}

TEST_F(ReadersConformance, Llvm22ReadsLlvm14FilesAsWeDo) {
  // LLVM 22 reading a v7 file prints its text with the 22 writer; so must we.
  for (const auto& [name, f] : indexed_) {
    if (f.release != "14") continue;
    auto p = read_indexed(read_file(f.path));
    ASSERT_TRUE(p) << name;
    const CommandResult ref = run_ok("llvm-profdata-22 merge --text " + sh_quote(f.path) + " -o -");
    EXPECT_EQ(instrprof::write_text_profile(*p), ref.out) << name;
  }
}

TEST_F(ReadersConformance, IndexedRecordsComeInPayloadOrderLikeShowText) {
  // `show --text --all-functions` prints records in storage order (docs/formats/irpgo.md 5.1, 5.3).
  for (const std::string name : {"many22.v13", "many14.v7", "vp22.v11", "combo22.v13"}) {
    const Indexed& f = indexed_.at(name);
    auto p = read_indexed(read_file(f.path));
    ASSERT_TRUE(p) << name;
    const auto names = instrprof::NameResolver::for_reader(*p);
    std::string ours = ":ir\n";
    for (const auto& r : p->records)
      instrprof::append_text_record(ours, r, names, flavor_of(f));
    const CommandResult ref = run_ok("llvm-profdata-" + f.release +
                                     " show --text --all-functions " + sh_quote(f.path));
    EXPECT_EQ(ours, ref.out) << name;
  }
}

TEST_F(ReadersConformance, LlvmTextReadsBackToTheSameBytes) {
  for (const auto& [name, txt] : texts_) {
    const std::string text = read_file(txt);
    auto p = instrprof::read_text_profile(text);
    ASSERT_TRUE(p) << name << ": " << format_error(txt, p.error());
    EXPECT_EQ(instrprof::write_text_profile(*p, flavor_of(indexed_.at(name))), text) << name;
  }
}

TEST_F(ReadersConformance, TextReaderAgreesWithIndexedReader) {
  // Same records (as sets: text is sorted by name and hash) apart from value targets the
  // text printed as external symbols.
  for (const std::string name : {"simple22.v13", "many22.v13", "csm22.v13", "mcdc22.v11",
                                 "simple14.v7"}) {
    auto ip = read_indexed(read_file(indexed_.at(name).path));
    auto tp = instrprof::read_text_profile(read_file(texts_.at(name)));
    ASSERT_TRUE(ip && tp) << name;
    EXPECT_EQ(ip->flags & ~instrprof::kFlagMemProf, tp->flags) << name;
    auto key = [](const instrprof::Record& r) { return std::make_pair(r.name, r.hash); };
    std::map<std::pair<std::string, uint64_t>, instrprof::Record> want;
    for (const auto& r : ip->records) want[key(r)] = r;
    ASSERT_EQ(tp->records.size(), want.size()) << name;
    for (const auto& r : tp->records) {
      auto it = want.find(key(r));
      ASSERT_NE(it, want.end()) << name << " " << r.name;
      EXPECT_EQ(r.counts, it->second.counts) << name << " " << r.name;
      EXPECT_EQ(r.bitmap, it->second.bitmap) << name << " " << r.name;
    }
  }
}

TEST_F(ReadersConformance, FactoryReadsRawIndexedAndTextAlike) {
  for (const std::string name : {"simple22", "vp22", "vt22"}) {
    // Indexed and text: what merge --text of the indexed file prints.
    const std::string indexed = indexed_.at(name + ".v13").path;
    const CommandResult ref = run_ok("llvm-profdata-22 merge --text " + sh_quote(indexed) + " -o -");
    for (const std::string& path : {indexed, texts_.at(name + ".v13")}) {
      const std::string bytes = read_file(path);
      auto p = instrprof::read_profile(as_bytes(bytes));
      ASSERT_TRUE(p) << path << ": " << format_error(path, p.error());
      EXPECT_EQ(instrprof::write_text_profile(*p), ref.out) << path;
    }
    // Raw: not merged (value sites keep the runtime's order), so compare with show --text,
    // which prints a reader's records as stored, names resolved through its symbol table.
    const std::string raw = raws_.at(name);
    const std::string bytes = read_file(raw);
    auto p = instrprof::read_profile(as_bytes(bytes));
    ASSERT_TRUE(p) << raw << ": " << format_error(raw, p.error());
    EXPECT_EQ(p->format, instrprof::ProfileFormat::raw);
    const auto names = instrprof::NameResolver::for_reader(*p);
    std::string ours = ":ir\n";
    for (const auto& r : p->records) instrprof::append_text_record(ours, r, names);
    const CommandResult show =
        run_ok("llvm-profdata-22 show --text --all-functions " + sh_quote(raw));
    EXPECT_EQ(ours, show.out) << raw;
  }
  auto bad = instrprof::read_profile(as_bytes(std::string("\x01\x02\x03\xff", 4)));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::bad_magic);
}

TEST_F(ReadersConformance, EveryPrefixOfRealFilesGivesAnErrorWithinThePrefix) {
  for (const std::string name : {"vp22.v13", "vp14.v7", "mcdc22.v11", "temporal22.v13",
                                 "vt22.keep", "csm22.v13"}) {
    const std::string bytes = read_file(indexed_.at(name).path);
    ASSERT_TRUE(read_indexed(bytes)) << name;
    for (size_t n = 0; n < bytes.size(); ++n) {
      // An exact-size heap copy, so ASan sees any read past the prefix.
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
      auto p = instrprof::read_indexed_profile(Bytes(prefix.data(), prefix.size()));
      // Only the zero padding after the last section may be cut without harm.
      if (n + 8 <= bytes.size()) {
        ASSERT_FALSE(p) << name << " prefix " << n;
      }
      if (!p && p.error().has_offset()) {
        EXPECT_LE(p.error().offset, n) << name << " prefix " << n << ": " << p.error().message;
      }
    }
  }
}

TEST_F(ReadersConformance, FlippedBytesNeverCrash) {
  size_t accepted = 0, rejected = 0;
  for (const std::string name : {"vp22.v13", "vp14.v7", "mcdc22.v11", "temporal22.v13",
                                 "vt2_22.keep", "csm14.v7"}) {
    const std::string bytes = read_file(indexed_.at(name).path);
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (uint8_t mask : {0xFF, 0x01, 0x80}) {
        std::vector<uint8_t> copy(bytes.begin(), bytes.end());
        copy[i] ^= mask;
        auto p = instrprof::read_indexed_profile(Bytes(copy.data(), copy.size()));
        if (p) {
          ++accepted;
          (void)instrprof::write_text_profile(*p);
        } else {
          ++rejected;
          EXPECT_FALSE(p.error().message.empty());
        }
      }
    }
  }
  EXPECT_GT(accepted, 0u);  // counter values may change freely
  EXPECT_GT(rejected, 0u);
}

TEST_F(ReadersConformance, CorruptHashTableIsReportedWithItsOffset) {
  const std::string bytes = read_file(indexed_.at("vp22.v13").path);
  const uint64_t hash_offset = load_le<uint64_t>(reinterpret_cast<const uint8_t*>(&bytes[0x20]));
  std::string bad = bytes;
  bad[hash_offset] = 3;  // NumBuckets = 3
  auto p = read_indexed(bad);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().offset, hash_offset);
  EXPECT_EQ(format_error("vp22.profdata", p.error()).rfind("vp22.profdata:", 0), 0u);
  // Halving NumBuckets moves items to the wrong bucket: also reported (LLVM's lookup would
  // silently miss functions).
  std::string halved = bytes;
  const uint64_t buckets = load_le<uint64_t>(reinterpret_cast<const uint8_t*>(&bytes[hash_offset]));
  ASSERT_GT(buckets, 1u);
  halved[hash_offset] = static_cast<char>(buckets / 2);
  EXPECT_FALSE(read_indexed(halved));
}

}  // namespace
}  // namespace profkit::test
