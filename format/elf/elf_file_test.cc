// ELF reader tests on a small ELF64 file assembled in memory: sections, symbols, groups,
// relocations, notes, program headers, and every kind of truncation.
#include "format/elf/elf_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace profkit::elf {
namespace {

// Assembles an ELF64 LSB relocatable-style file with the given sections (index 0 is added).
class Builder {
 public:
  struct Section {
    std::string name;
    uint32_t type;
    uint64_t flags;
    std::string data;
    uint32_t link = 0, info = 0;
    uint64_t entsize = 0, addr = 0;
  };
  void add(Section s) { sections_.push_back(std::move(s)); }
  std::string phdrs;  // raw program headers placed after the ELF header
  uint16_t phnum = 0;

  std::string build(uint16_t type = kEtExec) const {
    std::string shstrtab(1, '\0');
    std::vector<uint32_t> name_offsets;
    for (const auto& s : sections_) {
      name_offsets.push_back(static_cast<uint32_t>(shstrtab.size()));
      shstrtab += s.name + '\0';
    }
    std::string out(64, '\0');
    out += phdrs;
    std::vector<uint64_t> offsets;
    for (const auto& s : sections_) {
      offsets.push_back(out.size());
      out += s.data;
    }
    const uint64_t shstr_off = out.size();
    out += shstrtab;
    while (out.size() % 8) out += '\0';
    const uint64_t shoff = out.size();
    auto put = [&](uint64_t v, int n) {
      for (int i = 0; i < n; ++i) out += static_cast<char>(v >> (8 * i));
    };
    out += std::string(64, '\0');  // section 0
    for (size_t i = 0; i < sections_.size(); ++i) {
      const auto& s = sections_[i];
      put(name_offsets[i], 4); put(s.type, 4); put(s.flags, 8); put(s.addr, 8);
      put(offsets[i], 8); put(s.data.size(), 8); put(s.link, 4); put(s.info, 4);
      put(1, 8); put(s.entsize, 8);
    }
    // .shstrtab header
    put(0, 4);  // empty name
    put(kShtStrtab, 4); put(0, 8); put(0, 8); put(shstr_off, 8);
    put(shstrtab.size(), 8); put(0, 4); put(0, 4); put(1, 8); put(0, 8);
    const uint16_t shnum = static_cast<uint16_t>(sections_.size() + 2);
    // ELF header
    std::string h;
    auto hput = [&](uint64_t v, int n) {
      for (int i = 0; i < n; ++i) h += static_cast<char>(v >> (8 * i));
    };
    h += "\x7f" "ELF";
    h += '\x02'; h += '\x01'; h += '\x01';
    h += std::string(9, '\0');
    hput(type, 2); hput(kEmX86_64, 2); hput(1, 4); hput(0x1000, 8);
    hput(phnum ? 64 : 0, 8); hput(shoff, 8); hput(0, 4); hput(64, 2);
    hput(56, 2); hput(phnum, 2); hput(64, 2); hput(shnum, 2); hput(shnum - 1, 2);
    out.replace(0, 64, h);
    return out;
  }

 private:
  std::vector<Section> sections_;
};

std::string le(uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>(v >> (8 * i));
  return s;
}

std::string sym(uint32_t name, uint8_t info, uint16_t shndx, uint64_t value, uint64_t size) {
  return le(name, 4) + le(info, 1) + le(0, 1) + le(shndx, 2) + le(value, 8) + le(size, 8);
}

std::string sample_file() {
  Builder b;
  // 1 .text, 2 .strtab, 3 .symtab, 4 .rela.text, 5 .group, 6 .note.gnu.build-id
  b.add({".text", kShtProgbits, kShfAlloc | kShfExecinstr, std::string(16, '\x90'), 0, 0, 0, 0x1000});
  b.add({".strtab", kShtStrtab, 0, std::string("\0main\0sig\0", 10)});
  b.add({".symtab", kShtSymtab, 0,
         sym(0, 0, 0, 0, 0) + sym(1, (1 << 4) | kSttFunc, 1, 0x1000, 16) +
             sym(6, (1 << 4) | kSttNotype, 1, 0x1004, 0),
         2, 1, 24});
  b.add({".rela.text", kShtRela, 0, le(8, 8) + le((uint64_t{1} << 32) | kRX86_64_64, 8) + le(9, 8),
         3, 1, 24});
  b.add({".group", kShtGroup, 0, le(kGrpComdat, 4) + le(1, 4) + le(4, 4), 3, 2, 4});
  b.add({".note.gnu.build-id", kShtNote, kShfAlloc,
         le(4, 4) + le(4, 4) + le(kNtGnuBuildId, 4) + std::string("GNU\0", 4) + "\x01\x02\x03\x04"});
  b.phdrs = le(kPtLoad, 4) + le(5, 4) + le(0, 8) + le(0x401000, 8) + le(0x401000, 8) +
            le(16, 8) + le(16, 8) + le(0x1000, 8);
  b.phnum = 1;
  return b.build();
}

Bytes bytes(const std::string& s) { return as_bytes(s); }

TEST(ElfFile, SectionsSymbolsAndNames) {
  const std::string f = sample_file();
  auto elf = ElfFile::parse(bytes(f));
  ASSERT_TRUE(elf.has_value()) << elf.error().message;
  EXPECT_EQ(elf->type(), kEtExec);
  EXPECT_EQ(elf->machine(), kEmX86_64);
  const SectionHeader* text = elf->find_section(".text");
  ASSERT_NE(text, nullptr);
  EXPECT_TRUE(text->is_executable());
  EXPECT_EQ(text->address, 0x1000u);
  auto syms = elf->static_symbols();
  ASSERT_TRUE(syms.has_value()) << syms.error().message;
  ASSERT_EQ(syms->size(), 3u);
  EXPECT_EQ((*syms)[1].name, "main");
  EXPECT_EQ((*syms)[1].type, kSttFunc);
  EXPECT_EQ((*syms)[1].size, 16u);
  EXPECT_TRUE((*syms)[1].is_defined_in_section());
  EXPECT_EQ(elf->dynamic_symbols()->size(), 0u);
}

TEST(ElfFile, RelocationsGroupsNotesAndSegments) {
  const std::string f = sample_file();
  auto elf = ElfFile::parse(bytes(f));
  ASSERT_TRUE(elf.has_value());
  auto rels = elf->relocation_sections_for(*elf->find_section(".text"));
  ASSERT_EQ(rels.size(), 1u);
  auto r = elf->relocations(*rels[0]);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].offset, 8u);
  EXPECT_EQ((*r)[0].symbol, 1u);
  EXPECT_EQ((*r)[0].type, kRX86_64_64);
  EXPECT_EQ((*r)[0].addend, 9);
  auto groups = elf->section_groups();
  ASSERT_TRUE(groups.has_value()) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ((*groups)[0].signature, "sig");
  EXPECT_EQ((*groups)[0].flags, kGrpComdat);
  EXPECT_EQ((*groups)[0].members, (std::vector<uint32_t>{1, 4}));
  auto id = elf->build_id();
  ASSERT_TRUE(id.has_value());
  ASSERT_TRUE(id->has_value());
  EXPECT_EQ(std::string(as_string_view(**id)), "\x01\x02\x03\x04");
  ASSERT_EQ(elf->program_headers().size(), 1u);
  EXPECT_EQ(elf->preferred_base_address(), 0x401000u);
}

TEST(ElfFile, RejectsNonElfAndElf32) {
  auto a = ElfFile::parse(bytes("hello world"));
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().code, ErrorCode::bad_magic);
  EXPECT_EQ(a.error().offset, 0u);
  std::string f = sample_file();
  f[4] = 1;
  auto b = ElfFile::parse(bytes(f));
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().code, ErrorCode::unsupported_version);
}

TEST(ElfFile, EveryPrefixFailsCleanly) {
  const std::string f = sample_file();
  for (size_t n = 0; n < f.size(); ++n) {
    const std::string prefix = f.substr(0, n);
    auto elf = ElfFile::parse(bytes(prefix));
    if (n < 4) {
      ASSERT_FALSE(elf.has_value());
      continue;
    }
    if (!elf.has_value()) {
      EXPECT_TRUE(elf.error().code == ErrorCode::truncated ||
                  elf.error().code == ErrorCode::malformed)
          << n << ": " << elf.error().message;
      continue;
    }
    // Headers parsed: every table read must still be bounded.
    for (const auto& s : elf->sections()) (void)elf->section_data(s);
    (void)elf->static_symbols();
    (void)elf->section_groups();
    (void)elf->notes();
  }
}

TEST(ElfFile, SectionPastTheEndIsTruncated) {
  std::string f = sample_file();
  auto elf = ElfFile::parse(bytes(f));
  ASSERT_TRUE(elf.has_value());
  const SectionHeader text = *elf->find_section(".text");
  // sh_size := huge
  for (int i = 0; i < 8; ++i) f[text.header_offset + 32 + i] = '\x7f';
  auto again = ElfFile::parse(bytes(f));
  ASSERT_TRUE(again.has_value());
  auto data = again->section_data(*again->find_section(".text"));
  ASSERT_FALSE(data.has_value());
  EXPECT_EQ(data.error().code, ErrorCode::truncated);
  EXPECT_EQ(data.error().offset, text.header_offset);
}

TEST(ElfFile, StringTableIndexOutOfRange) {
  std::string f = sample_file();
  f[0x3e] = '\x50';  // e_shstrndx = 80
  auto elf = ElfFile::parse(bytes(f));
  ASSERT_FALSE(elf.has_value());
  EXPECT_EQ(elf.error().code, ErrorCode::malformed);
  EXPECT_EQ(elf.error().offset, 0x3eu);
}

}  // namespace
}  // namespace profkit::elf
