// A bounds-checked reader for 64-bit ELF files: section headers, symbol tables, section
// groups, relocations, program headers and build-id notes. Used by the pseudo-probe decoder
// and by the symbolizers; it never maps, prints or exits.
//
// ELF64 header (both byte orders; offsets are file offsets):
//
//   0x00  u8[16]  e_ident      "\x7fELF", class (2 = 64-bit), data (1 = LE, 2 = BE), version
//   0x10  u16     e_type       1 REL, 2 EXEC, 3 DYN, 4 CORE
//   0x12  u16     e_machine    62 = x86-64
//   0x14  u32     e_version
//   0x18  u64     e_entry
//   0x20  u64     e_phoff      program header table (e_phnum entries of e_phentsize >= 56)
//   0x28  u64     e_shoff      section header table (e_shnum entries of e_shentsize >= 64)
//   0x30  u32     e_flags
//   0x34  u16     e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx
//
// e_shnum == 0 with a non-zero e_shoff means the count is in section 0's sh_size, and
// e_shstrndx == SHN_XINDEX (0xffff) means the index is in section 0's sh_link (gABI).
// ELF32 files are rejected with unsupported_version.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "format/bytes/cursor.h"

namespace profkit::elf {

// Constants we branch on (gABI names without the prefix's underscore).
inline constexpr uint16_t kEtRel = 1;
inline constexpr uint16_t kEtExec = 2;
inline constexpr uint16_t kEtDyn = 3;
inline constexpr uint16_t kEmX86_64 = 62;

inline constexpr uint32_t kShtNull = 0;
inline constexpr uint32_t kShtProgbits = 1;
inline constexpr uint32_t kShtSymtab = 2;
inline constexpr uint32_t kShtStrtab = 3;
inline constexpr uint32_t kShtRela = 4;
inline constexpr uint32_t kShtNote = 7;
inline constexpr uint32_t kShtNobits = 8;
inline constexpr uint32_t kShtRel = 9;
inline constexpr uint32_t kShtDynsym = 11;
inline constexpr uint32_t kShtGroup = 17;

inline constexpr uint64_t kShfWrite = 0x1;
inline constexpr uint64_t kShfAlloc = 0x2;
inline constexpr uint64_t kShfExecinstr = 0x4;
inline constexpr uint64_t kShfLinkOrder = 0x80;
inline constexpr uint64_t kShfGroup = 0x200;

inline constexpr uint32_t kPtLoad = 1;
inline constexpr uint32_t kPtNote = 4;
inline constexpr uint32_t kPfX = 0x1;

inline constexpr uint16_t kShnUndef = 0;
inline constexpr uint16_t kShnLoreserve = 0xff00;
inline constexpr uint16_t kShnAbs = 0xfff1;
inline constexpr uint16_t kShnXindex = 0xffff;

inline constexpr uint8_t kSttNotype = 0;
inline constexpr uint8_t kSttObject = 1;
inline constexpr uint8_t kSttFunc = 2;
inline constexpr uint8_t kSttSection = 3;
inline constexpr uint8_t kSttFile = 4;
inline constexpr uint8_t kSttGnuIfunc = 10;  // an indirect function (glibc's memcpy & co.)

inline constexpr uint32_t kGrpComdat = 1;
inline constexpr uint32_t kNtGnuBuildId = 3;

inline constexpr uint32_t kRX86_64_64 = 1;

struct SectionHeader {
  uint32_t index = 0;          // position in the section header table
  std::string_view name;       // from .shstrtab (points into the file bytes)
  uint32_t type = 0;           // sh_type
  uint64_t flags = 0;          // sh_flags
  uint64_t address = 0;        // sh_addr (0 for non-allocated sections)
  uint64_t offset = 0;         // sh_offset: file offset of the contents
  uint64_t size = 0;           // sh_size
  uint32_t link = 0;           // sh_link
  uint32_t info = 0;           // sh_info
  uint64_t alignment = 0;      // sh_addralign
  uint64_t entry_size = 0;     // sh_entsize
  uint64_t header_offset = 0;  // file offset of this header (for error messages)

  bool is_executable() const { return (flags & kShfExecinstr) != 0; }
  bool is_allocated() const { return (flags & kShfAlloc) != 0; }
};

struct Symbol {
  std::string_view name;       // from the linked string table (points into the file bytes)
  uint64_t value = 0;          // st_value: an address (linked files) or section offset (.o)
  uint64_t size = 0;           // st_size
  uint8_t type = 0;            // st_info & 0xf
  uint8_t binding = 0;         // st_info >> 4
  uint8_t other = 0;           // st_other (visibility)
  uint16_t section_index = 0;  // st_shndx (kShnUndef, kShnAbs, ... or a section index)

  bool is_defined_in_section() const {
    return section_index != kShnUndef && section_index < kShnLoreserve;
  }
};

struct ProgramHeader {
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;
  uint64_t virtual_address = 0;
  uint64_t physical_address = 0;
  uint64_t file_size = 0;
  uint64_t memory_size = 0;
  uint64_t alignment = 0;
};

struct Relocation {
  uint64_t offset = 0;   // r_offset: section offset (.o) or address (linked)
  uint32_t type = 0;     // ELF64_R_TYPE
  uint32_t symbol = 0;   // ELF64_R_SYM: index into the section's linked symbol table
  int64_t addend = 0;    // r_addend (0 for SHT_REL)
};

struct SectionGroup {
  uint32_t section_index = 0;     // the SHT_GROUP section
  uint32_t flags = 0;             // kGrpComdat or 0
  std::string_view signature;     // name of the signature symbol
  std::vector<uint32_t> members;  // section indices
};

struct Note {
  std::string_view name;  // without the terminating NUL
  uint32_t type = 0;
  Bytes description;
};

class ElfFile {
 public:
  ElfFile() = default;  // an empty file: no sections, no program headers

  // Parses the ELF header, the section header table and the program headers of `data`.
  // `data` must outlive the ElfFile and everything returned from it (names point into it).
  static Expected<ElfFile> parse(Bytes data);

  // True when `data` starts with the ELF magic.
  static bool has_format(Bytes data);

  uint16_t type() const { return type_; }
  uint16_t machine() const { return machine_; }
  uint64_t entry() const { return entry_; }
  bool is_little_endian() const { return !swap_ == (std::endian::native == std::endian::little); }
  Bytes bytes() const { return data_; }

  const std::vector<SectionHeader>& sections() const { return sections_; }
  const std::vector<ProgramHeader>& program_headers() const { return program_headers_; }

  // First section with this name, or nullptr.
  const SectionHeader* find_section(std::string_view name) const;
  // All sections with this name, in header order.
  std::vector<const SectionHeader*> find_sections(std::string_view name) const;
  // The first section of this type (e.g. kShtSymtab), or nullptr.
  const SectionHeader* find_section_by_type(uint32_t type) const;

  // The contents of a section (empty for SHT_NOBITS), checked against the file size.
  Expected<Bytes> section_data(const SectionHeader& section) const;
  // A cursor over the contents whose offsets are file offsets.
  Expected<Cursor> section_cursor(const SectionHeader& section) const;

  // Symbols of a SHT_SYMTAB or SHT_DYNSYM section, including the null symbol 0.
  Expected<std::vector<Symbol>> symbols(const SectionHeader& table) const;
  // Symbols of .symtab (empty vector when there is none, e.g. a stripped binary).
  Expected<std::vector<Symbol>> static_symbols() const;
  // Symbols of .dynsym (empty vector when there is none).
  Expected<std::vector<Symbol>> dynamic_symbols() const;

  // Entries of a SHT_RELA or SHT_REL section.
  Expected<std::vector<Relocation>> relocations(const SectionHeader& section) const;
  // The SHT_RELA/SHT_REL sections that apply to `target` (sh_info == target.index).
  std::vector<const SectionHeader*> relocation_sections_for(const SectionHeader& target) const;

  // Every SHT_GROUP section, decoded.
  Expected<std::vector<SectionGroup>> section_groups() const;

  // Notes of every SHT_NOTE section (or, without section headers, every PT_NOTE segment).
  Expected<std::vector<Note>> notes() const;
  // The NT_GNU_BUILD_ID payload, if any.
  Expected<std::optional<Bytes>> build_id() const;

  // Address of the first executable PT_LOAD rounded down to its alignment (0 if none): the
  // base llvm-profgen calls the preferred base address.
  uint64_t preferred_base_address() const;

 private:
  Expected<void> parse_sections(uint64_t shoff, uint16_t shentsize, uint16_t shnum,
                                uint16_t shstrndx);
  Expected<void> parse_program_headers(uint64_t phoff, uint16_t phentsize, uint16_t phnum);
  Expected<std::vector<Note>> parse_notes(Cursor cursor) const;
  Cursor cursor_at(uint64_t offset, uint64_t size) const;  // Requires: range within data_

  Bytes data_;
  bool swap_ = false;
  uint16_t type_ = 0;
  uint16_t machine_ = 0;
  uint64_t entry_ = 0;
  std::vector<SectionHeader> sections_;
  std::vector<ProgramHeader> program_headers_;
};

// A NUL-terminated string at `offset` inside a string table, bounded by the table.
Expected<std::string_view> string_at(Bytes table, uint64_t table_file_offset, uint64_t offset,
                                     std::string_view what);

}  // namespace profkit::elf
