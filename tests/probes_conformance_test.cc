// Conformance of `profkit probes` with llvm-profgen (--show-pseudo-probe
// --show-disassembly-only) on programs built by clang 14 and clang 22 with
// -fpseudo-probe-for-profiling: the descriptor block, the section and symbol headers, the
// address column and every [Probe] line must be identical (instruction text may differ: we
// use capstone). Mixed LLVM 14 + LLVM 22 binaries are checked against the placement of the
// same objects in single-version links. Bad inputs must fail with one line and status 1.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "format/bytes/cursor.h"
#include "symbolize/source_map.h"
#include "format/elf/elf_file.h"
#include "tests/support/harness.h"

namespace profkit::test {
namespace {

namespace fs = std::filesystem;

std::string program(const std::string& name) { return source_path("tests/programs/probe/" + name); }

std::string clang(int version, bool cxx) {
  return std::string(cxx ? "clang++-" : "clang-") + std::to_string(version);
}

std::string profgen(int version) { return "llvm-profgen-" + std::to_string(version); }

std::string build(const std::string& output, const std::string& command) {
  return build_once(output, command);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Keeps the address column of instruction lines (`%8x:`) and drops the instruction text, which
// comes from different disassemblers. Every other line is kept verbatim.
std::string normalize_listing(const std::string& text) {
  std::string out;
  for (const auto& line : lines(text)) {
    const size_t colon = line.find(':');
    bool instruction = colon != std::string::npos && colon + 1 < line.size() &&
                       line[colon + 1] == '\t' && colon > 0;
    for (size_t i = 0; instruction && i < colon; ++i)
      if (!(line[i] == ' ' || std::isxdigit(static_cast<unsigned char>(line[i]))))
        instruction = false;
    out += instruction ? line.substr(0, colon + 1) : line;
    out += '\n';
  }
  return out;
}

// Fraction of instruction lines whose text (not just address) equals llvm-profgen 22's.
// Capstone and LLVM's printer differ in a few spellings (docs/pseudo-probes.md).
double identical_instruction_fraction(const std::string& expected, const std::string& actual) {
  std::map<std::string, std::string> want;
  for (const auto& line : lines(expected)) {
    const size_t colon = line.find(":\t");
    if (colon != std::string::npos && line.rfind(" [Probe]", 0) != 0)
      want[line.substr(0, colon)] = line;
  }
  size_t total = 0, same = 0;
  for (const auto& line : lines(actual)) {
    const size_t colon = line.find(":\t");
    if (colon == std::string::npos || line.rfind(" [Probe]", 0) == 0) continue;
    auto it = want.find(line.substr(0, colon));
    if (it == want.end()) continue;
    ++total;
    same += it->second == line;
  }
  return total == 0 ? 0.0 : static_cast<double>(same) / static_cast<double>(total);
}

std::string only_probe_lines(const std::string& text) {
  std::string out;
  for (const auto& line : lines(text))
    if (line.rfind(" [Probe]:", 0) == 0) out += line + '\n';
  return out;
}

CommandResult profgen_listing(int version, const std::string& binary,
                              const std::string& extra = "") {
  return run_ok(profgen(version) + " --binary=" + sh_quote(binary) +
                " --show-pseudo-probe --show-disassembly-only --output=/dev/null " + extra);
}

CommandResult profkit_listing(const std::string& binary, const std::string& extra = "") {
  return run_ok(sh_quote(profkit_bin()) + " probes --disassemble " + extra + " " +
                sh_quote(binary));
}

// Writes fuzz seeds: the raw probe sections of `binary` for probe_section_fuzz and the whole file
// for elf_file_fuzz (small files only).
void write_seeds(const std::string& binary, const std::string& tag) {
  const std::string root = std::string(PROFKIT_BINARY_DIR) + "/seeds/";
  fs::create_directories(root + "probe_section_fuzz");
  fs::create_directories(root + "elf_file_fuzz");
  const std::string data = read_file(binary);
  if (data.size() < 64 * 1024) write_file(root + "elf_file_fuzz/" + tag, data);
  auto elf = elf::ElfFile::parse(as_bytes(data));
  ASSERT_TRUE(elf.has_value()) << binary;
  // probe_section_fuzz input: u32 length of the descriptor bytes, descriptor bytes, probe bytes.
  std::string desc, probes;
  for (const auto& s : elf->sections()) {
    auto bytes = elf->section_data(s);
    ASSERT_TRUE(bytes.has_value());
    if (s.name == ".pseudo_probe_desc") desc += std::string(as_string_view(*bytes));
    if (s.name == ".pseudo_probe") probes += std::string(as_string_view(*bytes));
  }
  std::string seed(4, '\0');
  store_le<uint32_t>(reinterpret_cast<uint8_t*>(seed.data()), static_cast<uint32_t>(desc.size()));
  write_file(root + "probe_section_fuzz/" + tag, seed + desc + probes);
  // dwarf_line_table_fuzz: .debug_line; dwarf_source_map_fuzz: ten sized sections and four addresses.
  auto dwarf = dwarf::DwarfSections::from_elf(*elf);
  ASSERT_TRUE(dwarf.has_value());
  if (dwarf->line.data.empty()) return;
  fs::create_directories(root + "dwarf_line_table_fuzz");
  fs::create_directories(root + "dwarf_source_map_fuzz");
  write_file(root + "dwarf_line_table_fuzz/" + tag, std::string(as_string_view(dwarf->line.data)));
  const dwarf::Section* order[] = {&dwarf->info,     &dwarf->abbrev,      &dwarf->line,
                                   &dwarf->line_str, &dwarf->str,         &dwarf->str_offsets,
                                   &dwarf->addr,     &dwarf->ranges,      &dwarf->rnglists,
                                   &dwarf->aranges};
  std::string header(10 * 4 + 4 * 8, '\0'), body;
  for (int i = 0; i < 10; ++i) {
    store_le<uint32_t>(reinterpret_cast<uint8_t*>(header.data() + 4 * i),
                       static_cast<uint32_t>(order[i]->data.size()));
    body += as_string_view(order[i]->data);
  }
  // Addresses: the start of each of the first four executable sections.
  int n = 0;
  for (const auto& sec : elf->sections())
    if (sec.is_executable() && n < 4)
      store_le<uint64_t>(reinterpret_cast<uint8_t*>(header.data() + 40 + 8 * n++), sec.address + 4);
  if (body.size() < 256 * 1024) write_file(root + "dwarf_source_map_fuzz/" + tag, header + body);
}

struct Build {
  std::string name;     // output file name and test name
  int version;          // 14 or 22
  std::string command;  // %o = output
};

std::string cc(int v, const std::string& flags, const std::string& sources, bool cxx = false) {
  std::string srcs;
  std::istringstream in(sources);
  for (std::string s; in >> s;) srcs += " " + sh_quote(s.find('/') == std::string::npos ? program(s) : s);
  return clang(v, cxx) + " " + flags + " -fpseudo-probe-for-profiling" + srcs + " -o %o";
}

std::vector<Build> builds() {
  std::vector<Build> out;
  for (int v : {14, 22}) {
    const std::string V = std::to_string(v);
    for (std::string O : {"O0", "O2"}) {
      const std::string f = "-" + O + " -g";
      out.push_back({"inl." + O + "." + V, v, cc(v, f, "inl.c")});
      out.push_back({"inl.fs." + O + "." + V, v, cc(v, f + " -ffunction-sections", "inl.c")});
      out.push_back({"tmpl." + O + "." + V, v, cc(v, f, "tmpl.cpp", true)});
      out.push_back({"multi." + O + "." + V, v, cc(v, f, "tu1.c tu2.c")});
    }
    const std::string f = "-O2 -g";
    out.push_back({"inl.nog.O2." + V, v, cc(v, "-O2", "inl.c")});
    out.push_back({"small." + V, v, cc(v, f, "small.c smallmain.c")});
    out.push_back({"small.nopie." + V, v, cc(v, f + " -no-pie -fno-pie", "small.c smallmain.c")});
    out.push_back({"small.lld." + V, v, cc(v, f + " -fuse-ld=lld", "small.c smallmain.c")});
    out.push_back({"cppmulti." + V, v, cc(v, f, "cpp1.cpp cpp2.cpp", true)});
    out.push_back({"cppmulti.fs." + V, v, cc(v, f + " -ffunction-sections", "cpp1.cpp cpp2.cpp", true)});
    out.push_back({"longname." + V, v, cc(v, f, "longname.cpp", true)});
    out.push_back({"gc.fs." + V, v, cc(v, f + " -ffunction-sections -Wl,--gc-sections", "gc.c")});
  }
  out.push_back({"inl.fsd.O2.22", 22, cc(22, "-O2 -g -mllvm -enable-fs-discriminator=true", "inl.c")});
  return out;
}

class ProbesListing : public ::testing::TestWithParam<Build> {};

// The whole listing (descriptors, headers, addresses, probe lines) equals llvm-profgen's of
// the same release.
TEST_P(ProbesListing, MatchesLlvmProfgenOfSameRelease) {
  const Build& b = GetParam();
  const std::string bin = build(b.name, b.command);
  ASSERT_TRUE(file_exists(bin));
  const auto expected = profgen_listing(b.version, bin);
  const auto actual = profkit_listing(bin);
  ASSERT_EQ(actual.status, 0) << actual.err;
  EXPECT_NE(only_probe_lines(expected.out), "") << "no probes in " << b.name;
  EXPECT_EQ(normalize_listing(expected.out), normalize_listing(actual.out)) << b.name;
  if (b.version == 22) {  // llvm-profgen 14 prints branch targets segment-relative
    EXPECT_EQ(identical_instruction_fraction(expected.out, actual.out), 1.0) << b.name;
  }
  write_seeds(bin, b.name);
}

// The location text llvm-profgen appends to each instruction line (docs/formats/pseudo-probes.md 7.5), by address:
// the listing with locations minus the same listing without (the instruction is padded to
// 40 columns after the colon).
std::map<std::string, std::string> locations(const std::string& with, const std::string& without,
                                             const std::string& who) {
  std::map<std::string, std::string> out;
  const auto a = lines(with), b = lines(without);
  EXPECT_EQ(a.size(), b.size()) << who;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const size_t colon = b[i].find(":\t");
    if (colon == std::string::npos || b[i].rfind(" [Probe]", 0) == 0) {
      EXPECT_EQ(a[i], b[i]) << who;
      continue;
    }
    EXPECT_EQ(a[i].rfind(b[i], 0), 0u) << who << ": " << a[i];
    const size_t width = b[i].size() - colon - 1;
    out[b[i].substr(0, colon)] = a[i].substr(std::min(a[i].size(), colon + 1 + std::max<size_t>(40, width)));
  }
  return out;
}

// --source-locations: the same inline frames and probe indices as llvm-profgen's
// --show-source-locations at every address, and where the instruction text is the same,
// the same line.
TEST_P(ProbesListing, SourceLocationsMatchLlvmProfgen) {
  const Build& b = GetParam();
  const std::string bin = build(b.name, b.command);
  const auto expected_with = profgen_listing(b.version, bin, "--show-source-locations");
  const auto expected = profgen_listing(b.version, bin);
  const auto actual_with = profkit_listing(bin, "--source-locations");
  const auto actual = profkit_listing(bin);
  const auto want = locations(expected_with.out, expected.out, "llvm-profgen " + b.name);
  const auto got = locations(actual_with.out, actual.out, "profkit " + b.name);
  ASSERT_EQ(want.size(), got.size()) << b.name;
  size_t shown = 0, differ = 0;
  for (const auto& [address, location] : want) {
    auto it = got.find(address);
    ASSERT_NE(it, got.end()) << address;
    if (it->second != location && ++differ <= 5)
      ADD_FAILURE() << b.name << " " << address << ": want '" << location << "', got '"
                    << it->second << "'";
    shown += !location.empty();
  }
  EXPECT_EQ(differ, 0u) << b.name;
  if (b.name.find(".nog.") == std::string::npos) {
    EXPECT_GT(shown, 0u) << b.name << ": no locations at all";
  }
  // Whole lines where the instruction text agrees.
  std::map<std::string, std::string> plain;
  for (const auto& line : lines(expected.out)) plain[line] = line;
  std::map<std::string, std::string> with_by_plain;
  const auto ew = lines(expected_with.out), ep = lines(expected.out);
  for (size_t i = 0; i < std::min(ew.size(), ep.size()); ++i) with_by_plain[ep[i]] = ew[i];
  const auto aw = lines(actual_with.out), ap = lines(actual.out);
  for (size_t i = 0; i < std::min(aw.size(), ap.size()); ++i) {
    auto it = with_by_plain.find(ap[i]);
    if (it != with_by_plain.end()) {
      EXPECT_EQ(it->second, aw[i]) << b.name;
    }
  }
}

class Llvm14Listing : public ::testing::TestWithParam<Build> {};

// llvm-profgen 22 reads LLVM 14 binaries correctly: same [Probe] lines as profkit.
TEST_P(Llvm14Listing, MatchesLlvmProfgen22Probes) {
  const Build& b = GetParam();
  const std::string bin = build(b.name, b.command);
  const auto expected = profgen_listing(22, bin);
  const auto actual = profkit_listing(bin);
  EXPECT_EQ(only_probe_lines(expected.out), only_probe_lines(actual.out)) << b.name;
  EXPECT_EQ(identical_instruction_fraction(expected.out, actual.out), 1.0) << b.name;
}

std::string build_test_name(const ::testing::TestParamInfo<Build>& info) {
  std::string n = info.param.name;
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

std::vector<Build> llvm14_builds() {
  std::vector<Build> out;
  for (const auto& b : builds())
    if (b.version == 14) out.push_back(b);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Programs, ProbesListing, ::testing::ValuesIn(builds()), build_test_name);
INSTANTIATE_TEST_SUITE_P(Programs, Llvm14Listing, ::testing::ValuesIn(llvm14_builds()),
                         build_test_name);

TEST(ProbesConformance, SelectedFunctionsMatchDisassembleFunctions) {
  for (int v : {14, 22}) {
    const std::string bin = build("inl.O2." + std::to_string(v), cc(v, "-O2 -g", "inl.c"));
    const auto expected = profgen_listing(v, bin, "--disassemble-functions=fib,main,apply");
    const auto actual = profkit_listing(bin, "--functions=fib,main,apply");
    EXPECT_NE(only_probe_lines(expected.out), "");
    EXPECT_EQ(normalize_listing(expected.out), normalize_listing(actual.out)) << v;
  }
}

TEST(ProbesConformance, SharedLibraryAndItsExecutable) {
  for (int v : {14, 22}) {
    const std::string V = std::to_string(v);
    const std::string lib =
        build("libsl." + V + ".so", cc(v, "-O2 -g -fPIC -shared", "shlib.c"));
    const std::string exe = build("shmain." + V, cc(v, "-O2 -g", "shmain.c " + lib));
    for (const auto& bin : {lib, exe}) {
      const auto expected = profgen_listing(v, bin);
      const auto actual = profkit_listing(bin);
      EXPECT_EQ(normalize_listing(expected.out), normalize_listing(actual.out)) << bin;
    }
    write_seeds(lib, "libsl." + V);
  }
}

// ThinLTO promotes a static to `name.llvm.N`: its record starts with a sentinel naming the
// promoted symbol.
TEST(ProbesConformance, ThinLtoSentinelRecords) {
  const std::string dir = work_dir("lto");
  const std::string o1 = build("lto1.o", cc(22, "-O2 -g -flto=thin -c", "lto1.c"));
  const std::string o2 = build("lto2.o", cc(22, "-O2 -g -flto=thin -c", "lto2.c"));
  const std::string bin =
      build("lto.O2", "clang-22 -O2 -g -fpseudo-probe-for-profiling -flto=thin -fuse-ld=lld " +
                          sh_quote(o1) + " " + sh_quote(o2) + " -o %o");
  const auto expected = profgen_listing(22, bin);
  const auto actual = profkit_listing(bin);
  EXPECT_NE(expected.out.find(".llvm."), std::string::npos) << "no promoted symbol";
  EXPECT_NE(only_probe_lines(expected.out), "");
  EXPECT_EQ(normalize_listing(expected.out), normalize_listing(actual.out));
  const auto canonical = profkit_listing(bin, "--canonical-names");
  EXPECT_EQ(canonical.out.find(".llvm."), std::string::npos);
  EXPECT_EQ(only_probe_lines(canonical.out), only_probe_lines(expected.out));
  write_seeds(bin, "lto.O2");
}

// Per symbol: the probes (offset from the symbol's first instruction, probe line) in order.
using Placement = std::map<std::string, std::vector<std::string>>;
Placement placement(const std::string& listing) {
  Placement out;
  std::string symbol;
  uint64_t start = 0;
  bool have_start = false;
  std::vector<std::string> pending;
  for (const auto& line : lines(listing)) {
    if (line.size() > 3 && line.front() == '<' && line.back() == ':') {
      symbol = line.substr(1, line.size() - 3);
      have_start = false;
      out[symbol];
    } else if (line.rfind(" [Probe]:", 0) == 0) {
      pending.push_back(line);
    } else if (!symbol.empty() && line.find(":\t") != std::string::npos) {
      const uint64_t address = std::stoull(line.substr(0, line.find(':')), nullptr, 16);
      if (!have_start) start = address, have_start = true;
      for (const auto& p : pending) out[symbol].push_back(std::to_string(address - start) + p);
      pending.clear();
    }
  }
  return out;
}

// Objects of both releases linked together: every probe sits at the same offset in its
// function as in a single-release link of the same object.
TEST(ProbesConformance, MixedReleaseBinariesPlaceEveryProbe) {
  const std::string s14 = build("small14.o", cc(14, "-O2 -g -c", "small.c"));
  const std::string m14 = build("smallmain14.o", cc(14, "-O2 -g -c", "smallmain.c"));
  const std::string s22 = build("small22.o", cc(22, "-O2 -g -c", "small.c"));
  const std::string m22 = build("smallmain22.o", cc(22, "-O2 -g -c", "smallmain.c"));
  auto link = [](const std::string& out, const std::string& a, const std::string& b) {
    return build(out, "clang-22 " + sh_quote(a) + " " + sh_quote(b) + " -o %o");
  };
  const std::string pure14 = link("pure14", s14, m14);
  const std::string pure22 = link("pure22", s22, m22);
  const Placement p14 = placement(profgen_listing(14, pure14).out);
  const Placement p22 = placement(profgen_listing(22, pure22).out);
  struct Mixed {
    std::string name, first, second;
    const Placement* small_c;     // release that built small.c (defines entry)
    const Placement* smallmain_c;  // release that built smallmain.c
  };
  for (const Mixed& m : {Mixed{"mixed_14first", s14, m22, &p14, &p22},
                         Mixed{"mixed_22first", m22, s14, &p14, &p22},
                         Mixed{"mixed_22_14", s22, m14, &p22, &p14}}) {
    const std::string bin = link(m.name, m.first, m.second);
    const Placement got = placement(profkit_listing(bin).out);
    size_t probes = 0;
    for (const auto& [symbol, list] : got) {
      if (list.empty()) continue;
      const Placement& want = symbol == "entry" ? *m.small_c : *m.smallmain_c;
      ASSERT_TRUE(want.count(symbol)) << m.name << " " << symbol;
      EXPECT_EQ(want.at(symbol), list) << m.name << " " << symbol;
      probes += list.size();
    }
    size_t expected_probes = 0;
    for (const char* sym : {"entry", "main", "ext"}) {
      const Placement& want = std::string(sym) == "entry" ? *m.small_c : *m.smallmain_c;
      expected_probes += want.at(sym).size();
    }
    EXPECT_GE(probes, expected_probes) << m.name;
    // And the emulation of llvm-profgen 22's global chain reproduces its (wrong) listing.
    const auto expected = profgen_listing(22, bin);
    const auto emulated = profkit_listing(bin, "--emulate-llvm22-mixed");
    EXPECT_EQ(normalize_listing(expected.out), normalize_listing(emulated.out)) << m.name;
  }
}

// LLVM 14 relocatable objects carry the first address in a relocation; LLVM 22 objects are
// re-based on section-relative symbols. Both give offsets from the start of .text.
TEST(ProbesConformance, RelocatableObjectsDecodeToSectionOffsets) {
  for (int v : {14, 22}) {
    const std::string obj = build("small" + std::to_string(v) + ".o", cc(v, "-O2 -g -c", "small.c"));
    const std::string linked =
        build("small.objtest." + std::to_string(v),
              clang(v, false) + " " + sh_quote(obj) + " " +
                  sh_quote(build("smallmain" + std::to_string(v) + ".o",
                                 cc(v, "-O2 -g -c", "smallmain.c"))) +
                  " -o %o");
    const auto in_object = run_ok(sh_quote(profkit_bin()) + " probes " + sh_quote(obj));
    const auto in_linked =
        run_ok(sh_quote(profkit_bin()) + " probes --functions=entry " + sh_quote(linked));
    // Re-base the linked addresses on entry's address (the first probe address of `entry`
    // is its probe 1; the object's is at the same offset) and compare the probe lines.
    auto rebase = [](const std::string& text) {
      std::vector<std::pair<uint64_t, std::string>> out;
      uint64_t address = 0;
      for (const auto& line : lines(text)) {
        if (line.size() > 1 && line.back() == ':' && line.find("Probe") == std::string::npos &&
            line.find("Desc") == std::string::npos && line.find("Probes") == std::string::npos)
          address = std::stoull(line.substr(0, line.size() - 1), nullptr, 16);
        else if (line.rfind(" [Probe]:", 0) == 0)
          out.emplace_back(address, line);
      }
      const uint64_t base = out.empty() ? 0 : out.front().first;
      for (auto& [a, l] : out) a -= base;
      return out;
    };
    const auto obj_probes = rebase(in_object.out);
    ASSERT_FALSE(obj_probes.empty());
    EXPECT_EQ(obj_probes, rebase(in_linked.out)) << v;
  }
}

// Every row of every line table, as `llvm-dwarfdump-22 --debug-line` prints them (address,
// line, column, file, discriminator, is_stmt, end_sequence), for DWARF 4 and 5 from both
// compilers, FS discriminators included.
TEST(DwarfLineConformance, RowsMatchLlvmDwarfdump) {
  std::vector<std::string> bins;
  for (int v : {14, 22}) {
    const std::string V = std::to_string(v);
    bins.push_back(build("inl.O2." + V, cc(v, "-O2 -g", "inl.c")));
    bins.push_back(build("inl.dwarf4.O2." + V, cc(v, "-O2 -gdwarf-4", "inl.c")));
    bins.push_back(build("cppmulti." + V, cc(v, "-O2 -g", "cpp1.cpp cpp2.cpp", true)));
  }
  bins.push_back(build("inl.fsd.O2.22", cc(22, "-O2 -g -mllvm -enable-fs-discriminator=true", "inl.c")));
  for (const auto& bin : bins) {
    std::string want;
    for (const auto& line : lines(run_ok("llvm-dwarfdump-22 --debug-line " + sh_quote(bin)).out)) {
      if (line.rfind("debug_line[", 0) == 0) want += line.substr(0, line.find(']') + 1) + "\n";
      if (line.rfind("0x", 0) != 0) continue;
      std::istringstream in(line);
      std::string address, flag;
      uint64_t row_line, column, file, isa, disc, op_index;
      in >> address >> row_line >> column >> file >> isa >> disc >> op_index;
      bool is_stmt = false, end = false;
      while (in >> flag) is_stmt |= flag == "is_stmt", end |= flag == "end_sequence";
      want += std::to_string(std::stoull(address, nullptr, 16)) + " " + std::to_string(row_line) +
              " " + std::to_string(column) + " " + std::to_string(file) + " " +
              std::to_string(disc) + (is_stmt ? " stmt" : "") + (end ? " end" : "") + "\n";
    }
    const std::string data = read_file(bin);
    auto elf = elf::ElfFile::parse(as_bytes(data));
    ASSERT_TRUE(elf.has_value());
    auto sections = dwarf::DwarfSections::from_elf(*elf);
    ASSERT_TRUE(sections.has_value());
    std::string got;
    for (uint64_t offset = 0; offset < sections->line.data.size();) {
      auto t = dwarf::LineTable::parse(sections->line, offset, sections->line_str, sections->str);
      ASSERT_TRUE(t.has_value()) << bin << ": " << t.error().message;
      char head[40];
      std::snprintf(head, sizeof head, "debug_line[0x%08llx]\n", static_cast<unsigned long long>(offset));
      got += head;
      for (const auto& r : t->rows())
        got += std::to_string(r.address) + " " + std::to_string(r.line) + " " +
               std::to_string(r.column) + " " + std::to_string(r.file) + " " +
               std::to_string(r.discriminator) + (r.is_stmt ? " stmt" : "") +
               (r.end_sequence ? " end" : "") + "\n";
      offset = t->end_offset();
    }
    EXPECT_GT(want.size(), 200u) << bin;
    EXPECT_EQ(want, got) << bin;
  }
}

// Inline frames (function, file:line:column, innermost first) of every instruction address
// equal llvm-symbolizer-22's --inlining output.
TEST(DwarfLineConformance, FramesMatchLlvmSymbolizer) {
  std::vector<std::string> bins;
  for (int v : {14, 22}) {
    const std::string V = std::to_string(v);
    bins.push_back(build("inl.O2." + V, cc(v, "-O2 -g", "inl.c")));
    bins.push_back(build("inl.dwarf4.O2." + V, cc(v, "-O2 -gdwarf-4", "inl.c")));
    bins.push_back(build("tmpl.O2." + V, cc(v, "-O2 -g", "tmpl.cpp", true)));
    bins.push_back(build("cppmulti.fs." + V, cc(v, "-O2 -g -ffunction-sections", "cpp1.cpp cpp2.cpp", true)));
  }
  for (const auto& bin : bins) {
    std::vector<uint64_t> addresses;
    for (const auto& line : lines(profkit_listing(bin).out)) {
      const size_t colon = line.find(":\t");
      if (colon != std::string::npos && line.rfind(" [Probe]", 0) != 0)
        addresses.push_back(std::stoull(line.substr(0, colon), nullptr, 16));
    }
    const std::string data = read_file(bin);
    auto elf = elf::ElfFile::parse(as_bytes(data));
    ASSERT_TRUE(elf.has_value());
    auto sections = dwarf::DwarfSections::from_elf(*elf);
    ASSERT_TRUE(sections.has_value());
    auto map = dwarf::SourceMap::build(*sections);
    ASSERT_TRUE(map.has_value()) << map.error().message;
    std::string input, want, got;
    std::vector<dwarf::SourceFrame> frames;
    std::vector<uint64_t> covered;
    for (uint64_t a : addresses) {
      ASSERT_TRUE(map->frames(a, frames).has_value());
      if (frames.empty()) continue;  // llvm-symbolizer falls back to the symbol table there
      covered.push_back(a);
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx\n", static_cast<unsigned long long>(a));
      input += hex;
      for (const auto& f : frames)
        got += std::string(f.function) + "\n" + map->file_path(f) + ":" + std::to_string(f.line) +
               ":" + std::to_string(f.column) + "\n";
      got += "\n";
    }
    EXPECT_GT(covered.size(), 20u) << bin;
    const std::string in_path = work_dir("sym") + "/addresses";
    write_file(in_path, input);
    want = run_ok("llvm-symbolizer-22 --inlining --no-demangle --functions=linkage --obj=" +
                  sh_quote(bin) + " < " + sh_quote(in_path)).out;
    EXPECT_EQ(want, got) << bin;
  }
}

// The listing is formatted in chunks by several threads: the same bytes for any thread
// count (a generated program of three chunks), source locations included.
TEST(ProbesConformance, ListingDoesNotDependOnThreads) {
  const std::string src = work_dir("threads");
  run_ok("python3 " + sh_quote(source_path("bench/probes/gen_large.py")) +
         " --functions 1000 --tus 2 --out " + sh_quote(src));
  const std::string bin = build("gen1000", "clang-22 -O2 -g -fpseudo-probe-for-profiling " +
                                               sh_quote(src) + "/tu0.c " + sh_quote(src) +
                                               "/tu1.c " + sh_quote(src) + "/main.c -o %o");
  const auto one = profkit_listing(bin, "-j 1 --source-locations");
  const auto three = profkit_listing(bin, "-j 3 --source-locations");
  EXPECT_GT(one.out.size(), 1u << 20);  // 130 KiB of code: three 64 KiB chunks
  EXPECT_TRUE(one.out == three.out) << "listings differ between -j 1 and -j 3";
  EXPECT_EQ(only_probe_lines(profgen_listing(22, bin).out), only_probe_lines(three.out));
}

// Instructions whose capstone spelling differs from LLVM's printer and that profkit rewrites
// (lock as its own instruction, rep with two tabs and %es:, signed 8-bit immediates, imm8
// in 16-bit operations, movabsq decimal, cvtsi2s* register forms, movq of a GPR, pushw,
// %fs:40): the listing of a hand-written function is byte-identical to llvm-profgen's.
TEST(ProbesConformance, InstructionSpellingMatchesLlvm) {
  const std::string dir = work_dir("spelling");
  write_file(dir + "/f.s", R"(.text
.globl f
f:
movw $0xffff, (%rax)
cmpw $0x8000, %ax
addw $-16, %ax
andw $0xfff0, %cx
movb $0xff, (%rbx)
cmpb $0xf5, %r8b
testb $0x80, 30(%rax)
addb $0x80, %cl
movabsq $0x544147454e4e4f4e, %rax
movabsq $0x8000000000000000, %rax
cvtsi2ssq %rax, %xmm0
cvtsi2sdl %ebp, %xmm0
cvtsi2sdl (%rax), %xmm0
vcvtsi2sdl %eax, %xmm1, %xmm1
vcvtsi2ssq %rax, %xmm1, %xmm1
movq %rax, %xmm0
movq %xmm0, %rax
movd %eax, %xmm0
lock xaddl %eax, 8(%rbx)
lock incl 8(%rbx)
lock cmpxchgq %rcx, (%rdx)
rep stosq
rep movsb
repne scasb
pushw $0xffff
imul $0xfff0, %ax, %ax
shrl %ecx
movq %fs:0x28, %rax
subq %fs:0x28, %rdx
ret
.globl g
g:
ret
)");
  const std::string bin =
      build("spelling", "clang-22 -nostdlib -static -Wl,-e,f " + sh_quote(dir + "/f.s") + " -o %o");
  auto block = [](const std::string& listing) {
    const size_t from = listing.find("<f>:\n");
    const size_t to = listing.find("\n\n", from);
    return from == std::string::npos ? std::string() : listing.substr(from, to - from);
  };
  const std::string want =
      block(run_ok("llvm-profgen-22 --binary=" + sh_quote(bin) +
                   " --show-disassembly-only --output=/dev/null").out);
  EXPECT_NE(want.find("\tlock\n"), std::string::npos) << want;
  EXPECT_EQ(want, block(profkit_listing(bin).out));
}

// --- bad input -------------------------------------------------------------------------

struct Failure {
  int status;
  std::string err;
  std::string out;
};

Failure probes_failure(const std::string& path, const std::string& flags = "") {
  auto r = run(sh_quote(profkit_bin()) + " probes " + flags + " " + sh_quote(path));
  return Failure{r.status, r.err, r.out};
}

void expect_one_line_error(const Failure& f, const std::string& code, const std::string& what) {
  EXPECT_EQ(f.status, 1) << f.err;
  EXPECT_EQ(f.out, "");
  ASSERT_FALSE(f.err.empty());
  EXPECT_EQ(f.err.find('\n'), f.err.size() - 1) << f.err;  // exactly one line
  EXPECT_NE(f.err.find("error:"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("(" + code + ")"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find(what), std::string::npos) << f.err;
}

// Copies `binary`, then edits the bytes of its .pseudo_probe section through `edit`.
std::string edited_copy(const std::string& binary, const std::string& name,
                        void (*edit)(std::string& file, const elf::SectionHeader& probe)) {
  std::string data = read_file(binary);
  auto elf = elf::ElfFile::parse(as_bytes(data));
  EXPECT_TRUE(elf.has_value());
  const elf::SectionHeader* s = elf->find_section(".pseudo_probe");
  EXPECT_NE(s, nullptr);
  const elf::SectionHeader header = *s;
  edit(data, header);
  const std::string path = work_dir("bad") + "/" + name;
  write_file(path, data);
  return path;
}

TEST(ProbesBadInput, NonElfFile) {
  const std::string path = work_dir("bad") + "/not-elf";
  write_file(path, "#!/bin/sh\necho hello\n");
  auto f = probes_failure(path);
  expect_one_line_error(f, "bad magic", path + ":0: error:");
}

TEST(ProbesBadInput, MissingFile) {
  auto f = probes_failure(work_dir("bad") + "/does-not-exist");
  EXPECT_EQ(f.status, 1);
  EXPECT_EQ(f.err.find('\n'), f.err.size() - 1) << f.err;
}

TEST(ProbesBadInput, TruncatedElfHeader) {
  const std::string bin = build("small.22", cc(22, "-O2 -g", "small.c smallmain.c"));
  const std::string path = work_dir("bad") + "/trunc-header";
  write_file(path, read_file(bin).substr(0, 40));
  expect_one_line_error(probes_failure(path), "truncated", path + ":40: error:");
}

TEST(ProbesBadInput, SectionTableCutOff) {
  const std::string bin = build("small.22", cc(22, "-O2 -g", "small.c smallmain.c"));
  const std::string path = work_dir("bad") + "/trunc-sections";
  const std::string data = read_file(bin);
  write_file(path, data.substr(0, data.size() - 100));
  expect_one_line_error(probes_failure(path), "truncated", "error:");
}

TEST(ProbesBadInput, ProbeSectionEndsInsideARecord) {
  for (int v : {14, 22}) {
    const std::string V = std::to_string(v);
    const std::string bin = build("small." + V, cc(v, "-O2 -g", "small.c smallmain.c"));
    // Shrink sh_size by one byte: the last probe record loses its final byte.
    const std::string path = edited_copy(bin, "probe-short." + V, [](std::string& d, const elf::SectionHeader& s) {
      store_le<uint64_t>(reinterpret_cast<uint8_t*>(d.data() + s.header_offset + 32), s.size - 1);
    });
    auto f = probes_failure(path);
    expect_one_line_error(f, "truncated", "error: ");
    // The offset points inside the probe section.
    const std::string original = read_file(bin);  // the ElfFile points into these bytes
    auto elf = elf::ElfFile::parse(as_bytes(original));
    const auto* s = elf->find_section(".pseudo_probe");
    const size_t colon = f.err.find(':', path.size());
    const uint64_t offset = std::stoull(f.err.substr(path.size() + 1, colon - path.size() - 1));
    EXPECT_GE(offset, s->offset) << f.err;
    EXPECT_LE(offset, s->offset + s->size) << f.err;
  }
}

TEST(ProbesBadInput, ProbeCountLargerThanSection) {
  const std::string bin = build("small.22", cc(22, "-O2 -g", "small.c smallmain.c"));
  // Byte 8 of the first record is its one-byte probe count: claim 127 probes.
  const std::string path = edited_copy(bin, "probe-count", [](std::string& d, const elf::SectionHeader& s) {
    d[s.offset + 8] = 0x7f;
  });
  expect_one_line_error(probes_failure(path), "truncated", "claims 127 probes");
}

TEST(ProbesBadInput, ProbeTypeOutOfRange) {
  const std::string bin = build("small.22", cc(22, "-O2 -g", "small.c smallmain.c"));
  // Offset 11 is the kind byte of the first probe (GUID 8, counts 2, index 1): type 7.
  const std::string path = edited_copy(bin, "probe-type", [](std::string& d, const elf::SectionHeader& s) {
    d[s.offset + 11] = static_cast<char>(0x87);
  });
  expect_one_line_error(probes_failure(path), "malformed", "probe type 7");
}

TEST(ProbesBadInput, DescriptorSectionEndsInsideAName) {
  const std::string bin = build("small.22", cc(22, "-O2 -g", "small.c smallmain.c"));
  std::string data = read_file(bin);
  auto elf = elf::ElfFile::parse(as_bytes(data));
  const auto* s = elf->find_section(".pseudo_probe_desc");
  ASSERT_NE(s, nullptr);
  store_le<uint64_t>(reinterpret_cast<uint8_t*>(data.data() + s->header_offset + 32), s->size - 1);
  const std::string path = work_dir("bad") + "/desc-name";
  write_file(path, data);
  expect_one_line_error(probes_failure(path), "truncated", "expected descriptor name");
}

// A corrupt line table or DIE with --source-locations: one line naming the offset, before
// any output.
TEST(ProbesBadInput, CorruptDwarfWithSourceLocations) {
  const std::string bin = build("inl.O2.22", cc(22, "-O2 -g", "inl.c"));
  std::string data = read_file(bin);
  auto elf = elf::ElfFile::parse(as_bytes(data));
  const elf::SectionHeader line = *elf->find_section(".debug_line");
  const elf::SectionHeader info = *elf->find_section(".debug_info");
  // DWARF 5 line header: length 4, version 2, address/segment sizes 2, header_length 4,
  // then minimum length, maximum ops, default_is_stmt, line_base, line_range (+16).
  std::string copy = data;
  copy[line.offset + 16] = 0;
  std::string path = work_dir("bad") + "/line-range";
  write_file(path, copy);
  for (const char* flags : {"--disassemble --source-locations", "--source-locations", "--json --source-locations"})
    expect_one_line_error(probes_failure(path, flags), "malformed",
                          path + ":" + std::to_string(line.offset + 16) + ": error: expected a non-zero line_range");
  // A .debug_info unit of DWARF version 9 (the version follows the 4-byte unit_length).
  copy = data;
  copy[info.offset + 4] = 9;
  path = work_dir("bad") + "/info-version";
  write_file(path, copy);
  expect_one_line_error(probes_failure(path, "--source-locations"), "unsupported version",
                        path + ":" + std::to_string(info.offset + 4) + ": error: expected DWARF version 2 to 5");
  // Without --source-locations the debug sections are not read at all.
  EXPECT_EQ(run(sh_quote(profkit_bin()) + " probes " + sh_quote(path) + " > /dev/null").status, 0);
}

TEST(ProbesBadInput, StrippedLlvm22BinaryCannotPlaceProbes) {
  const std::string bin = build("small.22", cc(22, "-O2 -g", "small.c smallmain.c"));
  const std::string path = work_dir("bad") + "/stripped";
  run_ok("strip --strip-all -o " + sh_quote(path) + " " + sh_quote(bin));
  expect_one_line_error(probes_failure(path), "malformed", "no .symtab");
}

TEST(ProbesBadInput, BinaryWithoutProbes) {
  const std::string path = build("noprobes", "printf 'int main(void){return 0;}\\n' | clang-22 -O2 -x c - -o %o");
  expect_one_line_error(probes_failure(path), "malformed", "pseudo_probe");
}

// Every prefix of a probe section gives `truncated` or success, never a crash.
TEST(ProbesBadInput, EveryPrefixOfTheProbeSection) {
  const std::string bin = build("small.22", cc(22, "-O2 -g", "small.c smallmain.c"));
  std::string data = read_file(bin);
  auto elf = elf::ElfFile::parse(as_bytes(data));
  const elf::SectionHeader s = *elf->find_section(".pseudo_probe");
  for (uint64_t size = 0; size < s.size; size += 7) {
    std::string copy = data;
    store_le<uint64_t>(reinterpret_cast<uint8_t*>(copy.data() + s.header_offset + 32), size);
    const std::string path = work_dir("bad") + "/prefix";
    write_file(path, copy);
    auto r = run(sh_quote(profkit_bin()) + " probes " + sh_quote(path) + " > /dev/null");
    EXPECT_TRUE(r.status == 0 || (r.status == 1 && r.err.find("(truncated)") != std::string::npos))
        << size << ": " << r.err;
  }
}

TEST(ProbesJson, SameProbesAsTextView) {
  const std::string bin = build("inl.O2.22", cc(22, "-O2 -g", "inl.c"));
  const auto json = run_ok(sh_quote(profkit_bin()) + " probes --json " + sh_quote(bin));
  const auto text = run_ok(sh_quote(profkit_bin()) + " probes " + sh_quote(bin));
  size_t json_probes = 0, text_probes = 0;
  for (size_t at = 0; (at = json.out.find("{\"address\":", at)) != std::string::npos; ++at) ++json_probes;
  text_probes = lines(only_probe_lines(text.out)).size();
  EXPECT_GT(json_probes, 0u);
  EXPECT_EQ(json_probes, text_probes);
  // The text view lists the same probe lines as the disassembly (all probes of inl.O2 sit
  // on instruction boundaries).
  const auto listing = profgen_listing(22, bin);
  std::multiset<std::string> a, b;
  for (const auto& l : lines(only_probe_lines(listing.out))) a.insert(l);
  for (const auto& l : lines(only_probe_lines(text.out))) b.insert(l);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace profkit::test
