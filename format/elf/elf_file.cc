// ELF64 reader: every table is read through a Cursor bounded by the file and by its own size.
#include "format/elf/elf_file.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace profkit::elf {

namespace {

constexpr uint8_t kMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr uint64_t kEhdrSize = 64;
constexpr uint64_t kShdrSize = 64;
constexpr uint64_t kPhdrSize = 56;
constexpr uint64_t kSymSize = 24;
constexpr uint64_t kRelaSize = 24;
constexpr uint64_t kRelSize = 16;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t align_up4(uint64_t v) { return (v + 3) & ~uint64_t{3}; }

}  // namespace

Expected<std::string_view> string_at(Bytes table, uint64_t table_file_offset, uint64_t offset,
                                     std::string_view what) {
  if (offset >= table.size())
    return make_error(ErrorCode::malformed, table_file_offset,
                      std::string(what) + " offset " + std::to_string(offset) +
                          " is outside its string table of " + std::to_string(table.size()) +
                          " bytes");
  const void* nul = std::memchr(table.data() + offset, 0, table.size() - offset);
  if (nul == nullptr)
    return make_error(ErrorCode::truncated, table_file_offset + offset,
                      "expected a NUL-terminated " + std::string(what) +
                          " but its string table ends");
  const auto* start = reinterpret_cast<const char*>(table.data() + offset);
  return std::string_view(start, static_cast<const char*>(nul) - start);
}

bool ElfFile::has_format(Bytes data) {
  return data.size() >= 4 && std::memcmp(data.data(), kMagic, 4) == 0;
}

Cursor ElfFile::cursor_at(uint64_t offset, uint64_t size) const {
  return Cursor(data_.subspan(offset, size), offset, swap_);
}

Expected<ElfFile> ElfFile::parse(Bytes data) {
  if (!has_format(data))
    return make_error(ErrorCode::bad_magic, 0, "expected the ELF magic \\x7fELF");
  if (data.size() < kEhdrSize)
    return make_error(ErrorCode::truncated, data.size(),
                      "expected a 64-byte ELF header but the file has " +
                          std::to_string(data.size()) + " bytes");
  const uint8_t elf_class = data[4];
  const uint8_t elf_data = data[5];
  if (elf_class != 2)
    return make_error(ErrorCode::unsupported_version, 4,
                      "expected a 64-bit ELF file (class 2), found class " +
                          std::to_string(elf_class));
  if (elf_data != 1 && elf_data != 2)
    return make_error(ErrorCode::malformed, 5,
                      "expected ELF data encoding 1 (LSB) or 2 (MSB), found " +
                          std::to_string(elf_data));
  ElfFile file;
  file.data_ = data;
  const bool file_little = elf_data == 1;
  file.swap_ = file_little != (std::endian::native == std::endian::little);

  Cursor c(data.subspan(0, kEhdrSize), 0, file.swap_);
  PROFKIT_TRY(c.skip(16, "e_ident"));
  PROFKIT_TRY_ASSIGN(file.type_, c.read<uint16_t>("e_type"));
  PROFKIT_TRY_ASSIGN(file.machine_, c.read<uint16_t>("e_machine"));
  PROFKIT_TRY(c.skip(4, "e_version"));
  PROFKIT_TRY_ASSIGN(file.entry_, c.read<uint64_t>("e_entry"));
  PROFKIT_TRY_ASSIGN(uint64_t phoff, c.read<uint64_t>("e_phoff"));
  PROFKIT_TRY_ASSIGN(uint64_t shoff, c.read<uint64_t>("e_shoff"));
  PROFKIT_TRY(c.skip(4, "e_flags"));
  PROFKIT_TRY(c.skip(2, "e_ehsize"));
  PROFKIT_TRY_ASSIGN(uint16_t phentsize, c.read<uint16_t>("e_phentsize"));
  PROFKIT_TRY_ASSIGN(uint16_t phnum, c.read<uint16_t>("e_phnum"));
  PROFKIT_TRY_ASSIGN(uint16_t shentsize, c.read<uint16_t>("e_shentsize"));
  PROFKIT_TRY_ASSIGN(uint16_t shnum, c.read<uint16_t>("e_shnum"));
  PROFKIT_TRY_ASSIGN(uint16_t shstrndx, c.read<uint16_t>("e_shstrndx"));

  PROFKIT_TRY(file.parse_sections(shoff, shentsize, shnum, shstrndx));
  PROFKIT_TRY(file.parse_program_headers(phoff, phentsize, phnum));
  return file;
}

Expected<void> ElfFile::parse_sections(uint64_t shoff, uint16_t shentsize, uint16_t shnum,
                                       uint16_t shstrndx) {
  if (shoff == 0) return {};  // no section header table (allowed for executables)
  if (shentsize < kShdrSize)
    return make_error(ErrorCode::malformed, 0x3a,
                      "expected e_shentsize >= 64, found " + std::to_string(shentsize));
  if (shoff > data_.size())
    return make_error(ErrorCode::truncated, 0x28,
                      "section header table at " + hex(shoff) + " is past the end of the file (" +
                          std::to_string(data_.size()) + " bytes)");
  Cursor table(data_.subspan(shoff), shoff, swap_);
  // Section 0 may carry the real count (e_shnum == 0) and string table index (SHN_XINDEX).
  std::vector<uint32_t> name_offsets;
  auto read_one = [&](uint32_t index) -> Expected<void> {
    SectionHeader h;
    h.index = index;
    h.header_offset = table.offset();
    PROFKIT_TRY_ASSIGN(Cursor e, table.take(shentsize, "a 64-byte section header"));
    PROFKIT_TRY_ASSIGN(uint32_t name_offset, e.read<uint32_t>("sh_name"));
    PROFKIT_TRY_ASSIGN(h.type, e.read<uint32_t>("sh_type"));
    PROFKIT_TRY_ASSIGN(h.flags, e.read<uint64_t>("sh_flags"));
    PROFKIT_TRY_ASSIGN(h.address, e.read<uint64_t>("sh_addr"));
    PROFKIT_TRY_ASSIGN(h.offset, e.read<uint64_t>("sh_offset"));
    PROFKIT_TRY_ASSIGN(h.size, e.read<uint64_t>("sh_size"));
    PROFKIT_TRY_ASSIGN(h.link, e.read<uint32_t>("sh_link"));
    PROFKIT_TRY_ASSIGN(h.info, e.read<uint32_t>("sh_info"));
    PROFKIT_TRY_ASSIGN(h.alignment, e.read<uint64_t>("sh_addralign"));
    PROFKIT_TRY_ASSIGN(h.entry_size, e.read<uint64_t>("sh_entsize"));
    sections_.push_back(h);
    name_offsets.push_back(name_offset);
    return {};
  };
  PROFKIT_TRY(read_one(0));
  uint64_t count = shnum;
  if (count == 0) count = sections_[0].size;
  uint32_t strndx = shstrndx == kShnXindex ? sections_[0].link : shstrndx;
  // The count is a claim: bound it by the bytes left for headers.
  if (count > table.remaining() / shentsize + 1)
    return make_error(ErrorCode::truncated, 0x3c,
                      "section header count " + std::to_string(count) +
                          " does not fit in the file after offset " + hex(shoff));
  sections_.reserve(count);
  for (uint64_t i = 1; i < count; ++i) PROFKIT_TRY(read_one(static_cast<uint32_t>(i)));

  if (strndx == 0) return {};  // no names
  if (strndx >= sections_.size())
    return make_error(ErrorCode::malformed, 0x3e,
                      "section name table index " + std::to_string(strndx) +
                          " is not below the section count " + std::to_string(sections_.size()));
  PROFKIT_TRY_ASSIGN(Bytes names, section_data(sections_[strndx]));
  for (auto& s : sections_) {
    if (name_offsets[s.index] == 0 && s.index == 0) continue;
    PROFKIT_TRY_ASSIGN(s.name, string_at(names, sections_[strndx].offset,
                                         name_offsets[s.index], "section name"));
  }
  return {};
}

Expected<void> ElfFile::parse_program_headers(uint64_t phoff, uint16_t phentsize,
                                              uint16_t phnum) {
  if (phoff == 0 || phnum == 0) return {};
  if (phentsize < kPhdrSize)
    return make_error(ErrorCode::malformed, 0x36,
                      "expected e_phentsize >= 56, found " + std::to_string(phentsize));
  uint64_t bytes = 0, end = 0;
  if (mul_overflows(phnum, phentsize, &bytes) || add_overflows(phoff, bytes, &end) ||
      end > data_.size())
    return make_error(ErrorCode::truncated, 0x20,
                      "program header table at " + hex(phoff) + " (" + std::to_string(phnum) +
                          " entries) runs past the end of the file");
  Cursor table = cursor_at(phoff, bytes);
  program_headers_.reserve(phnum);
  for (uint16_t i = 0; i < phnum; ++i) {
    PROFKIT_TRY_ASSIGN(Cursor e, table.take(phentsize, "a program header"));
    ProgramHeader p;
    PROFKIT_TRY_ASSIGN(p.type, e.read<uint32_t>("p_type"));
    PROFKIT_TRY_ASSIGN(p.flags, e.read<uint32_t>("p_flags"));
    PROFKIT_TRY_ASSIGN(p.offset, e.read<uint64_t>("p_offset"));
    PROFKIT_TRY_ASSIGN(p.virtual_address, e.read<uint64_t>("p_vaddr"));
    PROFKIT_TRY_ASSIGN(p.physical_address, e.read<uint64_t>("p_paddr"));
    PROFKIT_TRY_ASSIGN(p.file_size, e.read<uint64_t>("p_filesz"));
    PROFKIT_TRY_ASSIGN(p.memory_size, e.read<uint64_t>("p_memsz"));
    PROFKIT_TRY_ASSIGN(p.alignment, e.read<uint64_t>("p_align"));
    program_headers_.push_back(p);
  }
  return {};
}

const SectionHeader* ElfFile::find_section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<const SectionHeader*> ElfFile::find_sections(std::string_view name) const {
  std::vector<const SectionHeader*> out;
  for (const auto& s : sections_)
    if (s.name == name) out.push_back(&s);
  return out;
}

const SectionHeader* ElfFile::find_section_by_type(uint32_t type) const {
  for (const auto& s : sections_)
    if (s.type == type) return &s;
  return nullptr;
}

Expected<Bytes> ElfFile::section_data(const SectionHeader& section) const {
  if (section.type == kShtNobits || section.type == kShtNull) return Bytes();
  uint64_t end = 0;
  if (add_overflows(section.offset, section.size, &end) || end > data_.size())
    return make_error(ErrorCode::truncated, section.header_offset,
                      "section " + std::string(section.name) + " [" +
                          std::to_string(section.index) + "] at " + hex(section.offset) + " size " +
                          hex(section.size) + " runs past the end of the file (" +
                          std::to_string(data_.size()) + " bytes)");
  return data_.subspan(section.offset, section.size);
}

Expected<Cursor> ElfFile::section_cursor(const SectionHeader& section) const {
  PROFKIT_TRY_ASSIGN(Bytes b, section_data(section));
  return Cursor(b, section.offset, swap_);
}

Expected<std::vector<Symbol>> ElfFile::symbols(const SectionHeader& table) const {
  if (table.type != kShtSymtab && table.type != kShtDynsym)
    return make_error(ErrorCode::invalid_argument, table.header_offset,
                      "section " + std::string(table.name) + " is not a symbol table");
  if (table.link >= sections_.size())
    return make_error(ErrorCode::malformed, table.header_offset,
                      "symbol table " + std::string(table.name) + " links to section " +
                          std::to_string(table.link) + ", which does not exist");
  const SectionHeader& strtab = sections_[table.link];
  PROFKIT_TRY_ASSIGN(Bytes names, section_data(strtab));
  PROFKIT_TRY_ASSIGN(Cursor c, section_cursor(table));
  const uint64_t entry = table.entry_size == 0 ? kSymSize : table.entry_size;
  if (entry < kSymSize)
    return make_error(ErrorCode::malformed, table.header_offset,
                      "expected symbol entry size >= 24, found " + std::to_string(entry));
  std::vector<Symbol> out;
  out.reserve(c.remaining() / entry);
  while (c.remaining() >= entry) {
    PROFKIT_TRY_ASSIGN(Cursor e, c.take(entry, "a symbol"));
    Symbol s;
    PROFKIT_TRY_ASSIGN(uint32_t name, e.read<uint32_t>("st_name"));
    PROFKIT_TRY_ASSIGN(uint8_t info, e.read<uint8_t>("st_info"));
    PROFKIT_TRY_ASSIGN(s.other, e.read<uint8_t>("st_other"));
    PROFKIT_TRY_ASSIGN(s.section_index, e.read<uint16_t>("st_shndx"));
    PROFKIT_TRY_ASSIGN(s.value, e.read<uint64_t>("st_value"));
    PROFKIT_TRY_ASSIGN(s.size, e.read<uint64_t>("st_size"));
    s.type = info & 0xf;
    s.binding = info >> 4;
    if (name != 0) {
      PROFKIT_TRY_ASSIGN(s.name, string_at(names, strtab.offset, name, "symbol name"));
    }
    out.push_back(s);
  }
  if (!c.at_end())
    return c.fail(ErrorCode::truncated,
                  "symbol table " + std::string(table.name) + " ends with a partial entry of " +
                      std::to_string(c.remaining()) + " bytes");
  return out;
}

Expected<std::vector<Symbol>> ElfFile::static_symbols() const {
  const SectionHeader* s = find_section_by_type(kShtSymtab);
  if (s == nullptr) return std::vector<Symbol>();
  return symbols(*s);
}

Expected<std::vector<Symbol>> ElfFile::dynamic_symbols() const {
  const SectionHeader* s = find_section_by_type(kShtDynsym);
  if (s == nullptr) return std::vector<Symbol>();
  return symbols(*s);
}

Expected<std::vector<Relocation>> ElfFile::relocations(const SectionHeader& section) const {
  if (section.type != kShtRela && section.type != kShtRel)
    return make_error(ErrorCode::invalid_argument, section.header_offset,
                      "section " + std::string(section.name) + " is not a relocation section");
  const bool rela = section.type == kShtRela;
  const uint64_t min_entry = rela ? kRelaSize : kRelSize;
  const uint64_t entry = section.entry_size == 0 ? min_entry : section.entry_size;
  if (entry < min_entry)
    return make_error(ErrorCode::malformed, section.header_offset,
                      "expected relocation entry size >= " + std::to_string(min_entry) +
                          ", found " + std::to_string(entry));
  PROFKIT_TRY_ASSIGN(Cursor c, section_cursor(section));
  std::vector<Relocation> out;
  out.reserve(c.remaining() / entry);
  while (c.remaining() >= entry) {
    PROFKIT_TRY_ASSIGN(Cursor e, c.take(entry, "a relocation"));
    Relocation r;
    PROFKIT_TRY_ASSIGN(r.offset, e.read<uint64_t>("r_offset"));
    PROFKIT_TRY_ASSIGN(uint64_t info, e.read<uint64_t>("r_info"));
    r.symbol = static_cast<uint32_t>(info >> 32);
    r.type = static_cast<uint32_t>(info & 0xffffffffu);
    if (rela) {
      PROFKIT_TRY_ASSIGN(r.addend, e.read<int64_t>("r_addend"));
    }
    out.push_back(r);
  }
  if (!c.at_end())
    return c.fail(ErrorCode::truncated,
                  "relocation section " + std::string(section.name) +
                      " ends with a partial entry of " + std::to_string(c.remaining()) + " bytes");
  return out;
}

std::vector<const SectionHeader*> ElfFile::relocation_sections_for(
    const SectionHeader& target) const {
  std::vector<const SectionHeader*> out;
  for (const auto& s : sections_)
    if ((s.type == kShtRela || s.type == kShtRel) && s.info == target.index) out.push_back(&s);
  return out;
}

Expected<std::vector<SectionGroup>> ElfFile::section_groups() const {
  std::vector<SectionGroup> out;
  for (const auto& s : sections_) {
    if (s.type != kShtGroup) continue;
    SectionGroup g;
    g.section_index = s.index;
    PROFKIT_TRY_ASSIGN(Cursor c, section_cursor(s));
    PROFKIT_TRY_ASSIGN(g.flags, c.read<uint32_t>("the group flag word"));
    g.members.reserve(c.remaining() / 4);
    while (!c.at_end()) {
      PROFKIT_TRY_ASSIGN(uint32_t m, c.read<uint32_t>("a group member index"));
      if (m >= sections_.size())
        return make_error(ErrorCode::malformed, c.offset() - 4,
                          "group member " + std::to_string(m) + " is not a section index");
      g.members.push_back(m);
    }
    // The signature is the name of symbol sh_info in the symbol table sh_link.
    if (s.link < sections_.size() && sections_[s.link].type == kShtSymtab) {
      PROFKIT_TRY_ASSIGN(auto syms, symbols(sections_[s.link]));
      if (s.info >= syms.size())
        return make_error(ErrorCode::malformed, s.header_offset,
                          "group signature symbol " + std::to_string(s.info) +
                              " is not in the symbol table");
      const Symbol& sig = syms[s.info];
      g.signature = sig.name;
      // Section symbols have no name: the signature is the section's name.
      if (sig.type == kSttSection && sig.section_index < sections_.size())
        g.signature = sections_[sig.section_index].name;
    }
    out.push_back(std::move(g));
  }
  return out;
}

Expected<std::vector<Note>> ElfFile::parse_notes(Cursor c) const {
  std::vector<Note> out;
  while (!c.at_end()) {
    PROFKIT_TRY_ASSIGN(uint32_t namesz, c.read<uint32_t>("n_namesz"));
    PROFKIT_TRY_ASSIGN(uint32_t descsz, c.read<uint32_t>("n_descsz"));
    Note n;
    PROFKIT_TRY_ASSIGN(n.type, c.read<uint32_t>("n_type"));
    const uint64_t name_start = c.position();
    PROFKIT_TRY_ASSIGN(Bytes name, c.read_bytes(namesz, "the note name"));
    std::string_view name_text = as_string_view(name);
    if (!name_text.empty() && name_text.back() == '\0') name_text.remove_suffix(1);
    n.name = name_text;
    PROFKIT_TRY(c.seek(std::min<uint64_t>(name_start + align_up4(namesz), c.size()),
                       "the note name padding"));
    const uint64_t desc_start = c.position();
    PROFKIT_TRY_ASSIGN(n.description, c.read_bytes(descsz, "the note description"));
    PROFKIT_TRY(c.seek(std::min<uint64_t>(desc_start + align_up4(descsz), c.size()),
                       "the note description padding"));
    out.push_back(n);
  }
  return out;
}

Expected<std::vector<Note>> ElfFile::notes() const {
  std::vector<Note> out;
  bool any_section = false;
  for (const auto& s : sections_) {
    if (s.type != kShtNote) continue;
    any_section = true;
    PROFKIT_TRY_ASSIGN(Cursor c, section_cursor(s));
    PROFKIT_TRY_ASSIGN(auto part, parse_notes(c));
    out.insert(out.end(), part.begin(), part.end());
  }
  if (any_section) return out;
  for (const auto& p : program_headers_) {
    if (p.type != kPtNote) continue;
    uint64_t end = 0;
    if (add_overflows(p.offset, p.file_size, &end) || end > data_.size())
      return make_error(ErrorCode::truncated, p.offset,
                        "PT_NOTE segment runs past the end of the file");
    PROFKIT_TRY_ASSIGN(auto part, parse_notes(cursor_at(p.offset, p.file_size)));
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

Expected<std::optional<Bytes>> ElfFile::build_id() const {
  PROFKIT_TRY_ASSIGN(auto all, notes());
  for (const auto& n : all)
    if (n.type == kNtGnuBuildId && n.name == "GNU") return std::optional<Bytes>(n.description);
  return std::optional<Bytes>();
}

uint64_t ElfFile::preferred_base_address() const {
  for (const auto& p : program_headers_) {
    if (p.type != kPtLoad || (p.flags & kPfX) == 0) continue;
    const uint64_t align = p.alignment == 0 ? 1 : p.alignment;
    if ((align & (align - 1)) != 0) return p.virtual_address;
    return p.virtual_address & ~(align - 1);
  }
  return 0;
}

}  // namespace profkit::elf
