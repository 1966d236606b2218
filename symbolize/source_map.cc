// DWARF .debug_info reader for address -> inline frames. Reads only what symbolization
// needs (unit headers, abbreviations, subroutine DIEs, range lists, names); every other
// attribute is skipped by its form. All reads are bounded; errors carry file offsets.
#include "symbolize/source_map.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "format/bytes/zlib.h"

namespace profkit::dwarf {

namespace {

// Tags, attributes and forms (DWARF 5, 7.5) that the reader branches on.
enum : uint32_t {
  kTagInlinedSubroutine = 0x1d,
  kTagCompileUnit = 0x11,
  kTagSubprogram = 0x2e,
  kTagPartialUnit = 0x3c,
  kTagSkeletonUnit = 0x4a,
};
enum : uint32_t {
  kAtName = 0x03,
  kAtStmtList = 0x10,
  kAtLowPc = 0x11,
  kAtHighPc = 0x12,
  kAtCompDir = 0x1b,
  kAtAbstractOrigin = 0x31,
  kAtDeclFile = 0x3a,
  kAtDeclLine = 0x3b,
  kAtSpecification = 0x47,
  kAtRanges = 0x55,
  kAtCallColumn = 0x57,
  kAtCallFile = 0x58,
  kAtCallLine = 0x59,
  kAtLinkageName = 0x6e,
  kAtStrOffsetsBase = 0x72,
  kAtAddrBase = 0x73,
  kAtRnglistsBase = 0x74,
  kAtMipsLinkageName = 0x2007,
  kAtGnuDiscriminator = 0x2136,
  kAtGnuAddrBase = 0x2133,
};
enum : uint32_t {
  kFormAddr = 0x01,
  kFormBlock2 = 0x03,
  kFormBlock4 = 0x04,
  kFormData2 = 0x05,
  kFormData4 = 0x06,
  kFormData8 = 0x07,
  kFormString = 0x08,
  kFormBlock = 0x09,
  kFormBlock1 = 0x0a,
  kFormData1 = 0x0b,
  kFormFlag = 0x0c,
  kFormSdata = 0x0d,
  kFormStrp = 0x0e,
  kFormUdata = 0x0f,
  kFormRefAddr = 0x10,
  kFormRef1 = 0x11,
  kFormRef2 = 0x12,
  kFormRef4 = 0x13,
  kFormRef8 = 0x14,
  kFormRefUdata = 0x15,
  kFormIndirect = 0x16,
  kFormSecOffset = 0x17,
  kFormExprloc = 0x18,
  kFormFlagPresent = 0x19,
  kFormStrx = 0x1a,
  kFormAddrx = 0x1b,
  kFormRefSup4 = 0x1c,
  kFormStrpSup = 0x1d,
  kFormData16 = 0x1e,
  kFormLineStrp = 0x1f,
  kFormRefSig8 = 0x20,
  kFormImplicitConst = 0x21,
  kFormLoclistx = 0x22,
  kFormRnglistx = 0x23,
  kFormRefSup8 = 0x24,
  kFormStrx1 = 0x25,
  kFormStrx2 = 0x26,
  kFormStrx3 = 0x27,
  kFormStrx4 = 0x28,
  kFormAddrx1 = 0x29,
  kFormAddrx2 = 0x2a,
  kFormAddrx3 = 0x2b,
  kFormAddrx4 = 0x2c,
  kFormGnuAddrIndex = 0x1f01,
  kFormGnuStrIndex = 0x1f02,
  kFormGnuRefAlt = 0x1f20,
  kFormGnuStrpAlt = 0x1f21,
};

constexpr uint32_t kNone = ~uint32_t{0};

// `lhs = *expr` or return its error, without declaring a name (usable between case labels).
#define PROFKIT_READ_INTO(lhs, expr)                                      \
  do {                                                                    \
    auto profkit_read_ = (expr);                                          \
    if (!profkit_read_) return Unexpected{std::move(profkit_read_).error()}; \
    lhs = *profkit_read_;                                                 \
  } while (0)

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

struct AbbrevAttr {
  uint32_t attr;
  uint32_t form;
  int64_t implicit_const;
};

struct Abbrev {
  uint64_t code = 0;
  uint32_t tag = 0;
  bool children = false;
  uint32_t first = 0;  // index into AbbrevTable::attrs
  uint32_t count = 0;
};

struct AbbrevTable {
  std::vector<Abbrev> abbrevs;  // dense when codes are 1..N in order (what compilers write)
  std::vector<AbbrevAttr> attrs;
  bool dense = true;
  const Abbrev* find(uint64_t code) const {
    if (dense) return code >= 1 && code <= abbrevs.size() ? &abbrevs[code - 1] : nullptr;
    for (const auto& a : abbrevs)
      if (a.code == code) return &a;
    return nullptr;
  }
};

// A raw attribute value: a number (constants, offsets, indices, references made absolute)
// or an inline string.
struct FormValue {
  uint32_t form = 0;
  uint64_t u = 0;
  std::string_view s;
};

// What one DIE says about symbolization; strings and addresses still unresolved.
struct DieAttrs {
  std::optional<FormValue> name, linkage, low_pc, high_pc, ranges, comp_dir;
  std::optional<uint64_t> origin, specification;  // absolute .debug_info offsets
  std::optional<uint64_t> stmt_list, str_offsets_base, addr_base, rnglists_base;
  uint64_t call_file = 0, call_line = 0, call_column = 0, discriminator = 0, decl_line = 0;
  uint64_t decl_file = 0;
  bool has_decl_line = false, has_decl_file = false;
};

struct Subroutine {
  uint64_t offset = 0;  // absolute .debug_info offset of the DIE
  uint32_t parent = kNone;
  bool subprogram = false;
  std::string_view name;
  uint32_t decl_line = 0;
  uint32_t call_file = 0, call_line = 0, call_column = 0, call_discriminator = 0;
};

struct Unit {
  uint64_t offset = 0;     // unit header in .debug_info
  uint64_t end = 0;        // one past the unit
  uint64_t die_start = 0;  // first DIE (the unit DIE)
  uint16_t version = 0;
  uint8_t unit_type = 1;
  uint8_t address_size = 8;
  bool dwarf64 = false;
  uint64_t abbrev_offset = 0;
  const AbbrevTable* abbrevs = nullptr;
  uint32_t tag = 0;
  // From the unit DIE.
  uint64_t base_address = 0;
  uint64_t str_offsets_base = 0, addr_base = 0, rnglists_base = 0;
  bool has_rnglists_base = false;
  std::optional<uint64_t> stmt_list;
  std::string_view comp_dir;
  // Loaded on first use.
  bool loaded = false;
  std::vector<Subroutine> subs;
  std::map<uint64_t, std::pair<uint64_t, uint32_t>> die_map;  // low -> (high, subroutine)
  // Every address range of every DW_TAG_subprogram, in DIE order (empty ones included).
  struct SubprogramRange {
    uint32_t sub;
    uint64_t low, high;
  };
  std::vector<SubprogramRange> subprogram_ranges;
  bool line_loaded = false;
  std::optional<LineTable> line;

  uint8_t offset_size() const { return dwarf64 ? 8 : 4; }
};

struct Range {
  uint64_t low, high;
};

}  // namespace

struct SourceMap::Impl {
  const DwarfSections* s = nullptr;
  std::vector<Unit> units;  // ascending offset
  std::unordered_map<uint64_t, std::unique_ptr<AbbrevTable>> abbrev_tables;
  struct CuRange {
    uint64_t low, high;
    uint64_t cu_offset;
  };
  std::vector<CuRange> aranges;  // disjoint, ascending
  // Names and declaration lines of DIEs reached through abstract_origin / specification.
  struct NameInfo {
    std::string_view linkage, name;
    std::optional<uint64_t> origin, specification;
    uint64_t decl_line = 0, decl_file = 0;
    bool has_decl_line = false, has_decl_file = false;
  };
  std::unordered_map<uint64_t, NameInfo> name_cache;

  Cursor info_cursor(uint64_t from, uint64_t to) const {
    return Cursor(s->info.data.subspan(from, to - from), s->info.file_offset + from, s->swap);
  }

  Expected<const AbbrevTable*> abbrev_table(uint64_t offset, uint64_t at);
  Expected<FormValue> read_form(Cursor& c, const Unit& u, uint32_t form, int64_t implicit,
                                int depth = 0) const;
  Expected<void> read_attrs(Cursor& c, const Unit& u, const Abbrev& a, DieAttrs& out) const;
  Expected<std::string_view> string_of(const Unit& u, const FormValue& v, uint64_t at) const;
  Expected<uint64_t> address_of(const Unit& u, const FormValue& v, uint64_t at) const;
  Expected<uint64_t> address_at_index(const Unit& u, uint64_t index, uint64_t at) const;
  Expected<void> die_ranges(const Unit& u, const DieAttrs& d, uint64_t at,
                            std::vector<Range>& out) const;
  Expected<void> ranges_v4(const Unit& u, uint64_t offset, uint64_t at,
                           std::vector<Range>& out) const;
  Expected<void> rnglist(const Unit& u, uint64_t offset, uint64_t at,
                         std::vector<Range>& out) const;
  Expected<void> index_unit(Unit& u);
  Expected<void> load_unit(Unit& u);
  Expected<void> load_line_table(Unit& u);
  Expected<const NameInfo*> name_info(uint64_t offset);
  Expected<std::string_view> subroutine_name(const Unit& u, const DieAttrs& d, uint64_t self);
  Expected<uint64_t> subroutine_decl_line(const DieAttrs& d, uint64_t self);
  Expected<std::optional<uint64_t>> subroutine_decl_file(uint64_t self);
  Unit* unit_containing(uint64_t offset);
  Expected<void> read_aranges(std::set<uint64_t>& covered,
                              std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>& out) const;
};

Expected<DwarfSections> DwarfSections::from_elf(const elf::ElfFile& file) {
  DwarfSections d;
  d.swap = !file.is_little_endian() == (std::endian::native == std::endian::little);
  struct Want {
    const char* name;
    Section* out;
  } wants[] = {{".debug_info", &d.info},         {".debug_abbrev", &d.abbrev},
               {".debug_line", &d.line},         {".debug_line_str", &d.line_str},
               {".debug_str", &d.str},           {".debug_str_offsets", &d.str_offsets},
               {".debug_addr", &d.addr},         {".debug_ranges", &d.ranges},
               {".debug_rnglists", &d.rnglists}, {".debug_aranges", &d.aranges}};
  for (const auto& w : wants) {
    const elf::SectionHeader* h = file.find_section(w.name);
    if (h == nullptr || h->type == elf::kShtNobits) continue;
    PROFKIT_TRY_ASSIGN(Bytes b, file.section_data(*h));
    if ((h->flags & 0x800) != 0) {  // SHF_COMPRESSED: Elf64_Chdr, then the stream
      Cursor c(b, h->offset, d.swap);
      PROFKIT_TRY_ASSIGN(uint32_t type, c.read<uint32_t>("compression type"));
      PROFKIT_TRY(c.skip(4, "reserved"));
      PROFKIT_TRY_ASSIGN(uint64_t size, c.read<uint64_t>("uncompressed size"));
      PROFKIT_TRY(c.skip(8, "alignment"));
      if (type != 1)  // ELFCOMPRESS_ZLIB
        return make_error(ErrorCode::unsupported_version, h->offset,
                          std::string("expected zlib compression (1) in ") + w.name + ", got " +
                              std::to_string(type));
      PROFKIT_TRY_ASSIGN(std::string plain,
                         zlib_uncompress(b.subspan(c.position()), size, c.offset()));
      auto owned = std::make_shared<const std::string>(std::move(plain));
      d.inflated.push_back(owned);
      b = as_bytes(*owned);
    }
    *w.out = Section{b, h->offset};
  }
  return d;
}

Expected<const AbbrevTable*> SourceMap::Impl::abbrev_table(uint64_t offset, uint64_t at) {
  auto it = abbrev_tables.find(offset);
  if (it != abbrev_tables.end()) return it->second.get();
  if (offset >= s->abbrev.data.size())
    return make_error(ErrorCode::malformed, at,
                      "expected debug_abbrev_offset inside .debug_abbrev (size " +
                          std::to_string(s->abbrev.data.size()) + "), got " +
                          std::to_string(offset));
  auto table = std::make_unique<AbbrevTable>();
  Cursor c(s->abbrev.data, s->abbrev.file_offset, s->swap);
  PROFKIT_TRY(c.seek(offset, "abbreviation table"));
  while (true) {
    const uint64_t code_at = c.offset();
    PROFKIT_TRY_ASSIGN(uint64_t code, c.read_uleb128("abbreviation code"));
    if (code == 0) break;
    Abbrev a;
    a.code = code;
    PROFKIT_TRY_ASSIGN(uint64_t tag, c.read_uleb128("abbreviation tag"));
    PROFKIT_TRY_ASSIGN(uint8_t children, c.read<uint8_t>("abbreviation children flag"));
    a.tag = static_cast<uint32_t>(tag);
    a.children = children != 0;
    a.first = static_cast<uint32_t>(table->attrs.size());
    while (true) {
      PROFKIT_TRY_ASSIGN(uint64_t attr, c.read_uleb128("attribute name"));
      PROFKIT_TRY_ASSIGN(uint64_t form, c.read_uleb128("attribute form"));
      if (attr == 0 && form == 0) break;
      int64_t implicit = 0;
      if (form == kFormImplicitConst) {
        PROFKIT_TRY_ASSIGN(implicit, c.read_sleb128("DW_FORM_implicit_const value"));
      }
      if (attr > 0xffffffffu || form > 0xffffffffu)
        return make_error(ErrorCode::malformed, code_at,
                          "expected attribute and form codes below 2^32");
      table->attrs.push_back(
          AbbrevAttr{static_cast<uint32_t>(attr), static_cast<uint32_t>(form), implicit});
    }
    a.count = static_cast<uint32_t>(table->attrs.size() - a.first);
    if (code != table->abbrevs.size() + 1) table->dense = false;
    table->abbrevs.push_back(a);
  }
  const AbbrevTable* out = table.get();
  abbrev_tables.emplace(offset, std::move(table));
  return out;
}

Expected<FormValue> SourceMap::Impl::read_form(Cursor& c, const Unit& u, uint32_t form,
                                               int64_t implicit, int depth) const {
  FormValue v;
  v.form = form;
  auto uint = [&](int bytes) -> Expected<uint64_t> {
    switch (bytes) {
      case 1: {
        PROFKIT_TRY_ASSIGN(uint8_t x, c.read<uint8_t>("1-byte attribute value"));
        return uint64_t{x};
      }
      case 2: {
        PROFKIT_TRY_ASSIGN(uint16_t x, c.read<uint16_t>("2-byte attribute value"));
        return uint64_t{x};
      }
      case 3: {
        PROFKIT_TRY_ASSIGN(Bytes b, c.read_bytes(3, "3-byte attribute value"));
        return c.swapped() ? (uint64_t{b[0]} << 16 | uint64_t{b[1]} << 8 | b[2])
                           : (uint64_t{b[2]} << 16 | uint64_t{b[1]} << 8 | b[0]);
      }
      case 4: {
        PROFKIT_TRY_ASSIGN(uint32_t x, c.read<uint32_t>("4-byte attribute value"));
        return uint64_t{x};
      }
      default:
        return c.read<uint64_t>("8-byte attribute value");
    }
  };
  auto skip_block = [&](uint64_t n) -> Expected<FormValue> {
    PROFKIT_TRY(c.skip(n, "attribute block"));
    return v;
  };
  switch (form) {
    case kFormAddr:
      if (u.address_size != 4 && u.address_size != 8)
        return c.fail(ErrorCode::malformed, "expected address_size 4 or 8");
      PROFKIT_READ_INTO(v.u, uint(u.address_size));
      return v;
    case kFormBlock2: {
      PROFKIT_TRY_ASSIGN(uint64_t n, uint(2));
      return skip_block(n);
    }
    case kFormBlock4: {
      PROFKIT_TRY_ASSIGN(uint64_t n, uint(4));
      return skip_block(n);
    }
    case kFormBlock:
    case kFormExprloc: {
      PROFKIT_TRY_ASSIGN(uint64_t n, c.read_uleb128("block length"));
      return skip_block(n);
    }
    case kFormBlock1: {
      PROFKIT_TRY_ASSIGN(uint64_t n, uint(1));
      return skip_block(n);
    }
    case kFormData1:
    case kFormFlag:
    case kFormRef1:
    case kFormStrx1:
    case kFormAddrx1:
      PROFKIT_READ_INTO(v.u, uint(1));
      break;
    case kFormData2:
    case kFormRef2:
    case kFormStrx2:
    case kFormAddrx2:
      PROFKIT_READ_INTO(v.u, uint(2));
      break;
    case kFormStrx3:
    case kFormAddrx3:
      PROFKIT_READ_INTO(v.u, uint(3));
      break;
    case kFormData4:
    case kFormRef4:
    case kFormRefSup4:
    case kFormStrx4:
    case kFormAddrx4:
      PROFKIT_READ_INTO(v.u, uint(4));
      break;
    case kFormData8:
    case kFormRef8:
    case kFormRefSig8:
    case kFormRefSup8:
      PROFKIT_READ_INTO(v.u, uint(8));
      break;
    case kFormData16:
      return skip_block(16);
    case kFormString: {
      const Bytes rest = c.data().subspan(c.position());
      const void* nul = std::memchr(rest.data(), 0, rest.size());
      if (nul == nullptr) return c.truncated("NUL-terminated string attribute");
      const size_t n = static_cast<size_t>(static_cast<const uint8_t*>(nul) - rest.data());
      v.s = as_string_view(rest.first(n));
      PROFKIT_TRY(c.skip(n + 1, "string attribute"));
      return v;
    }
    case kFormSdata: {
      PROFKIT_TRY_ASSIGN(int64_t x, c.read_sleb128("DW_FORM_sdata value"));
      v.u = static_cast<uint64_t>(x);
      return v;
    }
    case kFormUdata:
    case kFormRefUdata:
    case kFormStrx:
    case kFormAddrx:
    case kFormLoclistx:
    case kFormRnglistx:
    case kFormGnuAddrIndex:
    case kFormGnuStrIndex:
      PROFKIT_READ_INTO(v.u, c.read_uleb128("attribute value"));
      break;
    case kFormStrp:
    case kFormLineStrp:
    case kFormSecOffset:
    case kFormStrpSup:
    case kFormGnuRefAlt:
    case kFormGnuStrpAlt:
      PROFKIT_READ_INTO(v.u, uint(u.offset_size()));
      return v;
    case kFormRefAddr:
      PROFKIT_READ_INTO(v.u, uint(u.version <= 2 ? u.address_size : u.offset_size()));
      return v;
    case kFormFlagPresent:
      v.u = 1;
      return v;
    case kFormImplicitConst:
      v.u = static_cast<uint64_t>(implicit);
      return v;
    case kFormIndirect: {
      PROFKIT_TRY_ASSIGN(uint64_t f, c.read_uleb128("DW_FORM_indirect form"));
      if (depth > 0 || f == kFormIndirect || f == kFormImplicitConst || f > 0xffffffffu)
        return c.fail(ErrorCode::malformed,
                      "expected DW_FORM_indirect to name a direct form, got " + hex(f));
      return read_form(c, u, static_cast<uint32_t>(f), 0, depth + 1);
    }
    default:
      return c.fail(ErrorCode::unsupported_version,
                    "expected a DWARF form we know, got " + hex(form));
  }
  // Unit-relative references become .debug_info offsets.
  if (form == kFormRef1 || form == kFormRef2 || form == kFormRef4 || form == kFormRef8 ||
      form == kFormRefUdata)
    v.u += u.offset;
  return v;
}

Expected<void> SourceMap::Impl::read_attrs(Cursor& c, const Unit& u, const Abbrev& a,
                                           DieAttrs& out) const {
  const AbbrevAttr* attrs = u.abbrevs->attrs.data() + a.first;
  for (uint32_t i = 0; i < a.count; ++i) {
    const AbbrevAttr& at = attrs[i];
    PROFKIT_TRY_ASSIGN(FormValue v, read_form(c, u, at.form, at.implicit_const));
    const bool is_ref = v.form == kFormRef1 || v.form == kFormRef2 || v.form == kFormRef4 ||
                        v.form == kFormRef8 || v.form == kFormRefUdata ||
                        v.form == kFormRefAddr;
    switch (at.attr) {
      case kAtName: out.name = v; break;
      case kAtLinkageName:
      case kAtMipsLinkageName:
        if (!out.linkage) out.linkage = v;  // the first of the two in the DIE, as LLVM
        break;
      case kAtLowPc: out.low_pc = v; break;
      case kAtHighPc: out.high_pc = v; break;
      case kAtRanges: out.ranges = v; break;
      case kAtCompDir: out.comp_dir = v; break;
      case kAtAbstractOrigin: if (is_ref) out.origin = v.u; break;
      case kAtSpecification: if (is_ref) out.specification = v.u; break;
      case kAtStmtList: out.stmt_list = v.u; break;
      case kAtStrOffsetsBase: out.str_offsets_base = v.u; break;
      case kAtAddrBase:
      case kAtGnuAddrBase: out.addr_base = v.u; break;
      case kAtRnglistsBase: out.rnglists_base = v.u; break;
      case kAtCallFile: out.call_file = v.u; break;
      case kAtCallLine: out.call_line = v.u; break;
      case kAtCallColumn: out.call_column = v.u; break;
      case kAtGnuDiscriminator: out.discriminator = v.u; break;
      case kAtDeclLine: out.decl_line = v.u, out.has_decl_line = true; break;
      case kAtDeclFile: out.decl_file = v.u, out.has_decl_file = true; break;
      default: break;
    }
  }
  return {};
}

Expected<std::string_view> SourceMap::Impl::string_of(const Unit& u, const FormValue& v,
                                                      uint64_t at) const {
  auto in = [&](const Section& sec, uint64_t off, const char* name) -> Expected<std::string_view> {
    if (off >= sec.data.size())
      return make_error(ErrorCode::malformed, at,
                        std::string("expected a string offset inside ") + name + " (size " +
                            std::to_string(sec.data.size()) + "), got " + std::to_string(off));
    const Bytes rest = sec.data.subspan(off);
    const void* nul = std::memchr(rest.data(), 0, rest.size());
    if (nul == nullptr)
      return make_error(ErrorCode::truncated, sec.file_offset + off,
                        std::string("expected a NUL-terminated string in ") + name);
    return as_string_view(
        rest.first(static_cast<size_t>(static_cast<const uint8_t*>(nul) - rest.data())));
  };
  switch (v.form) {
    case kFormString: return v.s;
    case kFormStrp: return in(s->str, v.u, ".debug_str");
    case kFormLineStrp: return in(s->line_str, v.u, ".debug_line_str");
    case kFormStrx:
    case kFormStrx1:
    case kFormStrx2:
    case kFormStrx3:
    case kFormStrx4:
    case kFormGnuStrIndex: {
      const uint64_t size = u.offset_size();
      uint64_t pos;
      if (mul_overflows(v.u, size, &pos) || add_overflows(pos, u.str_offsets_base, &pos) ||
          pos > s->str_offsets.data.size() || s->str_offsets.data.size() - pos < size)
        return make_error(ErrorCode::malformed, at,
                          "expected string index " + std::to_string(v.u) +
                              " inside .debug_str_offsets");
      const uint8_t* p = s->str_offsets.data.data() + pos;
      uint64_t off = size == 8 ? load_le<uint64_t>(p) : load_le<uint32_t>(p);
      if (s->swap) off = size == 8 ? byteswap_int(off) : byteswap_int(static_cast<uint32_t>(off));
      return in(s->str, off, ".debug_str");
    }
    default:
      return std::string_view();  // supplementary-file strings and non-string forms
  }
}

Expected<uint64_t> SourceMap::Impl::address_at_index(const Unit& u, uint64_t index,
                                                     uint64_t at) const {
  uint64_t pos;
  if (mul_overflows(index, u.address_size, &pos) || add_overflows(pos, u.addr_base, &pos) ||
      pos > s->addr.data.size() || s->addr.data.size() - pos < u.address_size)
    return make_error(ErrorCode::malformed, at,
                      "expected address index " + std::to_string(index) + " inside .debug_addr");
  const uint8_t* p = s->addr.data.data() + pos;
  if (u.address_size == 4) {
    uint32_t a = load_le<uint32_t>(p);
    return uint64_t{s->swap ? byteswap_int(a) : a};
  }
  uint64_t a = load_le<uint64_t>(p);
  return s->swap ? byteswap_int(a) : a;
}

Expected<uint64_t> SourceMap::Impl::address_of(const Unit& u, const FormValue& v,
                                               uint64_t at) const {
  switch (v.form) {
    case kFormAddr: return v.u;
    case kFormAddrx:
    case kFormAddrx1:
    case kFormAddrx2:
    case kFormAddrx3:
    case kFormAddrx4:
    case kFormGnuAddrIndex: return address_at_index(u, v.u, at);
    default:
      return make_error(ErrorCode::malformed, at,
                        "expected an address form for DW_AT_low_pc, got " + hex(v.form));
  }
}

Expected<void> SourceMap::Impl::ranges_v4(const Unit& u, uint64_t offset, uint64_t at,
                                          std::vector<Range>& out) const {
  if (offset > s->ranges.data.size())
    return make_error(ErrorCode::malformed, at,
                      "expected a .debug_ranges offset inside the section, got " +
                          std::to_string(offset));
  Cursor c(s->ranges.data, s->ranges.file_offset, s->swap);
  PROFKIT_TRY(c.seek(offset, "range list"));
  const uint64_t max = u.address_size == 4 ? 0xffffffffu : ~uint64_t{0};
  uint64_t base = u.base_address;
  while (true) {
    uint64_t lo, hi;
    if (u.address_size == 4) {
      PROFKIT_TRY_ASSIGN(uint32_t a, c.read<uint32_t>("range list start"));
      PROFKIT_TRY_ASSIGN(uint32_t b, c.read<uint32_t>("range list end"));
      lo = a, hi = b;
    } else {
      PROFKIT_TRY_ASSIGN(lo, c.read<uint64_t>("range list start"));
      PROFKIT_TRY_ASSIGN(hi, c.read<uint64_t>("range list end"));
    }
    if (lo == 0 && hi == 0) return {};
    if (lo == max) {
      base = hi;
      continue;
    }
    out.push_back(Range{base + lo, base + hi});
  }
}

Expected<void> SourceMap::Impl::rnglist(const Unit& u, uint64_t offset, uint64_t at,
                                        std::vector<Range>& out) const {
  if (offset > s->rnglists.data.size())
    return make_error(ErrorCode::malformed, at,
                      "expected a .debug_rnglists offset inside the section, got " +
                          std::to_string(offset));
  Cursor c(s->rnglists.data, s->rnglists.file_offset, s->swap);
  PROFKIT_TRY(c.seek(offset, "range list"));
  uint64_t base = u.base_address;
  auto addr = [&](const char* what) -> Expected<uint64_t> {
    if (u.address_size == 4) {
      PROFKIT_TRY_ASSIGN(uint32_t a, c.read<uint32_t>(what));
      return uint64_t{a};
    }
    return c.read<uint64_t>(what);
  };
  while (true) {
    const uint64_t entry_at = c.offset();
    PROFKIT_TRY_ASSIGN(uint8_t kind, c.read<uint8_t>("range list entry kind"));
    switch (kind) {
      case 0: return {};  // DW_RLE_end_of_list
      case 1: {           // DW_RLE_base_addressx
        PROFKIT_TRY_ASSIGN(uint64_t i, c.read_uleb128("DW_RLE_base_addressx index"));
        PROFKIT_TRY_ASSIGN(base, address_at_index(u, i, entry_at));
        break;
      }
      case 2: {  // DW_RLE_startx_endx
        PROFKIT_TRY_ASSIGN(uint64_t a, c.read_uleb128("DW_RLE_startx_endx start index"));
        PROFKIT_TRY_ASSIGN(uint64_t b, c.read_uleb128("DW_RLE_startx_endx end index"));
        PROFKIT_TRY_ASSIGN(uint64_t lo, address_at_index(u, a, entry_at));
        PROFKIT_TRY_ASSIGN(uint64_t hi, address_at_index(u, b, entry_at));
        out.push_back(Range{lo, hi});
        break;
      }
      case 3: {  // DW_RLE_startx_length
        PROFKIT_TRY_ASSIGN(uint64_t a, c.read_uleb128("DW_RLE_startx_length index"));
        PROFKIT_TRY_ASSIGN(uint64_t n, c.read_uleb128("DW_RLE_startx_length length"));
        PROFKIT_TRY_ASSIGN(uint64_t lo, address_at_index(u, a, entry_at));
        out.push_back(Range{lo, lo + n});
        break;
      }
      case 4: {  // DW_RLE_offset_pair
        PROFKIT_TRY_ASSIGN(uint64_t a, c.read_uleb128("DW_RLE_offset_pair start"));
        PROFKIT_TRY_ASSIGN(uint64_t b, c.read_uleb128("DW_RLE_offset_pair end"));
        out.push_back(Range{base + a, base + b});
        break;
      }
      case 5: {  // DW_RLE_base_address
        PROFKIT_TRY_ASSIGN(base, addr("DW_RLE_base_address"));
        break;
      }
      case 6: {  // DW_RLE_start_end
        PROFKIT_TRY_ASSIGN(uint64_t lo, addr("DW_RLE_start_end start"));
        PROFKIT_TRY_ASSIGN(uint64_t hi, addr("DW_RLE_start_end end"));
        out.push_back(Range{lo, hi});
        break;
      }
      case 7: {  // DW_RLE_start_length
        PROFKIT_TRY_ASSIGN(uint64_t lo, addr("DW_RLE_start_length start"));
        PROFKIT_TRY_ASSIGN(uint64_t n, c.read_uleb128("DW_RLE_start_length length"));
        out.push_back(Range{lo, lo + n});
        break;
      }
      default:
        return make_error(ErrorCode::malformed, entry_at,
                          "expected a range list entry kind 0 to 7, got " + std::to_string(kind));
    }
  }
}

// LLVM's DWARFDie::getAddressRanges: low/high pc if both are present, else DW_AT_ranges.
Expected<void> SourceMap::Impl::die_ranges(const Unit& u, const DieAttrs& d, uint64_t at,
                                           std::vector<Range>& out) const {
  if (d.low_pc && d.high_pc) {
    PROFKIT_TRY_ASSIGN(uint64_t low, address_of(u, *d.low_pc, at));
    uint64_t high;
    const uint32_t f = d.high_pc->form;
    if (f == kFormAddr || f == kFormAddrx || (f >= kFormAddrx1 && f <= kFormAddrx4) ||
        f == kFormGnuAddrIndex) {
      PROFKIT_TRY_ASSIGN(high, address_of(u, *d.high_pc, at));
    } else {
      high = low + d.high_pc->u;
    }
    out.push_back(Range{low, high});
    return {};
  }
  if (!d.ranges) return {};
  if (d.ranges->form == kFormRnglistx) {
    // The offset table after the .debug_rnglists header: offsets relative to the base.
    const uint64_t size = u.offset_size();
    uint64_t pos;
    if (mul_overflows(d.ranges->u, size, &pos) || add_overflows(pos, u.rnglists_base, &pos) ||
        pos > s->rnglists.data.size() || s->rnglists.data.size() - pos < size)
      return make_error(ErrorCode::malformed, at,
                        "expected range list index " + std::to_string(d.ranges->u) +
                            " inside .debug_rnglists");
    const uint8_t* p = s->rnglists.data.data() + pos;
    uint64_t off = size == 8 ? load_le<uint64_t>(p) : load_le<uint32_t>(p);
    if (s->swap) off = size == 8 ? byteswap_int(off) : byteswap_int(static_cast<uint32_t>(off));
    uint64_t abs;
    if (add_overflows(off, u.rnglists_base, &abs))
      return make_error(ErrorCode::malformed, at, "expected a range list offset below 2^64");
    return rnglist(u, abs, at, out);
  }
  if (u.version >= 5) return rnglist(u, d.ranges->u, at, out);
  return ranges_v4(u, d.ranges->u, at, out);
}

// Reads a unit's header and its unit DIE (bases, ranges source, line table offset).
Expected<void> SourceMap::Impl::index_unit(Unit& u) {
  Cursor c = info_cursor(u.offset, u.end);
  PROFKIT_TRY(c.skip(u.dwarf64 ? 12 : 4, "unit_length"));
  const uint64_t version_at = c.offset();
  PROFKIT_TRY_ASSIGN(u.version, c.read<uint16_t>("unit version"));
  if (u.version < 2 || u.version > 5)
    return make_error(ErrorCode::unsupported_version, version_at,
                      "expected DWARF version 2 to 5, got " + std::to_string(u.version));
  if (u.version >= 5) {
    PROFKIT_TRY_ASSIGN(u.unit_type, c.read<uint8_t>("unit_type"));
    PROFKIT_TRY_ASSIGN(u.address_size, c.read<uint8_t>("address_size"));
    if (u.dwarf64) {
      PROFKIT_TRY_ASSIGN(u.abbrev_offset, c.read<uint64_t>("debug_abbrev_offset"));
    } else {
      PROFKIT_TRY_ASSIGN(uint32_t a, c.read<uint32_t>("debug_abbrev_offset"));
      u.abbrev_offset = a;
    }
    switch (u.unit_type) {
      case 1: case 3: break;                                         // compile, partial
      case 4: case 5: PROFKIT_TRY(c.skip(8, "dwo_id")); break;       // skeleton, split
      case 2: case 6:                                                // type units
        PROFKIT_TRY(c.skip(8 + (u.dwarf64 ? 8 : 4), "type unit header"));
        break;
      default:
        return make_error(ErrorCode::unsupported_version, version_at + 2,
                          "expected unit_type 1 to 6, got " + std::to_string(u.unit_type));
    }
  } else {
    if (u.dwarf64) {
      PROFKIT_TRY_ASSIGN(u.abbrev_offset, c.read<uint64_t>("debug_abbrev_offset"));
    } else {
      PROFKIT_TRY_ASSIGN(uint32_t a, c.read<uint32_t>("debug_abbrev_offset"));
      u.abbrev_offset = a;
    }
    PROFKIT_TRY_ASSIGN(u.address_size, c.read<uint8_t>("address_size"));
  }
  if (u.address_size != 4 && u.address_size != 8)
    return make_error(ErrorCode::malformed, version_at,
                      "expected address_size 4 or 8, got " + std::to_string(u.address_size));
  u.die_start = u.offset + c.position();
  PROFKIT_TRY_ASSIGN(u.abbrevs, abbrev_table(u.abbrev_offset, version_at));
  if (c.at_end()) return {};
  const uint64_t die_at = c.offset();
  PROFKIT_TRY_ASSIGN(uint64_t code, c.read_uleb128("unit DIE abbreviation code"));
  if (code == 0) return {};
  const Abbrev* a = u.abbrevs->find(code);
  if (a == nullptr)
    return make_error(ErrorCode::malformed, die_at,
                      "expected a defined abbreviation code, got " + std::to_string(code));
  u.tag = a->tag;
  DieAttrs d;
  PROFKIT_TRY(read_attrs(c, u, *a, d));
  // Bases first: the unit DIE's own strx/addrx/rnglistx values depend on them.
  if (d.str_offsets_base) u.str_offsets_base = *d.str_offsets_base;
  else if (u.version >= 5) u.str_offsets_base = u.dwarf64 ? 16 : 8;
  if (d.addr_base) u.addr_base = *d.addr_base;
  else if (u.version >= 5) u.addr_base = u.dwarf64 ? 16 : 8;
  if (d.rnglists_base) u.rnglists_base = *d.rnglists_base;
  else if (u.version >= 5) u.rnglists_base = u.dwarf64 ? 20 : 12;
  if (d.low_pc) {
    PROFKIT_TRY_ASSIGN(u.base_address, address_of(u, *d.low_pc, die_at));
  }
  if (d.comp_dir) {
    PROFKIT_TRY_ASSIGN(u.comp_dir, string_of(u, *d.comp_dir, die_at));
  }
  u.stmt_list = d.stmt_list;
  return {};
}

Expected<void> SourceMap::Impl::read_aranges(
    std::set<uint64_t>& covered,
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>& out) const {
  Cursor c(s->aranges.data, s->aranges.file_offset, s->swap);
  while (!c.at_end()) {
    const uint64_t set_start = c.position();
    PROFKIT_TRY_ASSIGN(uint32_t len32, c.read<uint32_t>("address range set unit_length"));
    bool dwarf64 = len32 == 0xffffffffu;
    uint64_t length = len32;
    if (dwarf64) {
      PROFKIT_TRY_ASSIGN(length, c.read<uint64_t>("address range set unit_length"));
    }
    PROFKIT_TRY_ASSIGN(Cursor set, c.take(length, "address range set"));
    PROFKIT_TRY(set.read<uint16_t>("address range set version"));
    uint64_t cu;
    if (dwarf64) {
      PROFKIT_TRY_ASSIGN(cu, set.read<uint64_t>("debug_info_offset"));
    } else {
      PROFKIT_TRY_ASSIGN(uint32_t x, set.read<uint32_t>("debug_info_offset"));
      cu = x;
    }
    const uint64_t size_at = set.offset();
    PROFKIT_TRY_ASSIGN(uint8_t address_size, set.read<uint8_t>("address_size"));
    PROFKIT_TRY(set.read<uint8_t>("segment_selector_size"));
    if (address_size != 4 && address_size != 8)
      return make_error(ErrorCode::malformed, size_at,
                        "expected address_size 4 or 8, got " + std::to_string(address_size));
    // Tuples start at a multiple of twice the address size from the set's start.
    const uint64_t header = (dwarf64 ? 12 : 4) + set.position();
    const uint64_t tuple = 2u * address_size;
    const uint64_t pad = (tuple - header % tuple) % tuple;
    PROFKIT_TRY(set.skip(std::min(pad, set.remaining()), "address range set padding"));
    covered.insert(cu);
    while (set.remaining() >= tuple) {
      uint64_t lo, n;
      if (address_size == 4) {
        lo = set.read<uint32_t>("range address").value();
        n = set.read<uint32_t>("range length").value();
      } else {
        lo = set.read<uint64_t>("range address").value();
        n = set.read<uint64_t>("range length").value();
      }
      if (lo == 0 && n == 0) break;
      if (n > 0) out.emplace_back(lo, lo + n, cu);
    }
    (void)set_start;
  }
  return {};
}

Expected<SourceMap> SourceMap::build(const DwarfSections& sections) {
  SourceMap map;
  Impl& m = *map.impl_;
  m.s = &sections;
  // Unit headers, in section order.
  Cursor c(sections.info.data, sections.info.file_offset, sections.swap);
  while (!c.at_end()) {
    Unit u;
    u.offset = c.position();
    PROFKIT_TRY_ASSIGN(uint32_t len32, c.read<uint32_t>("unit_length"));
    uint64_t length = len32;
    if (len32 == 0xffffffffu) {
      u.dwarf64 = true;
      PROFKIT_TRY_ASSIGN(length, c.read<uint64_t>("64-bit unit_length"));
    } else if (len32 >= 0xfffffff0u) {
      return make_error(ErrorCode::malformed, c.offset() - 4,
                        "expected a unit_length below 0xfffffff0 (reserved values), got " +
                            std::to_string(len32));
    }
    PROFKIT_TRY(c.skip(length, "unit"));
    u.end = c.position();
    PROFKIT_TRY(m.index_unit(u));
    m.units.push_back(std::move(u));
  }
  // Unit address ranges (LLVM's DWARFDebugAranges): .debug_aranges sets, then the unit DIE
  // ranges of units no set describes; overlapping ranges go to the lowest unit offset.
  std::set<uint64_t> covered;
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> ranges;  // low, high, unit offset
  PROFKIT_TRY(m.read_aranges(covered, ranges));
  for (const Unit& u : m.units) {
    if (covered.count(u.offset) != 0) continue;
    if (u.tag != kTagCompileUnit && u.tag != kTagPartialUnit && u.tag != kTagSkeletonUnit)
      continue;
    // Re-read the unit DIE for its ranges (bases are known now).
    Cursor d = m.info_cursor(u.die_start, u.end);
    if (d.at_end()) continue;
    const uint64_t at = d.offset();
    PROFKIT_TRY_ASSIGN(uint64_t code, d.read_uleb128("unit DIE abbreviation code"));
    const Abbrev* a = u.abbrevs->find(code);
    if (a == nullptr) continue;  // code 0: an empty unit
    DieAttrs attrs;
    PROFKIT_TRY(m.read_attrs(d, u, *a, attrs));
    std::vector<Range> rs;
    PROFKIT_TRY(m.die_ranges(u, attrs, at, rs));
    for (const Range& r : rs)
      if (r.low < r.high) ranges.emplace_back(r.low, r.high, u.offset);
  }
  struct Endpoint {
    uint64_t address;
    uint64_t cu;
    bool start;
  };
  std::vector<Endpoint> points;
  for (const auto& [lo, hi, cu] : ranges) {
    if (lo >= hi) continue;
    points.push_back({lo, cu, true});
    points.push_back({hi, cu, false});
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const Endpoint& a, const Endpoint& b) { return a.address < b.address; });
  std::multiset<uint64_t> open;
  uint64_t previous = ~uint64_t{0};
  for (const Endpoint& e : points) {
    if (previous < e.address && !open.empty()) {
      if (!m.aranges.empty() && m.aranges.back().high == previous &&
          open.count(m.aranges.back().cu_offset) != 0) {
        m.aranges.back().high = e.address;
      } else {
        m.aranges.push_back({previous, e.address, *open.begin()});
      }
    }
    if (e.start) {
      open.insert(e.cu);
    } else if (auto it = open.find(e.cu); it != open.end()) {
      open.erase(it);
    }
    previous = e.address;
  }
  return map;
}

Unit* SourceMap::Impl::unit_containing(uint64_t offset) {
  auto it = std::upper_bound(units.begin(), units.end(), offset,
                             [](uint64_t o, const Unit& u) { return o < u.offset; });
  if (it == units.begin()) return nullptr;
  --it;
  return offset >= it->die_start && offset < it->end ? &*it : nullptr;
}

Expected<const SourceMap::Impl::NameInfo*> SourceMap::Impl::name_info(uint64_t offset) {
  auto it = name_cache.find(offset);
  if (it != name_cache.end()) return &it->second;
  Unit* u = unit_containing(offset);
  if (u == nullptr)
    return make_error(ErrorCode::malformed, s->info.file_offset + std::min<uint64_t>(offset, s->info.data.size()),
                      "expected a DIE reference inside a unit of .debug_info, got offset " +
                          std::to_string(offset));
  Cursor c = info_cursor(offset, u->end);
  PROFKIT_TRY_ASSIGN(uint64_t code, c.read_uleb128("referenced DIE abbreviation code"));
  NameInfo info;
  if (const Abbrev* a = u->abbrevs->find(code)) {
    DieAttrs d;
    PROFKIT_TRY(read_attrs(c, *u, *a, d));
    if (d.linkage) {
      PROFKIT_TRY_ASSIGN(info.linkage, string_of(*u, *d.linkage, s->info.file_offset + offset));
    }
    if (d.name) {
      PROFKIT_TRY_ASSIGN(info.name, string_of(*u, *d.name, s->info.file_offset + offset));
    }
    info.origin = d.origin;
    info.specification = d.specification;
    info.decl_line = d.decl_line;
    info.has_decl_line = d.has_decl_line;
    info.decl_file = d.decl_file;
    info.has_decl_file = d.has_decl_file;
  } else if (code != 0) {
    return make_error(ErrorCode::malformed, s->info.file_offset + offset,
                      "expected a defined abbreviation code, got " + std::to_string(code));
  }
  return &name_cache.emplace(offset, info).first->second;
}

// LLVM's DWARFDie::getName(LinkageName): a linkage name anywhere along abstract_origin /
// specification (worklist order: last pushed first), else a DW_AT_name the same way.
Expected<std::string_view> SourceMap::Impl::subroutine_name(const Unit& u, const DieAttrs& d,
                                                            uint64_t self) {
  NameInfo own;
  if (d.linkage) {
    PROFKIT_TRY_ASSIGN(own.linkage, string_of(u, *d.linkage, s->info.file_offset + self));
  }
  if (d.name) {
    PROFKIT_TRY_ASSIGN(own.name, string_of(u, *d.name, s->info.file_offset + self));
  }
  own.origin = d.origin;
  own.specification = d.specification;
  for (bool linkage : {true, false}) {
    std::vector<const NameInfo*> work{&own};
    std::vector<uint64_t> seen{self};
    for (int steps = 0; !work.empty() && steps < 64; ++steps) {
      const NameInfo* n = work.back();
      work.pop_back();
      const std::string_view v = linkage ? n->linkage : n->name;
      if (!v.empty()) return v;
      for (const auto& ref : {n->origin, n->specification}) {
        if (!ref || std::find(seen.begin(), seen.end(), *ref) != seen.end()) continue;
        seen.push_back(*ref);
        PROFKIT_TRY_ASSIGN(const NameInfo* next, name_info(*ref));
        work.push_back(next);
      }
    }
  }
  return std::string_view();
}

Expected<uint64_t> SourceMap::Impl::subroutine_decl_line(const DieAttrs& d, uint64_t self) {
  if (d.has_decl_line) return d.decl_line;
  std::vector<std::optional<uint64_t>> work{d.origin, d.specification};
  std::vector<uint64_t> seen{self};
  for (int steps = 0; !work.empty() && steps < 64; ++steps) {
    const auto ref = work.back();
    work.pop_back();
    if (!ref || std::find(seen.begin(), seen.end(), *ref) != seen.end()) continue;
    seen.push_back(*ref);
    PROFKIT_TRY_ASSIGN(const NameInfo* n, name_info(*ref));
    if (n->has_decl_line) return n->decl_line;
    work.push_back(n->origin);
    work.push_back(n->specification);
  }
  return uint64_t{0};
}

// DW_AT_decl_file of a DIE, else of the DIEs its abstract_origin / specification reach.
Expected<std::optional<uint64_t>> SourceMap::Impl::subroutine_decl_file(uint64_t self) {
  std::vector<std::optional<uint64_t>> work{self};
  std::vector<uint64_t> seen;
  for (int steps = 0; !work.empty() && steps < 64; ++steps) {
    const auto ref = work.back();
    work.pop_back();
    if (!ref || std::find(seen.begin(), seen.end(), *ref) != seen.end()) continue;
    seen.push_back(*ref);
    PROFKIT_TRY_ASSIGN(const NameInfo* n, name_info(*ref));
    if (n->has_decl_file) return std::optional<uint64_t>(n->decl_file);
    work.push_back(n->origin);
    work.push_back(n->specification);
  }
  return std::optional<uint64_t>();
}

// Walks a unit's DIE tree once: every subprogram and inlined subroutine with its nearest
// enclosing subroutine, and LLVM's address -> innermost-DIE map built from their ranges in
// DIE order (a range inside an earlier one splits it).
Expected<void> SourceMap::Impl::load_unit(Unit& u) {
  u.loaded = true;
  Cursor c = info_cursor(u.die_start, u.end);
  std::vector<uint32_t> stack;  // nearest subroutine at each open nesting level
  std::vector<Range> ranges;
  bool first = true;
  while (!c.at_end()) {
    const uint64_t die = u.die_start + c.position();
    const uint64_t at = c.offset();
    PROFKIT_TRY_ASSIGN(uint64_t code, c.read_uleb128("DIE abbreviation code"));
    if (code == 0) {  // end of a sibling list
      if (!stack.empty()) stack.pop_back();
      continue;
    }
    const Abbrev* a = u.abbrevs->find(code);
    if (a == nullptr)
      return make_error(ErrorCode::malformed, at,
                        "expected a defined abbreviation code, got " + std::to_string(code));
    DieAttrs d;
    PROFKIT_TRY(read_attrs(c, u, *a, d));
    const uint32_t enclosing = stack.empty() ? kNone : stack.back();
    uint32_t self = enclosing;
    if (!first && (a->tag == kTagSubprogram || a->tag == kTagInlinedSubroutine)) {
      Subroutine sub;
      sub.offset = die;
      sub.parent = enclosing;
      sub.subprogram = a->tag == kTagSubprogram;
      sub.call_file = static_cast<uint32_t>(d.call_file);
      sub.call_line = static_cast<uint32_t>(d.call_line);
      sub.call_column = static_cast<uint32_t>(d.call_column);
      sub.call_discriminator = static_cast<uint32_t>(d.discriminator);
      ranges.clear();
      PROFKIT_TRY(die_ranges(u, d, at, ranges));
      self = static_cast<uint32_t>(u.subs.size());
      PROFKIT_TRY_ASSIGN(sub.name, subroutine_name(u, d, die));
      PROFKIT_TRY_ASSIGN(uint64_t decl, subroutine_decl_line(d, die));
      sub.decl_line = static_cast<uint32_t>(decl);
      u.subs.push_back(sub);
      if (sub.subprogram)
        for (const Range& r : ranges) u.subprogram_ranges.push_back({self, r.low, r.high});
      for (const Range& r : ranges) {
        if (r.low == r.high) continue;
        auto& map = u.die_map;
        auto b = map.upper_bound(r.low);
        if (b != map.begin() && r.low < (--b)->second.first) {
          if (r.high < b->second.first) map[r.high] = b->second;
          if (r.low > b->first) map[b->first].first = r.low;
        }
        map[r.low] = {r.high, self};
      }
    }
    first = false;
    if (a->children) stack.push_back(self);
  }
  return {};
}

SourceMap::SourceMap() : impl_(std::make_unique<Impl>()) {}
SourceMap::SourceMap(SourceMap&&) noexcept = default;
SourceMap& SourceMap::operator=(SourceMap&&) noexcept = default;
SourceMap::~SourceMap() = default;

bool SourceMap::empty() const { return impl_->units.empty(); }

Expected<void> SourceMap::Impl::load_line_table(Unit& u) {
  u.line_loaded = true;
  if (!u.stmt_list) return {};
  PROFKIT_TRY_ASSIGN(LineTable t, LineTable::parse(s->line, *u.stmt_list, s->line_str, s->str,
                                                   u.address_size));
  u.line = std::move(t);
  return {};
}

Expected<void> SourceMap::load_all() {
  for (Unit& u : impl_->units) {  // every unit: frames() must not load anything afterwards
    if (!u.loaded) PROFKIT_TRY(impl_->load_unit(u));
    if (!u.line_loaded) PROFKIT_TRY(impl_->load_line_table(u));
  }
  return {};
}

Expected<void> SourceMap::frames(uint64_t address, std::vector<SourceFrame>& out) {
  out.clear();
  Impl& m = *impl_;
  auto cu = std::partition_point(m.aranges.begin(), m.aranges.end(),
                                 [&](const Impl::CuRange& r) { return r.high <= address; });
  if (cu == m.aranges.end() || cu->low > address) return {};
  auto at = std::lower_bound(m.units.begin(), m.units.end(), cu->cu_offset,
                             [](const Unit& x, uint64_t o) { return x.offset < o; });
  if (at == m.units.end() || at->offset != cu->cu_offset) return {};  // aranges name no unit
  Unit* u = &*at;
  const uint32_t unit_index = static_cast<uint32_t>(u - m.units.data());
  if (!u->loaded) PROFKIT_TRY(m.load_unit(*u));
  if (!u->line_loaded) PROFKIT_TRY(m.load_line_table(*u));
  auto it = u->die_map.upper_bound(address);
  if (it == u->die_map.begin()) return {};
  --it;
  if (address >= it->second.first) return {};
  // The inline chain: inlined subroutines up to the enclosing subprogram.
  uint32_t call_file = 0, call_line = 0, call_column = 0, call_discriminator = 0;
  for (uint32_t i = it->second.second; i != kNone; i = u->subs[i].parent) {
    const Subroutine& sub = u->subs[i];
    SourceFrame f;
    f.function = sub.name;
    f.start_line = sub.decl_line;
    f.unit = unit_index;
    if (out.empty()) {
      if (u->line) {
        if (const LineRow* row = u->line->lookup(address)) {
          f.file = row->file;
          f.line = row->line;
          f.column = row->column;
          f.discriminator = row->discriminator;
          f.has_row = true;
        }
      }
    } else {
      f.file = call_file;
      f.line = call_line;
      f.column = call_column;
      f.discriminator = call_discriminator;
    }
    call_file = sub.call_file;
    call_line = sub.call_line;
    call_column = sub.call_column;
    call_discriminator = sub.call_discriminator;
    out.push_back(f);
    if (sub.subprogram) break;
  }
  return {};
}

Expected<void> SourceMap::for_each_subprogram_range(
    const std::function<void(std::string_view, uint64_t, uint64_t)>& fn) {
  PROFKIT_TRY(load_all());
  for (const Unit& u : impl_->units)
    for (const auto& r : u.subprogram_ranges) fn(u.subs[r.sub].name, r.low, r.high);
  return {};
}

Expected<void> SourceMap::for_each_subprogram(
    const std::function<void(std::string_view, uint32_t, const std::string&)>& fn) {
  PROFKIT_TRY(load_all());
  const std::string none;
  for (const Unit& u : impl_->units) {
    for (const Subroutine& sub : u.subs) {
      if (!sub.subprogram) continue;
      if (sub.decl_line == 0) {
        fn(sub.name, 0, none);
        continue;
      }
      PROFKIT_TRY_ASSIGN(std::optional<uint64_t> file, impl_->subroutine_decl_file(sub.offset));
      fn(sub.name, sub.decl_line,
         file && u.line ? u.line->file_path(*file, u.comp_dir) : none);
    }
  }
  return {};
}

std::string SourceMap::file_path(const SourceFrame& frame) const {
  if (frame.unit >= impl_->units.size()) return std::string();
  const Unit& u = impl_->units[frame.unit];
  if (!u.line) return std::string();
  return u.line->file_path(frame.file, u.comp_dir);
}

Expected<std::unique_ptr<ElfDwarf>> read_elf_dwarf(Bytes file) {
  PROFKIT_TRY_ASSIGN(elf::ElfFile elf, elf::ElfFile::parse(file));
  auto d = std::make_unique<ElfDwarf>();
  PROFKIT_TRY_ASSIGN(d->sections, DwarfSections::from_elf(elf));
  if (d->sections.info.data.empty()) return std::unique_ptr<ElfDwarf>();
  PROFKIT_TRY_ASSIGN(d->map, SourceMap::build(d->sections));
  return d;
}

}  // namespace profkit::dwarf
